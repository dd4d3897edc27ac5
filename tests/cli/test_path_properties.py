"""Issue 24: a property test over every command that takes a file or path argument.

Across at least 1,000 generated command lines whose path arguments are hostile (missing, empty, folders, FIFOs,
symlinks to FIFOs and device nodes, dangling links, sockets, device nodes made here with mknod when root, a 2 MB
line, a 17 MiB sparse file, binary junk, a file used as a folder) or valid, every call ends with an exit code of
0-3 and no traceback, within a bound (SIGALRM: a blocking open or read would trip it), and no FIFO, device, link,
socket or folder is ever replaced. Commands run in-process (typer's CliRunner); nothing leaves this machine
(every TCP connect is refused, the device-reading steps are replaced by empty results) and every file is made in
the test's own temporary folder.
"""

from __future__ import annotations

import itertools
import os
import signal
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import EXAMPLES, SHARED
from hostile_paths import FULL, ZERO, is_root, kind
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import roceops.cli.audit_cmds as audit_cmds
import roceops.cli.health_cmds as health_cmds
import roceops.cli.lab_cmds as lab_cmds
from roceops.audit.engine import AuditResult
from roceops.cli.main import app
from roceops.health.engine import HealthReport
from roceops.util.bounded_read import MAX_INPUT_BYTES

CALL_BOUND_S = 8  # one call; a hang (a FIFO opened for reading, say) trips SIGALRM long before the suite's timeout
EXAMPLES_RUN = int(os.environ.get("ROCEOPS_PATH_EXAMPLES", "1000"))


class Hang(BaseException):  # not an Exception: no `except Exception` in the product may swallow it
    """A call outlived CALL_BOUND_S."""


def _make_inputs(root: Path) -> dict[str, str]:
    root.mkdir()
    valid = root / "fabric.yaml"
    valid.write_text(EXAMPLES["lab-mini"].read_text())
    fifo = root / "fifo.yaml"
    os.mkfifo(fifo)
    folder = root / "folder.yaml"
    folder.mkdir()
    (root / "to-fifo.yaml").symlink_to(fifo)
    (root / "dangling.yaml").symlink_to(root / "nowhere.yaml")
    huge = root / "huge.yaml"
    with huge.open("wb") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)  # sparse
    (root / "long-line.yaml").write_text("# " + "x" * 2_000_000 + "\n" + valid.read_text())
    (root / "junk.yaml").write_bytes(bytes(range(256)) * 64)
    (root / "empty.yaml").write_bytes(b"")
    (root / "bomb.yaml").write_text("a: &a [1, 2]\n" + "".join(f"a{i}: &a{i} [*{'a' if i == 0 else f'a{i - 1}'}, "
                                                                  f"*{'a' if i == 0 else f'a{i - 1}'}]\n"
                                                                  for i in range(40)))
    kinds = {name: str(root / f"{name}.yaml") for name in
             ("fifo", "folder", "to-fifo", "dangling", "huge", "long-line", "junk", "empty", "bomb")}
    kinds.update({"missing": str(root / "missing.yaml"), "blank": "", "under-a-file": str(valid / "x.yaml"),
                  "valid": str(valid)})
    if is_root():
        os.mknod(root / "zero", 0o600 | stat.S_IFCHR, ZERO)  # S_IFCHR
        (root / "to-zero.yaml").symlink_to(root / "zero")
        kinds.update({"chardev": str(root / "zero"), "to-chardev": str(root / "to-zero.yaml")})
    return kinds


def _make_outputs(root: Path) -> dict[str, str]:
    root.mkdir()
    regular = root / "regular.txt"
    regular.write_text("replace me\n")
    os.mkfifo(root / "fifo")
    (root / "folder").mkdir()
    (root / "keep.txt").write_text("not ours\n")
    (root / "link").symlink_to(root / "keep.txt")
    (root / "dangling").symlink_to(root / "nowhere")
    kinds = {name: str(root / name) for name in ("regular.txt", "fifo", "folder", "link", "dangling")}
    kinds.update({"blank": "", "under-a-file": str(regular / "x"), "new": str(root / "new" / "{n}")})
    if is_root():
        os.mknod(root / "full", 0o600 | stat.S_IFCHR, FULL)
        kinds["chardev"] = str(root / "full")
    return kinds


