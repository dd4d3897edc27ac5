"""``lab up --routing``: start / stop the routing-plane keeper (``roceops.verify.keeper``) beside the lab."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from roceops.cli.common import Exit, fail

if TYPE_CHECKING:  # imported where used (CLI start-up time: tests/cli/test_startup_imports.py)
    from roceops.lab.spec import LabDeviceSpec

KEEPER_FILE = "routing.json"
START_TIMEOUT_S = 180.0


def attach_vty(specs: Iterable[LabDeviceSpec], vty: Mapping[str, str]) -> None:
    """Hand each switch's bgpd vty socket to the simulated devices whose BGP shows read it (lab_reads_frr)."""
    from roceops.platforms.base import get_platform

    for spec in specs:
        if spec.name in vty and get_platform(spec.platform).lab_reads_frr:
            spec.extra["bgp_vty"] = vty[spec.name]


def _file(state: Path) -> Path:
    return state.parent / f"{state.name}-{KEEPER_FILE}"  # beside the lab dir: the lab may reset its own


def start(fabric: Path, state: Path) -> dict[str, str]:
    """Start the keeper and wait until its plane converged; {device: bgpd vty socket}."""
    from roceops.verify.engine import VerifyUnavailable, preflight

    try:
        preflight()
    except VerifyUnavailable as exc:
        fail(f"--routing: {exc}", Exit.BAD_INPUT)
    out = _file(state)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    keeper = subprocess.Popen([sys.executable, "-m", "roceops.verify.keeper", str(fabric.resolve()), str(out)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if out.exists():
            doc = json.loads(out.read_text())
            if "error" in doc:
                out.unlink(missing_ok=True)
                fail(f"--routing: the routing plane did not start: {doc['error']}", Exit.UNREACHABLE)
            return {str(k): str(v) for k, v in doc["bgpd_vty"].items()}
        if keeper.poll() is not None:
            fail(f"--routing: the routing plane exited ({keeper.returncode}) before it converged", Exit.UNREACHABLE)
        time.sleep(0.2)
    keeper.terminate()
    fail(f"--routing: the routing plane did not converge within {START_TIMEOUT_S:.0f}s", Exit.UNREACHABLE)


def stop(state: Path, timeout_s: float = 20.0) -> str | None:
    """SIGTERM the keeper (it removes its namespaces and daemons) and wait; its run id, or None."""
    from roceops.util.processes import alive

    out = _file(state)
    try:
        doc = json.loads(out.read_text())
        pid, run_id = int(doc["pid"]), str(doc["run_id"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and alive(pid, reap=True):
        time.sleep(0.1)
    out.unlink(missing_ok=True)
    return run_id
