"""Prometheus alerting rules for one fabric, from its monitoring policy and its lossless priorities.

| alert | fires when (over ``rate_window_s``, held ``alert_for_s``) |
|---|---|
| RoCEPauseStorm | PFC frames/s on a lossless priority above ``pause_storm_pps`` |
| RoCEPfcOnLossyPriority | PFC frames/s on any other priority above ``lossy_pfc_pps`` |
| RoCEEcnWithoutCnp | a rail's leaves mark more than ``ecn_marks_min_pps`` and its NICs send no CNP |
| RoCEPfcWatchdogStorm | more than ``pfcwd_storms_max`` watchdog storm detections |
| RoCELosslessQueueDrops | more than ``lossless_drops_max`` drops on a lossless queue |
| RoCEFabricLinkFlapping | more than ``link_flaps_max`` carrier changes on a switch port |
| RoCETelemetryTargetDown | the collector has no fresh sample of a device |

Rule syntax: https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/ (checked with
``promtool check rules`` in tests/monitoring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roceops.model.intent import FabricIntent
from roceops.model.monitoring import MonitoringPolicy
from roceops.monitoring.metrics import name

GROUP = "roceops-rocev2"


@dataclass(frozen=True)
class Alert:
    name: str
    expr: str
    severity: str
    summary: str
    description: str


def lossless_priorities(intent: FabricIntent) -> list[int]:
    """The PFC priorities of the fabric's lossless traffic classes, sorted."""
    return sorted({tc.priority for tc in intent.qos.lossless_classes})


def _regex(priorities: list[int]) -> str:
    return "|".join(str(p) for p in priorities) or "none"


def alerts(intent: FabricIntent) -> list[Alert]:
    """Every alert of the fabric, in a fixed order."""
    m: MonitoringPolicy = intent.monitoring
    w = f"{m.rate_window_s}s"
    lossless = _regex(lossless_priorities(intent))
    pfc = name("pfc_pause_frames_total")
    return [
        Alert("RoCEPauseStorm",
              f'rate({pfc}{{priority=~"{lossless}"}}[{w}]) > {m.pause_storm_pps:g}', "critical",
              "PFC pause storm on {{ $labels.device }} {{ $labels.port }} priority {{ $labels.priority }}",
              "Pause frames ({{ $labels.direction }}) on a lossless priority above "
              f"{m.pause_storm_pps:g}/s; tier {{{{ $labels.tier }}}}, SU {{{{ $labels.su }}}}, "
              "rail {{ $labels.rail }}."),
        Alert("RoCEPfcOnLossyPriority",
              f'rate({pfc}{{priority!~"{lossless}"}}[{w}]) > {m.lossy_pfc_pps:g}', "warning",
              "PFC frames on priority {{ $labels.priority }}, which is not lossless, on {{ $labels.device }}",
              f"More than {m.lossy_pfc_pps:g} PFC frames/s on {{{{ $labels.port }}}}: PFC is enabled on a priority the "
              "fabric does not make lossless (a peer's PFC map departs from intent)."),
        Alert("RoCEEcnWithoutCnp",
              f'(sum by (su, rail) (rate({name("ecn_marked_packets_total")}{{tier="leaf"}}[{w}])) '
              f"> {m.ecn_marks_min_pps:g}) unless on (su, rail) "
              f"(sum by (su, rail) (rate({name('nic_cnp_sent_total')}[{w}])) > 0)", "critical",
              "ECN marks without CNPs in SU {{ $labels.su }} rail {{ $labels.rail }}",
              f"The rail's leaves mark more than {m.ecn_marks_min_pps:g} packets/s but its NICs send no CNP: "
              "the congestion loop is broken (DCQCN off, CNP DSCP/priority wrong, or CNPs dropped)."),
        Alert("RoCEPfcWatchdogStorm",
              f"increase({name('pfcwd_storms_total')}[{w}]) > {m.pfcwd_storms_max}", "critical",
              "PFC watchdog storm on {{ $labels.device }} {{ $labels.port }} queue {{ $labels.queue }}",
              f"The PFC watchdog detected more than {m.pfcwd_storms_max} storms in {w}; the queue was stormed "
              "(tier {{ $labels.tier }}, SU {{ $labels.su }}, rail {{ $labels.rail }})."),
        Alert("RoCELosslessQueueDrops",
              f'increase({name("queue_drops_total")}{{lossless="true"}}[{w}]) > {m.lossless_drops_max}',
              "critical",
              "Drops on lossless queue {{ $labels.queue }} of {{ $labels.device }} {{ $labels.port }}",
              f"More than {m.lossless_drops_max} packets dropped on a lossless queue in {w}: headroom, PFC or the "
              "watchdog's drop action broke the lossless contract."),
        Alert("RoCEFabricLinkFlapping",
              f'increase({name("link_flaps_total")}{{tier!="host"}}[{w}]) > {m.link_flaps_max}', "warning",
              "Fabric link {{ $labels.device }} {{ $labels.port }} is flapping",
              f"More than {m.link_flaps_max} carrier changes in {w} (tier {{{{ $labels.tier }}}}, "
              "SU {{ $labels.su }}, rail {{ $labels.rail }})."),
        Alert("RoCETelemetryTargetDown",
              f"{name('target_up')} == 0", "warning",
              "roceops telemetry has no fresh sample of {{ $labels.device }}",
              "The collector cannot reach, or gets no answer from, {{ $labels.device }} "
              "({{ $labels.platform }}); its counters are unknown, not zero."),
    ]


def rules_document(intent: FabricIntent) -> dict[str, Any]:
    """The rules file as data (one group), ready to dump as YAML."""
    m = intent.monitoring
    rules = [{
        "alert": a.name,
        "expr": a.expr,
        "for": f"{m.alert_for_s}s",
        "labels": {"severity": a.severity, "fabric": intent.name},
        "annotations": {"summary": a.summary, "description": a.description},
    } for a in alerts(intent)]
    return {"groups": [{"name": GROUP, "interval": f"{m.scrape_interval_s}s", "rules": rules}]}
