"""Persistence and firmware in the linux_mlx5 host transaction, against lab hosts (real Netmiko sessions as a
non-root user, writes through sudo -n): restore after a failed deploy puts the previous files back byte for
byte with their modes and the previous unit state; dry runs show a unified diff per file; firmware only with
--firmware, reporting reboot_required."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from conftest import example_dict
from labtools import free_endpoint_base, netmiko_connect

from roceops.deploy.device import deploy_device
from roceops.deploy.engine import DeployOptions, deployable
from roceops.device.intent import HostIntent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import DRIVER, INSTALL_TARGETS
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

pytestmark = pytest.mark.lab

_data = example_dict("lab-mini")
_data["node"]["firmware"] = True
FABRIC = expand(FabricIntent.model_validate(_data))
HOSTS = ["gpu007", "gpu008"]
OLD_NCCL = "NCCL_DEBUG=WARN\nNCCL_IB_HCA=mlx5\n"  # an admin's file, mode 0640


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(FABRIC, HOSTS), tmp_path_factory.mktemp("persist") / "state", port=port,
                       base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


class Connector:
    def __init__(self, lab: LabThread, host: str) -> None:
        self.lab, self.host, self.conn = lab, host, None

    def connect(self) -> Any:
        if self.conn is None:
            self.conn = netmiko_connect(self.lab, self.host, "linux_mlx5")
        return self.conn

    def reconnect(self) -> Any:
        self.conn = None
        return self.connect()


def host(name: str, **opts: Any) -> tuple[HostIntent, Any]:
    intent = plan(FABRIC, name)
    assert isinstance(intent, HostIntent)
    return intent, deployable(render_device(intent), DeployOptions(**opts))


def root(conn: Any, line: str) -> str:
    return str(conn.send_command(f"sudo sh -c '{line}'"))


def test_failed_deploy_puts_back_files_byte_for_byte_and_the_unit_state(lab: LabThread) -> None:
    c = Connector(lab, "gpu007")
    conn = c.connect()
    root(conn, f"echo NCCL_DEBUG=WARN > {INSTALL_TARGETS['nccl.conf'].path}")
    root(conn, "echo NCCL_IB_HCA=mlx5 >> /etc/nccl.conf")
    root(conn, "chmod 640 /etc/nccl.conf")
    lab.inject("gpu007", "reject_systemctl")  # files get installed, then `systemctl enable` is refused
    try:
        intent, rendered = host("gpu007")
        out = deploy_device(DRIVER, c, rendered, intent, commit=True, txn="t-enable")
    finally:
        lab.clear("gpu007")
    assert out.status == "rolled_back", out.error
    assert "systemctl enable" in (out.error or "") and "Access denied" in (out.error or "")
    conn = c.connect()
    assert root(conn, "base64 /etc/nccl.conf").replace("\n", "") == base64.b64encode(OLD_NCCL.encode()).decode()
    assert root(conn, "stat -c %a /etc/nccl.conf").strip() == "640"
    for name in ("netplan.yaml", "roceops-roce.service", "roce-setup.sh", "nccl.env"):
        assert "No such file" in root(conn, f"stat -c %a {INSTALL_TARGETS[name].path}")
    assert "No such file" in root(conn, "systemctl is-enabled roceops-roce.service")
    assert out.backup is not None and DRIVER.read_config(conn).text == out.backup.text


def test_dry_run_shows_a_unified_diff_per_file_and_firmware_waits_for_the_flag(lab: LabThread) -> None:
    c = Connector(lab, "gpu008")
    intent, rendered = host("gpu008")
    dry = deploy_device(DRIVER, c, rendered, intent, commit=False, txn="t-dry")
    assert dry.status == "would_change" and not dry.reboot_required
    for name in ("netplan.yaml", "roce-setup.sh", "roceops-roce.service", "sysctl.conf", "nccl.conf", "nccl.env"):
        assert f"+++ {INSTALL_TARGETS[name].path} (rendered)" in dry.diff
    assert "+NCCL_IB_TC=106\n" in dry.diff and "roceops-roce.service: (not installed) -> enabled" in dry.diff
    assert "mlxconfig" not in dry.diff and "firmware." not in dry.diff
    out = deploy_device(DRIVER, c, rendered, intent, commit=True, txn="t-nofw")
    assert out.status == "changed" and not out.reboot_required and out.summary["files"] == 6
    observed = DRIVER.observe(DRIVER.collect(c.connect(), intent))
    assert observed.firmware is not None and observed.firmware.devices is not None
    assert observed.firmware.devices["mlx5_0"]["ROCE_CC_PRIO_MASK_P1"] == 255  # untouched: factory value
    _, with_fw = host("gpu008", firmware=True)
    fw = deploy_device(DRIVER, c, with_fw, intent, commit=True, txn="t-fw")
    assert fw.status == "changed" and fw.reboot_required and fw.summary["reboot_required"] == 1
    assert "firmware.mlx5_0.ROCE_CC_PRIO_MASK_P1: 255 -> 8 (next boot)" in fw.diff
    query = root(c.connect(), "mlxconfig -d mlx5_0 -e query ROCE_CC_PRIO_MASK_P1")
    assert "ROCE_CC_PRIO_MASK_P1                255             255             8" in query  # current until reboot
    again = deploy_device(DRIVER, c, with_fw, intent, commit=True, txn="t-fw2")
    assert again.status == "unchanged", again.diff
    lab.inject("gpu008", "reboot")
    assert "ROCE_CC_PRIO_MASK_P1                255             8               8" in \
        root(c.connect(), "mlxconfig -d mlx5_0 -e query ROCE_CC_PRIO_MASK_P1")
    skipped = replace(with_fw, skip=("mlxconfig.sh",))
    assert deploy_device(DRIVER, c, skipped, intent, commit=True, txn="t-after").status == "unchanged"
