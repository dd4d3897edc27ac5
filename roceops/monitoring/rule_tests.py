"""``promtool test rules`` cases for the rendered rules: each alert once firing and once not, from the fabric's own
thresholds (so a fabric that changes a threshold gets tests that still hold). Format:
https://prometheus.io/docs/prometheus/latest/configuration/unit_testing_rules/
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from roceops.model.intent import FabricIntent
from roceops.monitoring.metrics import name
from roceops.monitoring.rules import Alert, alerts, lossless_priorities

_LABEL = re.compile(r"\{\{ \$labels\.(\w+) \}\}")
_PLACE = {"device": "leaf-su1-r1", "tier": "leaf", "su": "1", "rail": "1"}


@dataclass(frozen=True)
class Case:
    alert: str
    fires: bool
    series: list[tuple[str, dict[str, str], float]]  # metric, labels, increase per scrape
    alert_labels: dict[str, str] = field(default_factory=dict)  # labels the alert keeps (firing cases)


def _series(metric: str, labels: dict[str, str]) -> str:
    inner = ",".join(f'{k}="{v}"' for k, v in labels.items())
    return f"{name(metric)}{{{inner}}}"


def _cases(intent: FabricIntent) -> list[Case]:
    m = intent.monitoring
    i = m.scrape_interval_s
    lossless = lossless_priorities(intent) or [3]
    lossy = next(p for p in range(8) if p not in lossless)
    pfc = {**_PLACE, "port": "Ethernet0", "priority": str(lossless[0]), "direction": "rx"}
    lossy_pfc = {**pfc, "priority": str(lossy)}
    queue = {**_PLACE, "port": "Ethernet0", "queue": str(lossless[0])}
    nic = {"device": "gpu001", "tier": "host", "su": "1", "rail": "1", "port": "eth0"}

    def per_scrape(rate: float) -> float:
        return rate * i

    over = lambda limit: limit + 2  # noqa: E731 - a count per scrape that beats `limit` within any window
    return [
        Case("RoCEPauseStorm", True, [("pfc_pause_frames_total", pfc, per_scrape(m.pause_storm_pps * 2 + 10))],
             dict(pfc)),
        Case("RoCEPauseStorm", False, [("pfc_pause_frames_total", pfc, per_scrape(m.pause_storm_pps / 2)),
                                       ("pfc_pause_frames_total", lossy_pfc, per_scrape(m.pause_storm_pps * 2 + 10))]),
        Case("RoCEPfcOnLossyPriority", True,
             [("pfc_pause_frames_total", lossy_pfc, per_scrape(m.lossy_pfc_pps * 2 + 10))], dict(lossy_pfc)),
        Case("RoCEPfcOnLossyPriority", False,
             [("pfc_pause_frames_total", pfc, per_scrape(m.lossy_pfc_pps * 2 + 10)),
              ("pfc_pause_frames_total", lossy_pfc, per_scrape(m.lossy_pfc_pps / 2))]),
        Case("RoCEEcnWithoutCnp", True,
             [("ecn_marked_packets_total", queue, per_scrape(m.ecn_marks_min_pps * 2 + 10)),
              ("nic_cnp_sent_total", nic, 0.0)], {"su": "1", "rail": "1"}),
        Case("RoCEEcnWithoutCnp", False,
             [("ecn_marked_packets_total", queue, per_scrape(m.ecn_marks_min_pps * 2 + 10)),
              ("nic_cnp_sent_total", nic, per_scrape(5.0))]),
        Case("RoCEPfcWatchdogStorm", True, [("pfcwd_storms_total", queue, over(m.pfcwd_storms_max))], dict(queue)),
        Case("RoCEPfcWatchdogStorm", False, [("pfcwd_storms_total", queue, 0.0)]),
        Case("RoCELosslessQueueDrops", True,
             [("queue_drops_total", {**queue, "lossless": "true"}, over(m.lossless_drops_max))],
             {**queue, "lossless": "true"}),
        Case("RoCELosslessQueueDrops", False,
             [("queue_drops_total", {**queue, "lossless": "false"}, over(m.lossless_drops_max))]),
        Case("RoCEFabricLinkFlapping", True, [("link_flaps_total", {**_PLACE, "port": "Ethernet8"},
                                               over(m.link_flaps_max))], {**_PLACE, "port": "Ethernet8"}),
        Case("RoCEFabricLinkFlapping", False, [("link_flaps_total", nic, over(m.link_flaps_max))]),
        Case("RoCETelemetryTargetDown", True, [("target_up", {**_PLACE, "platform": "nos"}, -1.0)],
             {**_PLACE, "platform": "nos"}),
        Case("RoCETelemetryTargetDown", False, [("target_up", {**_PLACE, "platform": "nos"}, 0.0)]),
    ]


def _values(step: float, samples: int) -> str:
    if step < 0:  # a gauge at 0 (target down)
        return f"0x{samples}"
    if step == 0:
        return f"1x{samples}"
    return f"0+{step:g}x{samples}"


def _expected(alert: Alert, intent: FabricIntent, labels: dict[str, str]) -> dict[str, Any]:
    full = {**labels, "severity": alert.severity, "fabric": intent.name}
    annotations = {key: _LABEL.sub(lambda mm: full.get(mm.group(1), ""), template)
                   for key, template in (("summary", alert.summary), ("description", alert.description))}
    return {"exp_labels": full, "exp_annotations": annotations}


def rule_tests_document(intent: FabricIntent, rules_file: str) -> dict[str, Any]:
    """The promtool test file as data: one test per case, each evaluated after the window and the ``for``."""
    m = intent.monitoring
    by_name = {a.name: a for a in alerts(intent)}
    eval_s = m.rate_window_s + m.alert_for_s + 2 * m.scrape_interval_s
    samples = eval_s // m.scrape_interval_s + 2
    tests = []
    for case in _cases(intent):
        alert = by_name[case.alert]
        tests.append({
            "name": f"{case.alert} {'fires' if case.fires else 'stays quiet'}",
            "interval": f"{m.scrape_interval_s}s",
            "input_series": [{"series": _series(metric, labels), "values": _values(step, samples)}
                             for metric, labels, step in case.series],
            "alert_rule_test": [{
                "eval_time": f"{eval_s}s",
                "alertname": case.alert,
                "exp_alerts": [_expected(alert, intent, case.alert_labels)] if case.fires else [],
            }],
        })
    return {"rule_files": [rules_file], "evaluation_interval": f"{m.scrape_interval_s}s", "tests": tests}
