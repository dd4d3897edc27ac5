"""Network namespaces of one verify run: names, the state file, batched ``ip`` calls, setns, cleanup.

Every name carries the run id (``rv`` + 5 hex digits): namespaces are ``rvXXXXX-s<n>`` (switches) and
``rvXXXXX-h<n>`` (hosts), so two runs, a test and a user never collide, and ``--cleanup`` can find what a
killed run left (its state file under ``.roceops/verify/``, or the prefix alone). Interfaces are created
directly inside their namespaces (``ip link add ... netns``), so their names only need to be unique there
and are the planned port names when Linux accepts them (:func:`ifname`).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeVar

from roceops.util.processes import alive

RUN_PREFIX = "rv"
NETNS_DIR = Path("/run/netns")
IFNAMSIZ = 15  # Linux interface names: at most 15 bytes (IFNAMSIZ 16 with the NUL)
CLONE_NEWNET = 0x40000000
_RUN_NS = re.compile(rf"^{RUN_PREFIX}[0-9a-f]{{5}}-[sh]\d+$")
_IFNAME_OK = re.compile(r"[A-Za-z0-9_.-]{1,15}")
T = TypeVar("T")


class NetnsError(RuntimeError):
    """An ``ip`` call failed (the command and ip's message)."""


def new_run_id() -> str:
    """``rv`` + 5 random hex digits, e.g. ``rv3fa2c``."""
    return RUN_PREFIX + secrets.token_hex(3)[:5]


def ifname(port: str, index: int) -> str:
    """A Linux interface name for a planned port: the port name when valid, else ``p<index>``.

    >>> ifname("Ethernet248", 0), ifname("Ethernet1/1", 7), ifname("swp1s0", 2)
    ('Ethernet248', 'p7', 'swp1s0')
    """
    return port if _IFNAME_OK.fullmatch(port) else f"p{index}"


@dataclass
class RunState:
    """What a run created, on disk before it is created (so a killed run can be cleaned up)."""

    run_id: str
    pid: int
    run_dir: str
    pid_start: str = ""  # the owner's start time (/proc/<pid>/stat field 22): tells a reused pid apart
    namespaces: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    def save(self, state_dir: Path) -> Path:
        state_dir.mkdir(parents=True, exist_ok=True)
        path = state_dir / f"{self.run_id}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        tmp.replace(path)
        return path


def ip_batch(commands: Iterable[str], netns: str | None = None, *, force: bool = False, json_out: bool = False) -> str:
    """Run ``ip [-n NS] -batch -`` with one command per line; NetnsError names the first failure."""
    text = "\n".join(commands) + "\n"
    argv = ["ip", *(["-n", netns] if netns else []), *(["-j"] if json_out else []), *(["-force"] if force else []),
            "-batch", "-"]
    proc = subprocess.run(argv, input=text, capture_output=True, text=True, check=False)
    if proc.returncode != 0 and not force:
        raise NetnsError(f"{' '.join(argv)}: {proc.stderr.strip()[:500]}")
    return proc.stdout


def ip_json_lines(commands: Iterable[str], netns: str) -> list[object]:
    """``ip -j -force -batch``: one JSON document per successful command (failures are skipped)."""
    commands = list(commands)
    out = ip_batch(commands, netns, force=True, json_out=True) if commands else ""
    docs: list[object] = []
    for line in out.splitlines():
        line = line.strip()
        if line:
            with contextlib.suppress(json.JSONDecodeError):
                docs.append(json.loads(line))
    return docs


_SYSCTL_KEY = re.compile(r"[a-z0-9_]+(\.[A-Za-z0-9_-]+)+")


def sysctl_path(key: str) -> Path:
    """``/proc/sys/...`` of a dotted sysctl name (read in the calling thread's namespace).

    >>> str(sysctl_path("net.ipv4.conf.eth0.rp_filter"))
    '/proc/sys/net/ipv4/conf/eth0/rp_filter'
    """
    if not _SYSCTL_KEY.fullmatch(key):
        raise NetnsError(f"{key!r} is not a sysctl name")
    return Path("/proc/sys", *key.split("."))


# --------------------------------------------------------------------------- setns for sockets

_libc = ctypes.CDLL(None, use_errno=True)


def _enter(netns: str) -> None:
    fd = os.open(NETNS_DIR / netns, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns {netns}: {os.strerror(err)}")
    finally:
        os.close(fd)


def run_in_netns(netns: str, work: Callable[[], T]) -> T:
    """``work()`` in a throwaway thread that entered ``netns`` (setns moves only the calling thread, and a
    socket keeps the namespace it was created in)."""
    box: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            _enter(netns)
            box.append(work())
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    t = threading.Thread(target=target, name=f"netns-{netns}")
    t.start()
    t.join()
    if errors:
        raise errors[0]
    return box[0]


# --------------------------------------------------------------------------- teardown


def namespaces_with_prefix(prefix: str = RUN_PREFIX) -> list[str]:
    if not NETNS_DIR.is_dir():
        return []
    return sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(prefix) and _RUN_NS.match(p.name))


def pids_in(netns: str) -> list[int]:
    proc = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True, check=False)
    return [int(x) for x in proc.stdout.split() if x.isdigit()]


