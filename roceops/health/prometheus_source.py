"""Leaf counters for health from Prometheus (``health --counters-from URL``) instead of logging into the leaves:
the series ``roceops telemetry`` exports, read back as the two operational samples health compares.

One instant query with a range selector returns each series' raw samples over the last ``lookback`` seconds
(https://prometheus.io/docs/prometheus/latest/querying/api/#instant-queries; a range vector result is a "matrix");
the oldest and newest sample of a series become the leaf's first and second sample, and their timestamps its
window. A leaf whose ``roceops_target_up`` is not 1, or that has no series, is unknown, never healthy.
Only counters come this way: the leaf's configuration is not read, and the exporter streams no port state or
settings, so leaf.port is skipped and the health table says why (the audit checks the configuration).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from roceops.device.oper import OperState, PortOper
from roceops.health.catalog import Sample
from roceops.monitoring.metrics import name
from roceops.redact import redact

# exported metric -> how health names the counter (roceops.device.oper.PortOper); pfc is per priority/direction
_NEUTRAL = {"pfcwd_storms_total": "pfcwd_storms", "link_flaps_total": "carrier_changes",
            "port_rx_errors_total": "crc_errors", "ecn_marked_packets_total": "ecn_marked"}
_PFC = "pfc_pause_frames_total"


class PrometheusError(RuntimeError):
    """Prometheus could not be asked or gave no usable answer (the message names the URL, never credentials)."""


def _get(base: str, query: str, timeout: float) -> list[dict[str, Any]]:
    url = f"{base.rstrip('/')}/api/v1/query?{urllib.parse.urlencode({'query': query})}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            body = json.load(reply)
    except (OSError, ValueError, urllib.error.URLError) as exc:
        raise PrometheusError(redact(f"Prometheus at {base}: {exc}")[:300]) from None
    if body.get("status") != "success":
        raise PrometheusError(f"Prometheus at {base}: {body.get('error', 'query failed')}"[:300])
    return list(body.get("data", {}).get("result", []))


def _regex(names: list[str]) -> str:
    return "|".join(n.replace(".", "\\\\.") for n in names)


def _counter_key(metric: str, labels: Mapping[str, str]) -> str | None:
    if metric == _PFC:
        return f"pfc_{labels.get('direction', '')}_{labels.get('priority', '')}"
    return _NEUTRAL.get(metric)


def leaf_samples(base: str, ports: Mapping[str, set[str]], lookback_s: float, timeout: float) -> dict[str, Sample]:
    """Sample per leaf (the ports asked for only) from the last ``lookback_s`` seconds of its series."""
    leaves = sorted(ports)
    try:
        up = {r["metric"].get("device"): r["value"][1]
              for r in _get(base, f'{name("target_up")}{{device=~"{_regex(leaves)}"}}', timeout)}
        wanted = "|".join(name(m) for m in (_PFC, *_NEUTRAL))
        series = _get(base, f'{{__name__=~"{wanted}",device=~"{_regex(leaves)}"}}[{max(1, round(lookback_s))}s]',
                      timeout)
    except PrometheusError as exc:
        return {leaf: Sample(error=str(exc)) for leaf in leaves}
    first: dict[str, dict[str, dict[str, int]]] = {}
    second: dict[str, dict[str, dict[str, int]]] = {}
    times: dict[str, tuple[float, float]] = {}
    for s in series:
        labels, values = s.get("metric", {}), s.get("values", [])
        leaf, port = labels.get("device", ""), labels.get("port", "")
        key = _counter_key(labels.get("__name__", "").removeprefix("roceops_"), labels)
        if leaf not in ports or port not in ports[leaf] or key is None or len(values) < 2:
            continue
        (t0, v0), (t1, v1) = values[0], values[-1]
        for store, value in ((first, v0), (second, v1)):
            counters = store.setdefault(leaf, {}).setdefault(port, {})
            counters[key] = counters.get(key, 0) + int(float(value))  # several queues add up to the port's
        times.setdefault(leaf, (float(t0), float(t1)))
    out: dict[str, Sample] = {}
    for leaf in leaves:
        if up.get(leaf) != "1":
            out[leaf] = Sample(error=f"{leaf}: no fresh counters in Prometheus at {base} (roceops_target_up "
                                     f"{up.get(leaf, 'absent')})", counters_only=True)
        elif leaf not in times:
            out[leaf] = Sample(error=f"{leaf}: Prometheus at {base} holds fewer than 2 samples of its counters in "
                                     f"the last {lookback_s:g} s", counters_only=True)
        else:
            t0, t1 = times[leaf]
            out[leaf] = Sample(first=_state(leaf, first[leaf]), second=_state(leaf, second[leaf]), window_s=t1 - t0,
                               counters_only=True)
    return out


def _state(leaf: str, ports: dict[str, dict[str, int]]) -> OperState:
    return OperState(device=leaf, ports={p: PortOper(name=p, counters=c) for p, c in ports.items()})