def _sku_dirs(root: Path, inputs: dict[str, str]) -> dict[str, str]:
    root.mkdir()
    (root / "port_config.ini").mkdir()  # a SKU folder whose files are not files
    os.mkfifo(root / "hwsku.json")
    out = {"fifo": inputs["fifo"], "missing": inputs["missing"], "file": inputs["valid"], "odd-sku": str(root),
           "blank": ""}
    skus = sorted((SHARED / "reference" / "hardware" / "sonic" / "skus").glob("*/port_config.ini"))
    if skus:
        out["real-sku"] = str(skus[0].parent)
    return out


# argv templates: {IN} a fabric, {HOSTILE} a fabric that is never the valid one (the command would connect or run
# the whole demo), {OUT} an output file, {DIR} an output folder, {J} a journal, {PB} a playbook, {SKU} a SKU folder
COMMANDS = [
    ["validate", "-f", "{IN}"], ["topology", "-f", "{IN}"], ["cabling", "-f", "{IN}", "--format", "csv"],
    ["plan", "entropy", "-f", "{IN}"], ["intent", "leaf-su1-r1", "-f", "{IN}"],
    ["render", "-f", "{IN}", "--out", "{DIR}", "--limit", "leaf-su1-r1,spine01"],
    ["inventory", "export", "-f", "{IN}", "--out", "{DIR}"],
    ["audit", "-f", "{IN}", "--format", "prometheus", "--output", "{OUT}", "--journal", "{J}"],
    ["audit", "-f", "{IN}", "--output", "{OUT}", "--journal", "{J}"],
    ["health", "gpu001", "-f", "{IN}", "--drain-file", "{OUT}"],
    ["history", "--journal", "{J}"], ["rollback", "last", "-f", "{IN}", "--journal", "{J}"],
    ["play", "{PB}", "-f", "{IN}"], ["hardware", "import", "{SKU}", "--out", "{OUT}"],
    ["hardware", "import", "{SKU}", "--out-dir", "{DIR}"], ["deploy", "-f", "{HOSTILE}", "--journal", "{J}"],
    ["verify", "routing", "-f", "{HOSTILE}"], ["lab", "up", "-f", "{IN}"],
    ["demo", "-f", "{HOSTILE}", "--out", "{DIR}"],
    ["topology", "-f", "{IN}", "--format", "slurm", "-o", "{OUT}"], ["merge", "{HOSTILE}", "--output", "{OUT}"],
    ["merge", "{IN}", "{HOSTILE}", "--format", "html", "-f", "{IN}"],
    ["audit", "-f", "{IN}", "--topology-conf", "{HOSTILE}", "--journal", "{J}"],
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimpleNamespace]:
    root = tmp_path_factory.mktemp("paths")
    inputs = _make_inputs(root / "in")
    outputs = _make_outputs(root / "out")
    skus = _sku_dirs(root / "sku", inputs)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    inputs["socket"] = outputs["socket"] = str(root / "sock")
    journals = {k: v for k, v in inputs.items()
                if k not in ("valid", "junk", "empty", "bomb", "long-line", "missing")}  # "new" creates one
    journals["new"] = str(root / "journals" / "{n}.sqlite")
    before = {p: kind(Path(p)) for p in [*inputs.values(), *outputs.values()] if p and "{n}" not in p}
    yield SimpleNamespace(root=root, inputs=inputs, outputs=outputs, skus=skus, journals=journals, before=before)
    server.close()