def kill_all(pids: Iterable[int], grace_s: float = 2.0) -> None:
    """SIGTERM, then SIGKILL after ``grace_s`` for whatever still runs."""
    running = set()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
            running.add(pid)
    deadline = time.monotonic() + grace_s
    while running and time.monotonic() < deadline:
        running = {p for p in running if alive(p, reap=True)}
        time.sleep(0.05)
    for pid in running:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def remove_namespaces(names: Iterable[str]) -> None:
    """Kill every process inside, then delete the namespaces (their veths go with them)."""
    names = [n for n in names if (NETNS_DIR / n).exists()]
    if not names:
        return
    kill_all([pid for n in names for pid in pids_in(n)])
    ip_batch((f"netns del {n}" for n in names), force=True)


def teardown(state: RunState, state_dir: Path) -> None:
    """Remove everything one run made: processes, namespaces, its run directory and state file."""
    remove_namespaces(sorted(set(state.namespaces) | set(namespaces_with_prefix(state.run_id + "-"))))
    shutil.rmtree(state.run_dir, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        (state_dir / f"{state.run_id}.json").unlink()


def leftover_states(state_dir: Path) -> Iterator[RunState]:
    for path in sorted(state_dir.glob(f"{RUN_PREFIX}*.json")):
        try:
            yield RunState(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue


def cleanup_leftovers(state_dir: Path) -> list[str]:
    """``--cleanup``: tear down runs whose process is gone, and any namespace with our prefix and no live
    run. Returns the run ids / namespaces removed."""
    removed: list[str] = []
    live: set[str] = set()
    for st in leftover_states(state_dir):
        if st.pid != os.getpid() and owner_alive(st.pid, st.pid_start):
            live.add(st.run_id)
            continue
        teardown(st, state_dir)
        removed.append(st.run_id)
    orphans = [n for n in namespaces_with_prefix() if n.split("-")[0] not in live | _owned_elsewhere()]
    remove_namespaces(orphans)
    for run_dir in Path("/tmp").glob(f"roceops-{RUN_PREFIX}*"):
        if run_dir.name.removeprefix("roceops-") not in live | _owned_elsewhere():
            shutil.rmtree(run_dir, ignore_errors=True)
    return removed + orphans


OWNER_FILE = "owner.pid"


def start_time(pid: int) -> str:
    """Field 22 of /proc/<pid>/stat (clock ticks since boot), "" if unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) ": field 3 onwards
    return fields[19] if len(fields) > 19 else ""


def owner_alive(pid: int, started: str) -> bool:
    """The run's owner still runs: same pid, same start time (not a reused pid)."""
    return alive(pid, reap=True) and bool(started) and start_time(pid) == started


def owner_line(pid: int) -> str:
    return f"{pid} {start_time(pid)}\n"


def _owned_elsewhere() -> set[str]:
    """Run ids whose run directory names a live owner (a run started from another directory, whose state
    file we cannot see)."""
    out = set()
    for owner in Path("/tmp").glob(f"roceops-{RUN_PREFIX}*/{OWNER_FILE}"):
        try:
            pid_text, _, started = owner.read_text().strip().partition(" ")
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if pid != os.getpid() and owner_alive(pid, started):
            out.add(owner.parent.name.removeprefix("roceops-"))
    return out
