"""Helpers for lint tests: a small valid intent that lints clean (no warnings), and ways to break it."""

from __future__ import annotations

import copy
import re
from typing import Any

from roceops.lint import LintReport, lint
from roceops.model.intent import FabricIntent
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

MIB = 1024 * 1024


def base() -> dict[str, Any]:
    """2 SUs x 4 nodes x 2 rails on 8-port 400G switches, SONiC leaves and spines: 14 devices, no findings."""
    return {
        "name": "lint-base",
        "node": {"gpus": 2, "rails": 2, "nic_speed": "400G"},
        "scalable_units": {"count": 2, "nodes_per_su": 4, "target_count": 2},
        "switch_models": {"sw8": {"radix": 8, "port_speed": "400G", "buffer_bytes": 64 * MIB}},
        "tiers": {"leaf": {"model": "sw8", "platform": "sonic"}, "spine": {"model": "sw8", "platform": "sonic"}},
        "addressing": {"loopbacks": "10.0.0.0/24", "p2p": "10.1.0.0/24", "hosts": "10.128.0.0/16",
                       "management": "192.168.100.0/24"},
        "mtu": {"switch": 9216, "host": 9000, "roce": 4096},
        "qos": {
            "traffic_classes": [
                {"name": "roce", "dscp": [26], "priority": 3, "lossless": True,
                 "scheduling": {"mode": "dwrr", "weight": 60}, "ecn": {"min": "150KB", "max": "1500KB"}},
                {"name": "cnp", "dscp": [48], "priority": 6, "scheduling": {"mode": "strict"}},
                {"name": "default", "default": True, "priority": 0, "scheduling": {"mode": "dwrr", "weight": 40}},
            ],
            "pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100},
        },
        # 4 connections per leaf on 4 uplinks (spread ring): 8 QPs keep P(collision) at 0.008 (LB001 quiet)
        "load_balancing": {"qps_per_connection": 8},
    }


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _parts(path: str) -> list[str | int]:
    return [int(i) if i else k for k, i in _PART.findall(path)]


def put(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Set ``path`` ('qos.traffic_classes[0].ecn.max') to ``value``, creating mappings on the way."""
    *head, last = _parts(path)
    cur: Any = data
    for part in head:
        cur = cur[part] if isinstance(part, int) else cur.setdefault(part, {})
    if isinstance(last, int) and last == len(cur):
        cur.append(value)  # one past the end of a list: append
    else:
        cur[last] = value
    return data


def drop(data: dict[str, Any], path: str) -> dict[str, Any]:
    *head, last = _parts(path)
    cur: Any = data
    for part in head:
        cur = cur[part]
    del cur[last]
    return data


def broken(*edits: tuple[str, Any]) -> dict[str, Any]:
    """base() with edits applied; a value of DROP deletes the key."""
    data = copy.deepcopy(base())
    for path, value in edits:
        if value is DROP:
            drop(data, path)
        else:
            put(data, path, value)
    return data


DROP = object()


def intent(data: dict[str, Any]) -> FabricIntent:
    return FabricIntent.model_validate(data)


def run(data: dict[str, Any], fabric: Fabric | None = None) -> LintReport:
    return lint(intent(data), fabric)


def base_fabric() -> Fabric:
    return expand(intent(base()))
