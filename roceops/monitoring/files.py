"""The files ``roceops render`` writes under ``<out>/monitoring/``, as text (no I/O here)."""

from __future__ import annotations

import json
from typing import Any

import yaml

from roceops.monitoring.dashboard import dashboard_document
from roceops.monitoring.rule_tests import rule_tests_document
from roceops.monitoring.rules import rules_document
from roceops.topology.fabric import Fabric

MONITORING_DIR = "monitoring"
RULES = "prometheus-rules.yml"
RULE_TESTS = "prometheus-rules.test.yml"
DASHBOARD = "grafana-dashboard.json"
SCRAPE = "prometheus-scrape.yml"
JOB = "roceops-telemetry"


def _yaml(doc: dict[str, Any], header: str) -> str:
    body = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=1000, allow_unicode=False)
    return f"# {header}\n{body}"


def scrape_document(fabric: Fabric) -> dict[str, Any]:
    """A Prometheus config fragment: the rules file and one job over the fabric's exporters.

    Keys: https://prometheus.io/docs/prometheus/latest/configuration/configuration/ (``rule_files``,
    ``scrape_configs``, ``static_configs``); ``honor_labels`` keeps the exporter's ``device`` and place labels.
    """
    m = fabric.intent.monitoring
    return {
        "global": {"scrape_interval": f"{m.scrape_interval_s}s", "evaluation_interval": f"{m.scrape_interval_s}s"},
        "rule_files": [RULES],
        "scrape_configs": [{
            "job_name": JOB,
            "scrape_interval": f"{m.scrape_interval_s}s",
            "scrape_timeout": f"{max(1, m.scrape_interval_s - 1)}s",
            "honor_labels": True,
            "static_configs": [{"targets": list(m.exporters), "labels": {"fabric": fabric.intent.name}}],
        }],
    }


def monitoring_files(fabric: Fabric) -> dict[str, str]:
    """File name -> text of everything under ``monitoring/``; byte-identical for the same fabric."""
    intent = fabric.intent
    made = f"rendered by roceops for fabric {intent.name}; do not edit (change fabric.yaml's monitoring: instead)"
    return {
        RULES: _yaml(rules_document(intent), made),
        RULE_TESTS: _yaml(rule_tests_document(intent, RULES), f"{made}; run: promtool test rules {RULE_TESTS}"),
        DASHBOARD: json.dumps(dashboard_document(intent, fabric), indent=2, sort_keys=True) + "\n",
        SCRAPE: _yaml(scrape_document(fabric), made),
    }
