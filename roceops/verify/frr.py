"""Private FRR instances: zebra + bgpd per switch, each in its namespace, under a run directory of ours.

Never the system FRR: every path is explicit (``-f`` config, ``-i`` pid file, ``-z`` zserv socket,
``--vty_socket`` dir, ``--log file:``) and ``-P 0`` turns the TCP vty off, so nothing listens outside the
namespace except bgpd's port 179 inside it. Daemons run in the foreground as our children (``ip netns exec``
execs them, so the pid is the daemon's) and drop privileges to the ``frr`` user as packaged. Reads go
straight to the daemons' vty sockets (vtysh's protocol: command + NUL; reply ends in NUL NUL NUL status).
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

FRR_DIR = Path(os.environ.get("ROCEOPS_FRR_DIR", "/usr/lib/frr"))
DAEMONS = ("zebra", "bgpd")
FRR_USER = "frr"
VTY_TIMEOUT_S = 10.0
INSTALL_HINT = "install FRR: apt-get install frr"


class FrrError(RuntimeError):
    pass


def frr_missing() -> str | None:
    """Why FRR cannot run here (with the install command), or None."""
    missing = [d for d in DAEMONS if not (FRR_DIR / d).is_file()]
    if missing:
        return f"FRR daemons not found ({', '.join(str(FRR_DIR / d) for d in missing)}); {INSTALL_HINT}"
    try:
        pwd.getpwnam(FRR_USER)
        grp.getgrnam(FRR_USER)
    except KeyError:
        return f"no '{FRR_USER}' user/group (FRR's package creates them); {INSTALL_HINT}"
    return None


@dataclass
class Instance:
    device: str
    netns: str
    directory: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def vty(self, daemon: str) -> Path:
        return self.directory / f"{daemon}.vty"

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs.values()]


CONNECT_RETRY_S = 2
# FRR sizes its event loop's per-descriptor tables by the fd limit (the system ulimit by default);
# ``--limit-fds`` caps it ("Limit the number of file descriptors that will be used internally by the FRR
# daemons", https://docs.frrouting.org/en/latest/basic.html#cmdoption-limit-fds; FRRouting/frr
# doc/user/basic.rst). 1,024 covers a 128-port switch's sessions, zserv and vty with room to spare; it
# saves ~2.5 MiB RSS per daemon here (FRR 8.4.4, ulimit -n 20000).
LIMIT_FDS = 1024


def harness_overlay(bgpd_conf: str, absent: Collection[str] = ()) -> str:
    r"""Harness-only changes, not part of any device's translation: a short connect retry per neighbour, so a
    session whose first attempt met a peer bgpd not yet started retries in seconds rather than after
    FRR's default 120 s (start order is an artefact of this harness, not of the fabric); and no lines for
    the neighbours in ``absent`` (``--by-class``: peers not built, nothing would answer there). A configured
    peer costs bgpd ~0.7 MiB even when shut down: FRR 8.4's peer_new() allocates its read buffer,
    ``ringbuf_new(BGP_MAX_PACKET_SIZE * BGP_READ_PACKET_MAX)`` = 64 KiB x 10 (FRRouting/frr bgpd/bgpd.c).

    >>> harness_overlay(" neighbor 10.0.0.1 remote-as 65001\n neighbor 10.0.0.3 remote-as 65003\n"
    ...                 "  neighbor 10.0.0.3 activate\n", {"10.0.0.3"}).splitlines()
    [' neighbor 10.0.0.1 remote-as 65001', ' neighbor 10.0.0.1 timers connect 2']
    """
    out = []
    for line in bgpd_conf.splitlines():
        words = line.split()
        if len(words) > 2 and words[0] == "neighbor" and words[1] in absent:
            continue
        out.append(line)
        if line.startswith(" neighbor ") and len(words) == 4 and words[2] == "remote-as":
            out.append(f" neighbor {words[1]} timers connect {CONNECT_RETRY_S}")
    return "\n".join(out) + "\n"


def prepare(run_dir: Path, index: int, device: str, netns: str, bgpd_conf: str,
            absent: Collection[str] = ()) -> Instance:
    """Write the config files of one switch (``<run_dir>/<index>/``, short: unix socket paths max 107)."""
    d = run_dir / str(index)
    d.mkdir(parents=True, exist_ok=True)
    (d / "zebra.conf").write_text(f"hostname {device}\n")
    (d / "bgpd.conf").write_text(harness_overlay(bgpd_conf, absent))
    user = pwd.getpwnam(FRR_USER)
    for path in (d, d / "zebra.conf", d / "bgpd.conf"):
        os.chown(path, user.pw_uid, user.pw_gid)
    return Instance(device=device, netns=netns, directory=d)


def _argv(inst: Instance, daemon: str) -> list[str]:
    d = inst.directory
    return ["ip", "netns", "exec", inst.netns, str(FRR_DIR / daemon),
            "-f", str(d / f"{daemon}.conf"), "-i", str(d / f"{daemon}.pid"), "-z", str(d / "zserv.api"),
            "--vty_socket", str(d), "-P", "0", "--log", f"file:{d / f'{daemon}.log'}", "--limit-fds", str(LIMIT_FDS)]


def start(inst: Instance, daemon: str) -> None:
    inst.procs[daemon] = subprocess.Popen(_argv(inst, daemon), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True)


def wait_ready(instances: list[Instance], daemon: str, timeout_s: float) -> list[str]:
    """Wait until each instance's ``daemon`` answers on its vty socket; returns the devices that did not."""
    deadline = time.monotonic() + timeout_s
    pending = list(instances)
    while pending and time.monotonic() < deadline:
        still = []
        for inst in pending:
            proc = inst.procs.get(daemon)
            if proc is not None and proc.poll() is not None:
                continue  # exited: reported below
            if not inst.vty(daemon).exists():
                still.append(inst)
        pending = still
        if pending:
            time.sleep(0.05)
    failed = {i.device for i in pending}
    failed |= {i.device for i in instances if (p := i.procs.get(daemon)) is not None and p.poll() is not None}
    return sorted(failed)


