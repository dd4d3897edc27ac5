"""Shared bench helpers: a SuperPOD-style fabric of N SUs, timing and peak memory."""

from __future__ import annotations

import argparse
import os
import resource
import socket
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from roceops.lab.spec import DEFAULT_PORT
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


def lab_fabric(sus: int, nodes_per_su: int = 32, rails: int = 8) -> FabricIntent:
    """A mixed-platform fabric for lab benches: SONiC leaves, Cumulus leaves in even SUs, EOS spines/cores."""
    return FabricIntent.model_validate({
        "name": f"lab-bench-{sus}su",
        "node": {"rails": rails},
        "scalable_units": {"count": sus, "nodes_per_su": nodes_per_su},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"},
        "qos": {"pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100}},
        "overrides": {"groups": {f"su{n}": {"platform": "cumulus"} for n in range(2, sus + 1, 2)}},
    })


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (Linux)."""
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds used so far by ``pid`` (default: this process, all its threads)."""
    fields = _stat(pid or "self")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    """User + system CPU seconds of this process's children that have exited and been waited for."""
    fields = _stat("self")
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def rss_of(pid: int) -> float:
    """Resident memory of a process in MiB (Linux /proc)."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def lab_options(ap: argparse.ArgumentParser, base: str) -> None:
    """``--port`` and ``--base`` for a bench that starts a lab, so two runs on one machine do not collide."""
    ap.add_argument("--port", type=int, default=DEFAULT_PORT, help="SSH port of every lab device")
    ap.add_argument("--base", default=base, help="first loopback address of the lab's devices (127.x.y.z)")


def check_lab_address(base: str, port: int) -> None:
    """Exit with a message when ``base:port`` is taken (another lab, another bench run)."""
    with socket.socket() as probe:
        try:
            probe.bind((base, port))
        except OSError as exc:
            raise SystemExit(f"{base}:{port} is busy ({exc.strerror}); pass another --port or --base") from None


def lab_outputs(fabric: Any, platforms: Any = None) -> dict[str, tuple[str, dict[str, str]]]:
    """device -> (platform, its ``collect`` outputs) for every device of ``fabric``'s configured lab (only
    ``platforms``' if given), each read in-process from its lab personality (no SSH)."""
    from roceops.lab.fabric_specs import lab_specs
    from roceops.lab.inprocess import InProcessConnection
    from roceops.lab.personality import SessionInfo, get_personality
    from roceops.plan import plan
    from roceops.platforms.base import get_driver

    out: dict[str, tuple[str, dict[str, str]]] = {}
    for spec in lab_specs(fabric, configured=True):
        if platforms is not None and spec.platform not in platforms:
            continue
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
        out[spec.name] = (spec.platform, get_driver(spec.platform).collect(conn, plan(fabric, spec.name)))
    return out
