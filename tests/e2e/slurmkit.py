"""A private Slurm cluster on loopback for the tests: Debian's munged, slurmctld and one slurmd per node.

Everything lives in one temporary folder (slurm.conf, topology.conf, munge key and socket, state, spool, pid
and log files, on ports picked free on 127.0.0.1); :meth:`Cluster.stop` ends every daemon by its pid file and
removes the folder. Facts used (../shared/reference/operators-systems.md, checked on this machine): munged runs
from a private key and socket (``--socket``, ``--key-file``, Slurm's ``AuthInfo=socket=``); several slurmd on one
host with ``slurmd -N <node>`` and per-node ``Port=`` (Debian's 22.05 build reports ``MULTIPLE_SLURMD = Yes``);
``%n`` in SlurmdSpoolDir/SlurmdPidFile/SlurmdLogFile is the node name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "scontrol", "sbatch", "sinfo", "squeue")


def missing_prerequisite() -> str | None:
    """Why the cluster cannot start here (None: it can)."""
    if os.geteuid() != 0:
        return "the Slurm tests need root (slurmd runs jobs as their user; SlurmUser=root)"
    absent = [d for d in DAEMONS if shutil.which(d) is None]
    if absent:
        return f"not installed: {', '.join(absent)} (Debian packages slurmctld slurmd munge)"
    return None


def free_ports(count: int) -> list[int]:
    socks, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


@dataclass
class Cluster:
    root: Path
    nodes: list[str]
    extra_conf: list[str] = field(default_factory=list)
    host: str = field(default_factory=lambda: socket.gethostname().split(".")[0])

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def write_conf(self, topology: str) -> None:
        ctld_port, *node_ports = free_ports(1 + len(self.nodes))
        r = self.root
        lines = [
            f"ClusterName=rt{os.getpid() % 100000}", f"SlurmctldHost={self.host}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}", "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={r}/munge.sock",
            f"StateSaveLocation={r}/state", f"SlurmdSpoolDir={r}/spool/%n",
            f"SlurmctldPidFile={r}/slurmctld.pid", f"SlurmdPidFile={r}/slurmd-%n.pid",
            f"SlurmctldLogFile={r}/slurmctld.log", f"SlurmdLogFile={r}/slurmd-%n.log",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SwitchType=switch/none",
            "MpiDefault=none", "SelectType=select/linear", "TopologyPlugin=topology/tree",
            "ReturnToService=2", "SlurmdTimeout=30", "MessageTimeout=10", "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none", "MailProg=/bin/true",
            *self.extra_conf,
        ]
        lines += [f"NodeName={n} NodeHostname={self.host} NodeAddr=127.0.0.1 Port={p} CPUs=1 State=UNKNOWN"
                  for n, p in zip(self.nodes, node_ports, strict=True)]
        lines.append("PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
        self.conf.write_text("\n".join(lines) + "\n")
        (r / "topology.conf").write_text(topology)

    def start(self, topology: str) -> Cluster:
        r = self.root
        for sub in ("state", "spool"):
            (r / sub).mkdir()
        for n in self.nodes:
            (r / "spool" / n).mkdir()
        self.write_conf(topology)
        key = r / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        run(["munged", "--force", f"--socket={r}/munge.sock", f"--key-file={key}", f"--log-file={r}/munged.log",
             f"--pid-file={r}/munged.pid", f"--seed-file={r}/munged.seed"])
        wait(lambda: (r / "munge.sock").exists(), 5, "munged socket")
        run(["slurmctld", "-f", str(self.conf)], env=self.env)
        wait(lambda: self.scontrol("ping").returncode == 0, 20, "slurmctld answering ping")
        for n in self.nodes:
            run(["slurmd", "-f", str(self.conf), "-N", n], env=self.env)
        wait(lambda: sorted(self.states().values()) == ["idle"] * len(self.nodes), 40, "every node idle",
             lambda: f"{self.states()}\n{self.log('slurmctld')[-2000:]}")
        return self

    def scontrol(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["scontrol", *args], env=self.env, capture_output=True, text=True, timeout=30)

    def cmd(self, *args: str, env: dict[str, str] | None = None) -> str:
        """Run a Slurm client (``env``: added to the client's environment, which sbatch hands to the job)."""
        done = subprocess.run(list(args), env={**self.env, **(env or {})}, capture_output=True, text=True,
                              timeout=30)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def states(self) -> dict[str, str]:
        out = self.cmd("sinfo", "-N", "-h", "-o", "%N %T")
        return dict(line.split() for line in out.splitlines() if line.strip())

    def reasons(self) -> dict[str, str]:
        """Node -> reason of every drained/down node (``sinfo -R``)."""
        out = self.cmd("sinfo", "-R", "-N", "-h", "-o", "%N|%E")
        return dict(line.split("|", 1) for line in out.splitlines() if line.strip())

    def reconfigure(self, extra: list[str]) -> None:
        """Replace the extra slurm.conf lines and have every daemon re-read the file."""
        text = self.conf.read_text()
        for line in self.extra_conf:
            text = text.replace(line + "\n", "")
        self.extra_conf = extra
        self.conf.write_text("".join(line + "\n" for line in extra) + text)
        done = self.scontrol("reconfigure")
        assert done.returncode == 0, done.stderr

    def log(self, name: str) -> str:
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def pids(self) -> list[int]:
        files = [self.root / f"slurmd-{n}.pid" for n in self.nodes] + [self.root / "slurmctld.pid",
                                                                         self.root / "munged.pid"]
        out = []
        for f in files:
            try:
                out.append(int(f.read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                continue
        return out

    def stop(self) -> None:
        """End every daemon by its pid (TERM, then KILL after 10 s) and remove the folder."""
        pids = self.pids()
        for pid in pids:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.1)
        for pid in pids:
            if _alive(pid):
                _signal(pid, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours (daemons fork away from us, so rarely) is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def run(argv: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, (argv, done.stdout, done.stderr)


def wait(ok: Callable[[], bool], seconds: float, what: str, detail: Callable[[], str] | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ok():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {seconds:g}s waiting for {what}" + (f"\n{detail()}" if detail else ""))


def new_cluster(nodes: list[str]) -> Cluster:
    return Cluster(root=Path(tempfile.mkdtemp(prefix="roceops-slurm-")), nodes=nodes)
