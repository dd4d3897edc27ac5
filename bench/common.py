"""Shared bench helpers: a SuperPOD-style fabric of N SUs, timing and peak memory."""

from __future__ import annotations

import resource
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from roceops.model.intent import FabricIntent


def superpod(sus: int, leaf: str = "sonic", spine: str = "eos", core: str = "eos") -> FabricIntent:
    """NVIDIA B200-style: 32 nodes x 8 rails per SU, 64-port 400G switches, core tier when needed."""
    return FabricIntent.model_validate({
        "name": f"bench-{sus}su",
        "scalable_units": {"count": sus, "nodes_per_su": 32},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": leaf}, "spine": {"model": "sw64", "platform": spine},
                  "core": {"model": "sw64", "platform": core}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"},
        "qos": {"pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100}},
    })


def measure(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, seconds, peak MiB of Python allocations during fn)."""
    tracemalloc.start()
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
