"""A lab of inventory/lab-mini.yaml for end-to-end tests (in-process, loopback only)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from labtools import free_endpoint_base, lab_mini

from roceops.deploy.engine import DeployOptions, DeployReport, deploy
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.topology.fabric import Fabric

T = TypeVar("T")



@dataclass
class Lab:
    fabric: Fabric
    thread: LabThread
    state_dir: Path
    journal: Journal

    @property
    def names(self) -> list[str]:
        return [d.name for d in self.fabric.devices()]

    def deploy(self, names: list[str] | None = None, **opts: object) -> DeployReport:
        options = DeployOptions(**{"commit": True, "bringup": True, "lab_dir": self.state_dir, "quiet": True,
                                   "timeout_s": 30.0, "confirm_timeout_s": 60, **opts})  # type: ignore[arg-type]
        run_id = self.journal.start_run("deploy", self.fabric.intent.name, "test", {})
        report = deploy(self.fabric, names or self.names, options, self.journal, run_id)
        self.journal.finish_run(run_id, "test", report.exit_code)
        return report


def changed_host_keys(lab: Lab, path: Path, devices: list[str] | None = None) -> Path:
    """The lab's known_hosts with the key of ``devices`` (None: every device) replaced by one the lab does
    not have, written to ``path``."""
    from roceops.lab.ssh_lib import asyncssh

    stranger = " ".join(asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode().split()[:2])
    changed = None if devices is None else {f"[{lab.thread.overlay[d]['host']}]:{lab.thread.overlay[d]['port']}"
                                            for d in devices}
    lines = [f"{line.split()[0]} {stranger}" if changed is None or line.split()[0] in changed else line
             for line in (lab.state_dir / "known_hosts").read_text().splitlines()]
    path.write_text("\n".join(lines) + "\n")
    return path


def start_lab(tmp: Path, configured: bool = False) -> Lab:
    fabric = lab_mini()
    state = tmp / "lab"
    # a random loopback base and port, probed free: pytest runs in other processes (another checkout, CI) pick
    # their own; a per-process sequence of bases on one fixed port collided with them
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(fabric, configured=configured), state, base_address=base, port=port).start()
    return Lab(fabric=fabric, thread=thread, state_dir=state, journal=Journal(tmp / "journal.sqlite"))


@pytest.fixture
def fresh_lab(tmp_path: Path) -> Iterator[Lab]:
    lab = start_lab(tmp_path)
    try:
        yield lab
    finally:
        lab.thread.stop()
        lab.journal.close()


@pytest.fixture(scope="module")
def deployed_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """One lab, deployed once, shared by the fault tests (each test remediates what it breaks)."""
    lab = start_lab(tmp_path_factory.mktemp("deployed"))
    try:
        report = lab.deploy()
        assert report.exit_code == 0, {n: (o.status, o.error) for n, o in report.outcomes.items()}
        yield lab
    finally:
        lab.thread.stop()
        lab.journal.close()


def on_devices(fabric: Fabric, state_dir: Path, names: list[str], work: Callable[[Any, str], T],
               workers: int = 8, timeout_s: int = 10) -> dict[str, T]:
    """``work(conn, platform)`` on each lab device over Netmiko via Nornir: device -> its result (a device whose
    work failed is absent)."""
    from nornir.core.task import Result, Task

    from roceops.nornir_glue.runner import make_nornir

    nr = make_nornir(fabric, names, lab_dir=state_dir, workers=workers, timeout_s=timeout_s)
    out: dict[str, T] = {}

    def task(t: Task) -> Result:
        out[t.host.name] = work(t.host.get_connection("netmiko", t.nornir.config), t.host.data["roceops_platform"])
        return Result(host=t.host)

    try:
        nr.run(task=task)
    finally:
        nr.close_connections()
    return out


def read_configs(fabric: Fabric, state_dir: Path, names: list[str], workers: int = 8,
                 timeout_s: int = 10) -> dict[str, str]:
    """Each device's configuration text, read through its platform driver."""
    from roceops.platforms.base import get_driver

    return on_devices(fabric, state_dir, names, lambda conn, platform: get_driver(platform).read_config(conn).text,
                      workers, timeout_s)


def run_on_device(fabric: Fabric, state_dir: Path, device: str, commands: list[str],
                  files: dict[str, str] | None = None) -> list[str]:
    """Write ``files`` (path -> text) on lab ``device``, then run ``commands`` there."""
    from roceops.platforms.sonic.driver import write_file

    def work(conn: Any, platform: str) -> list[str]:
        for path, text in (files or {}).items():
            write_file(conn, path, text)
        return [conn.send_command(c) for c in commands]

    return on_devices(fabric, state_dir, [device], work, workers=1).get(device, [])
