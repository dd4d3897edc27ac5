"""A Grafana dashboard for one fabric: a row per tier, then a row repeated per SU and one per rail.

JSON model: https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/ ;
repeated rows over a template variable: https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/create-dashboard/
(``repeat`` on a row panel). The Prometheus data source is a variable, picked on import.
"""

from __future__ import annotations

from typing import Any

from roceops.model.intent import FabricIntent
from roceops.monitoring.metrics import name
from roceops.topology.fabric import Fabric

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
TIER_ORDER = ("leaf", "spine", "core", "host")
WIDTH, HEIGHT = 8, 8


def _panels_for(selector: str, title: str) -> list[tuple[str, str, str]]:
    """(title, expr, unit) of the panels one scope shows; ``selector`` is a label matcher list without braces."""
    r = "[$__rate_interval]"
    return [
        (f"{title}: PFC pause frames/s", f"sum by (device, port, priority) "
                                         f"(rate({name('pfc_pause_frames_total')}{{{selector}}}{r}))", "pps"),
        (f"{title}: ECN marks/s", f"sum by (device, port) (rate({name('ecn_marked_packets_total')}{{{selector}}}{r}))",
         "pps"),
        (f"{title}: lossless queue drops", f'sum by (device, port, queue) '
                                           f'(increase({name("queue_drops_total")}{{{selector},lossless="true"}}{r}))',
         "short"),
    ]


def _host_panels(selector: str, title: str) -> list[tuple[str, str, str]]:
    r = "[$__rate_interval]"
    return [
        (f"{title}: CNPs sent/s", f"sum by (device, port) (rate({name('nic_cnp_sent_total')}{{{selector}}}{r}))",
         "pps"),
        (f"{title}: CNPs handled/s", f"sum by (device, port) (rate({name('nic_cnp_handled_total')}{{{selector}}}{r}))",
         "pps"),
        (f"{title}: transport errors/s", f"sum by (device, port, counter) "
                                         f"(rate({name('nic_transport_errors_total')}{{{selector}}}{r}))", "pps"),
    ]


class _Layout:
    """Hands out panel ids and grid positions, three panels to a line."""

    def __init__(self) -> None:
        self.panels: list[dict[str, Any]] = []
        self.y = 0
        self.x = 0

    def row(self, title: str, repeat: str | None = None) -> None:
        if self.x:
            self.y += HEIGHT
            self.x = 0
        panel: dict[str, Any] = {"type": "row", "title": title, "collapsed": False, "panels": [],
                                 "id": len(self.panels) + 1, "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}}
        if repeat:
            panel["repeat"] = repeat
        self.panels.append(panel)
        self.y += 1

    def graph(self, title: str, expr: str, unit: str) -> None:
        self.panels.append({
            "type": "timeseries", "title": title, "id": len(self.panels) + 1, "datasource": DATASOURCE,
            "gridPos": {"h": HEIGHT, "w": WIDTH, "x": self.x, "y": self.y},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [{"refId": "A", "datasource": DATASOURCE, "expr": expr,
                         "legendFormat": "{{device}} {{port}}"}],
        })
        self.x += WIDTH
        if self.x >= 24:
            self.x, self.y = 0, self.y + HEIGHT


def _variable(label: str) -> dict[str, Any]:
    query = f"label_values({name('target_up')}, {label})"
    return {"name": label, "label": label.upper() if label == "su" else label.capitalize(), "type": "query",
            "datasource": DATASOURCE, "query": {"query": query, "refId": label}, "definition": query,
            "includeAll": True, "multi": True, "refresh": 2, "sort": 3}


def dashboard_document(intent: FabricIntent, fabric: Fabric) -> dict[str, Any]:
    """The dashboard as data: per-tier rows for the tiers the fabric has, then per-SU and per-rail rows."""
    tiers = {d.role for d in fabric.devices()}
    layout = _Layout()
    for tier in (t for t in TIER_ORDER if t in tiers):
        layout.row(f"Tier: {tier}")
        panels = _host_panels if tier == "host" else _panels_for
        for title, expr, unit in panels(f'tier="{tier}"', tier):
            layout.graph(title, expr, unit)
    for label, title in (("su", "SU $su"), ("rail", "Rail $rail")):
        layout.row(title, repeat=label)
        scope = f'{label}=~"${label}"'
        for t, expr, unit in (*_panels_for(f'tier="leaf",{scope}', f"{title} leaves"),
                              *_host_panels(scope, f"{title} NICs")[:1]):
            layout.graph(t, expr, unit)
    datasource_var = {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus"}
    return {
        "title": f"roceops: {intent.name}",
        "uid": f"roceops-{intent.name}"[:40],
        "tags": ["roceops", "rocev2"],
        "timezone": "utc",
        "schemaVersion": 39,
        "refresh": f"{intent.monitoring.scrape_interval_s}s",
        "time": {"from": "now-1h", "to": "now"},
        "templating": {"list": [datasource_var, _variable("tier"), _variable("su"), _variable("rail")]},
        "panels": layout.panels,
    }
