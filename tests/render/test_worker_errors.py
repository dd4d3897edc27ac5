"""An error in a forked render worker reaches the user as the same clear message and exit code as in-process.

A worker's exception travels back pickled; one with its own ``__init__`` (``NoVendorHeadroom(message, *, hwsku=...)``)
used to fail to unpickle, so ``render --skip-lint`` of a fabric of 256+ devices (the forked path) ended in a
BrokenProcessPool traceback. Every product exception with its own ``__init__`` is now a PicklableError, and a
worker exception that still does not pickle travels back as a WorkerFailed naming it.
"""

from __future__ import annotations

import ast
import builtins
import pickle
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import yaml

from roceops.deploy.device import VerifyFailed
from roceops.device.compare import Drift
from roceops.model.loader import IntentError, Problem
from roceops.parallel import WorkerFailed, fork_map
from roceops.plan.hardware import NoVendorHeadroom
from roceops.platforms.linux_mlx5.render import ScriptError
from roceops.render.build import PARALLEL_THRESHOLD
from roceops.telemetry.gnmi_worker import StreamEnded
from roceops.topology.addressing import PoolExhausted
from roceops.topology.sizing import TopologyError
from roceops.util.picklable import PicklableError
from roceops.util.safe_write import WriteRefused

REPO = Path(__file__).resolve().parents[2]
RUN_CLI = "import sys; from roceops.cli.main import app; sys.argv[0] = 'roceops'; app()"

ERRORS = [
    WriteRefused("/tmp/x/config_db.json", "it is a FIFO (named pipe), not a regular file"),
    NoVendorHeadroom("no row", hwsku="Mellanox-SN5600-O128", speed=400_000, cable_m=100, supported=("5m", "40m")),
    PoolExhausted("p2p", "10.64.0.0/30", 8),
    TopologyError("too many leaves", "scalable_units.count"),
    ScriptError([(3, "a | b", "a pipe")]),
    IntentError([Problem(file="f.yaml", line=2, column=3, path="mtu", message="not an integer")]),
    VerifyFailed([Drift(path="qos.pfc", expected="3,4", observed="3", kind="mismatch")]),
    StreamEnded(grpc.StatusCode.UNAVAILABLE, "connection refused"),
]


@pytest.mark.parametrize("exc", ERRORS, ids=lambda e: type(e).__name__)
def test_exceptions_with_their_own_init_survive_pickling(exc: Exception) -> None:
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc) and back.args == exc.args
    assert vars(back) == vars(exc)  # the attributes the constructor set (hwsku, path, problems, ...)


def _exception_classes_with_init(root: Path) -> dict[str, tuple[str, list[str]]]:
    """class name -> (file, base names) of every class under ``root`` that derives (by name) from an exception
    and defines ``__init__``; the lab is left out (its simulated devices' exceptions never leave their process)."""
    known = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
             and issubclass(getattr(builtins, n), BaseException)} | {"PicklableError"}
    classes: list[tuple[str, str, list[str], bool]] = []
    for path in sorted(root.rglob("*.py")):
        if "lab" in path.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]
                has_init = any(isinstance(f, ast.FunctionDef) and f.name == "__init__" for f in node.body)
                classes.append((node.name, str(path.relative_to(root)), bases, has_init))
    changed = True
    while changed:  # exception classes by name: a class with an exception class among its bases is one
        changed = False
        for name, _, bases, _ in classes:
            if name not in known and known.intersection(bases):
                known.add(name)
                changed = True
    return {name: (file, bases) for name, file, bases, has_init in classes if has_init and name in known}


def test_every_product_exception_with_its_own_init_is_picklable() -> None:
    found = _exception_classes_with_init(REPO / "roceops")
    assert {"WriteRefused", "NoVendorHeadroom", "TopologyError"} <= set(found)  # the scan sees them
    picklable = {"PicklableError"}
    changed = True
    while changed:
        changed = False
        for name, (_, bases) in found.items():
            if name not in picklable and picklable.intersection(bases):
                picklable.add(name)
                changed = True
    assert {n: f for n, (f, _) in found.items() if n not in picklable} == {}
    assert all(isinstance(e, PicklableError) for e in ERRORS)


class _Unpicklable(Exception):
    def __init__(self, what: str, *, why: str) -> None:
        super().__init__(f"{what}: {why}")


def _fails_on_seven(n: int) -> int:
    if n == 7:
        raise _Unpicklable("item 7", why="no row")
    return n


def test_a_worker_exception_that_does_not_pickle_comes_back_named() -> None:
    with pytest.raises(WorkerFailed, match=r"^_Unpicklable: item 7: no row$"):
        fork_map(_fails_on_seven, list(range(40)), min_items=2, workers=2)


def test_a_picklable_worker_exception_comes_back_as_itself() -> None:
    def fails(n: int) -> int:
        if n == 7:
            raise NoVendorHeadroom("no row", hwsku="sku", speed=1, cable_m=2, supported=())
        return n

    with pytest.raises(NoVendorHeadroom) as caught:
        fork_map(fails, list(range(40)), min_items=2, workers=2)
    assert (caught.value.hwsku, caught.value.cable_m) == ("sku", 2)


def _fabric_without_headroom_row(tmp_path: Path, sus: int) -> Path:
    """A fabric whose leaf-spine cables have no row in the SKU's pg_profile_lookup.ini (lint HDRM003)."""
    fabric = {
        "name": "no-row", "scalable_units": {"count": sus, "nodes_per_su": 32},
        "addressing": {"hosts": "10.128.0.0/9", "loopbacks": "10.0.0.0/16", "management": "172.16.0.0/12",
                       "p2p": "10.64.0.0/12"},
        "switch_models": {"sw64": {"hwsku": "Mellanox-SN5600-O128", "port_speed": "400G", "radix": 64}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "cable_lengths": {"leaf_spine": 100},
    }
    path = tmp_path / f"fabric-{sus}.yaml"
    path.write_text(yaml.safe_dump(fabric))
    return path


def _render(fabric: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUN_CLI, "render", "-f", str(fabric), "--out", str(out),
                           "--skip-lint"], cwd=out.parent, capture_output=True, text=True, timeout=120)


def test_render_skip_lint_in_forked_workers_fails_as_clearly_as_in_process(tmp_path: Path) -> None:
    """8 SUs (416 devices) render in forked workers, 1 SU (52) in-process: same message, exit 3, nothing written."""
    big, small = _fabric_without_headroom_row(tmp_path, 8), _fabric_without_headroom_row(tmp_path, 1)
    forked, serial = _render(big, tmp_path / "big"), _render(small, tmp_path / "small")
    assert PARALLEL_THRESHOLD <= 416 and PARALLEL_THRESHOLD > 52
    for done in (forked, serial):
        assert done.returncode == 3, done.stderr[-3000:]
        assert "Traceback" not in done.stderr and "BrokenProcessPool" not in done.stderr
    message = " ".join(forked.stderr.split())
    assert message == " ".join(serial.stderr.split())
    assert "cannot render: Mellanox-SN5600-O128's pg_profile_lookup.ini has no row for 400000 Mb/s at 100 m" in message
    assert not (tmp_path / "big").exists() and not (tmp_path / "small").exists()