@pytest.fixture
def offline(world: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect

    def refuse(sock: socket.socket, address: Any) -> None:
        if sock.family == socket.AF_UNIX:
            return real_connect(sock, address)
        raise OSError("test: no network connection allowed")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(audit_cmds, "run_audit", lambda fabric, names, opts: AuditResult(
        fabric=fabric.intent.name, devices=list(names), audits=[], findings=[], seconds=0.0))
    monkeypatch.setattr(health_cmds, "run_health", lambda fabric, names, opts: HealthReport(
        nodes=list(names), results=[], verdicts=[], seconds=0.0, devices=0))
    monkeypatch.setattr(lab_cmds, "start_lab", lambda specs, state, **kw: SimpleNamespace(
        devices=len(list(specs)), seconds=0.0, pid=os.getpid(), overlay="x"))
    work = world.root / "cwd"
    work.mkdir(exist_ok=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(world.root / "lab"))


def _on_alarm(signum: int, frame: Any) -> None:
    raise Hang(f"a call took more than {CALL_BOUND_S} s")


def _bounded_invoke(runner: CliRunner, argv: list[str]) -> Any:
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_BOUND_S)
    try:
        return runner.invoke(app, argv)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM to bound each call")
def test_no_traceback_no_hang_and_nothing_replaced(world: SimpleNamespace, offline: None) -> None:
    runner = CliRunner()
    counter = itertools.count()
    calls: list[tuple[float, list[str]]] = []
    hostile = sorted(k for k in world.inputs if k != "valid")
    playbooks = hostile  # never a valid playbook: its steps would connect

    @settings(max_examples=EXAMPLES_RUN, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(template=st.sampled_from(COMMANDS), fabric=st.sampled_from(sorted(world.inputs)),
           bad=st.sampled_from(hostile), out=st.sampled_from(sorted(world.outputs)),
           journal=st.sampled_from(sorted(world.journals)), playbook=st.sampled_from(playbooks),
           sku=st.sampled_from(sorted(world.skus)), salt=st.integers(0, 10**9))
    def one(template: list[str], fabric: str, bad: str, out: str, journal: str, playbook: str, sku: str,
            salt: int) -> None:
        n = f"{next(counter)}-{salt}"
        slots = {"{IN}": world.inputs[fabric], "{HOSTILE}": world.inputs[bad],
                 "{OUT}": world.outputs[out].replace("{n}", n), "{DIR}": world.outputs[out].replace("{n}", n),
                 "{J}": world.journals[journal].replace("{n}", n), "{PB}": world.inputs[playbook],
                 "{SKU}": world.skus[sku]}
        argv = [slots.get(a, a) for a in template]
        started = time.monotonic()
        result = _bounded_invoke(runner, argv)
        calls.append((time.monotonic() - started, argv))
        assert result.exception is None or isinstance(result.exception, SystemExit), (argv, repr(result.exception))
        assert result.exit_code in (0, 1, 2, 3), (argv, result.exit_code, result.output[-2000:])
        assert "Traceback" not in result.output, (argv, result.output[-2000:])

    one()
    for seconds, argv in sorted(calls, reverse=True)[:int(os.environ.get("ROCEOPS_PATH_SLOWEST", "0"))]:
        print(f"{seconds:.2f}s {argv}")
    assert len(calls) >= EXAMPLES_RUN, len(calls)
    assert {a[0] for _, a in calls} >= {c[0] for c in COMMANDS}  # every command was exercised
    slowest = max(calls)
    assert slowest[0] < CALL_BOUND_S, slowest
    after = {p: kind(Path(p)) for p in world.before}
    changed = {p: (world.before[p], after[p]) for p in world.before
               if world.before[p] != after[p] and not p.endswith("regular.txt")}
    assert changed == {}, changed  # no FIFO, device, link, socket or folder was replaced
    assert Path(world.outputs["link"]).is_symlink() and (world.root / "out" / "keep.txt").read_text() == "not ours\n"