def log_tail(inst: Instance, daemon: str, lines: int = 5) -> str:
    try:
        text = (inst.directory / f"{daemon}.log").read_text(errors="replace")
    except OSError:
        return ""
    return " | ".join(text.strip().splitlines()[-lines:])


def vty_command(path: Path, command: str, timeout_s: float = VTY_TIMEOUT_S) -> str:
    """One command on a daemon's vty socket; FrrError if the daemon rejects it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout_s)
        s.connect(str(path))
        s.sendall(command.encode() + b"\0")
        chunks: list[bytes] = []
        tail = b""
        while True:
            data = s.recv(1 << 20)
            if not data:
                break
            chunks.append(data)
            tail = (tail + data)[-4:]
            if len(tail) == 4 and tail[:3] == b"\0\0\0":
                break
    raw = b"".join(chunks)
    if len(raw) < 4 or raw[-4:-1] != b"\0\0\0":
        raise FrrError(f"{path}: truncated vty answer to {command!r}")
    status, text = raw[-1], raw[:-4].decode(errors="replace")
    if status != 0:
        raise FrrError(f"{path}: {command!r}: {text.strip()[:200]}")
    return text


def stop(instances: list[Instance], grace_s: float = 3.0) -> None:
    """SIGTERM every daemon, SIGKILL what is left after ``grace_s``, reap them."""
    procs = [p for inst in instances for p in inst.procs.values() if p.poll() is None]
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            p.terminate()
    deadline = time.monotonic() + grace_s
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(2.0)


def make_run_dir(run_id: str) -> Path:
    """A private directory for configs, sockets, pid files and logs: ``/tmp/roceops-<run id>``, owned by
    the FRR user (its daemons create their sockets there) and closed to others."""
    path = Path("/tmp") / f"roceops-{run_id}"
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(mode=0o700)
    user = pwd.getpwnam(FRR_USER)
    os.chown(path, user.pw_uid, user.pw_gid)
    return path
