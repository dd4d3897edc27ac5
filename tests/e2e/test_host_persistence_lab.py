"""Issue 18 against the lab: host settings survive a reboot only when their persistence is deployed; boot-time
state and NCCL are audited and health-checked on the node.

One lab of inventory/lab-mini.yaml, deployed once without gpu006 (which a test deploys without persistence).
Each test puts back what it changes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from labkit import Lab
from labtools import free_endpoint_base, lab_mini, netmiko_connect

from roceops.audit.engine import AuditOptions, run_audit
from roceops.device.intent import NcclIntent
from roceops.health.engine import HealthOptions, run_health
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread

pytestmark = pytest.mark.lab

UNIT = "roceops-roce.service"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    tmp = tmp_path_factory.mktemp("persist")
    base, port = free_endpoint_base()  # random: other labs may run on this machine
    fabric = lab_mini()
    thread = LabThread(lab_specs(fabric), tmp / "lab", base_address=base, port=port).start()
    lab = Lab(fabric=fabric, thread=thread, state_dir=tmp / "lab", journal=Journal(tmp / "journal.sqlite"))
    try:
        report = lab.deploy([n for n in lab.names if n != "gpu006"])
        assert report.exit_code == 0, {n: (o.status, o.error) for n, o in report.outcomes.items()}
        yield lab
    finally:
        lab.thread.stop()
        lab.journal.close()


def audit(lab: Lab, names: list[str]) -> list[tuple[str, str, str]]:
    result = run_audit(lab.fabric, names, AuditOptions(lab_dir=lab.state_dir, quiet=True, timeout_s=10))
    assert not result.unreachable
    return [(f.check, f.device, f.path) for f in result.findings]


def health(lab: Lab, node: str, traffic: bool = False):  # type: ignore[no-untyped-def]
    return run_health(lab.fabric, [node], HealthOptions(window_s=0.5, deadline_s=20.0, lab_dir=lab.state_dir,
                                                        traffic=traffic))


def as_root(lab: Lab, node: str, *lines: str) -> list[str]:
    conn = netmiko_connect(lab.thread, node, "linux_mlx5")
    try:
        return [conn.send_command(f"sudo sh -c '{line}'") for line in lines]
    finally:
        conn.disconnect()


def test_deployed_node_survives_a_reboot(lab: Lab) -> None:
    assert audit(lab, ["gpu001"]) == []
    lab.thread.inject("gpu001", "reboot")
    assert audit(lab, ["gpu001"]) == []
    report = health(lab, "gpu001", traffic=True)
    assert report.exit_code == 0, report.verdicts
    checks = {r.check: r for r in report.results}
    assert checks["nccl.config"].status == checks["boot.unit"].status == checks["nic.gid"].status == "ok"
    assert checks["boot.unit"].observed == "enabled, success"  # the unit ran the script at boot
    assert checks["traffic.rdma"].status == "skipped" and "needs at least 2 nodes" in checks["traffic.rdma"].message


def test_deploy_without_persistence_is_found_before_the_reboot_and_drifts_after(lab: Lab) -> None:
    report = lab.deploy(["gpu006"], persist=False)
    assert report.outcomes["gpu006"].status == "changed", report.outcomes["gpu006"].error
    before = audit(lab, ["gpu006"])
    assert {c for c, _, _ in before} == {"boot.file", "boot.unit", "config.drift"}
    assert {d for _, d, _ in before} == {"gpu006"}
    assert {p for c, _, p in before if c == "config.drift"} <= {f"nccl.{f}" for f in NcclIntent.model_fields}
    assert ("boot.file", "gpu006", "boot.files[/etc/nccl.conf]") in before
    lab.thread.inject("gpu006", "reboot")
    after = audit(lab, ["gpu006"])
    runtime = {p for c, d, p in after if c == "config.drift" and d == "gpu006"}
    assert {"nics[eth0].trust", "nics[eth0].mtu", "nics[eth1].pfc_priorities"} <= runtime
    report = lab.deploy(["gpu006"])
    assert report.outcomes["gpu006"].status == "changed"
    assert audit(lab, ["gpu006"]) == []


def test_disabled_unit_is_a_boot_finding_and_loses_the_settings_at_reboot(lab: Lab) -> None:
    as_root(lab, "gpu002", f"systemctl disable {UNIT}")
    try:
        found = audit(lab, ["gpu002"])
        assert found == [("boot.unit", "gpu002", "boot.unit_enabled")]
        verdict = health(lab, "gpu002").verdicts[0]
        assert verdict.status == "drain" and any("boot.unit" in r for r in verdict.reasons)
        lab.thread.inject("gpu002", "reboot")
        drift = {(c, p) for c, _, p in audit(lab, ["gpu002"])}
        assert ("config.drift", "nics[eth0].trust") in drift and ("boot.unit", "boot.unit_enabled") in drift
    finally:
        assert lab.deploy(["gpu002"]).exit_code == 0
    assert audit(lab, ["gpu002"]) == []


def test_nccl_tc_without_pfc_on_the_node_is_found_by_audit_and_health(lab: Lab) -> None:
    as_root(lab, "gpu003", "echo NCCL_IB_HCA==mlx5_0,mlx5_1 > /etc/nccl.conf", "echo NCCL_IB_TC=0 >> /etc/nccl.conf")
    try:
        found = audit(lab, ["gpu003"])
        assert ("config.drift", "gpu003", "nccl.ib_tc") in found
        # a file without NCCL_CROSS_NIC / NCCL_IB_FIFO_TC: audit reads both back (issue 29)
        assert {("config.drift", "gpu003", "nccl.cross_nic"), ("config.drift", "gpu003", "nccl.fifo_tc")} <= set(found)
        assert ("boot.file", "gpu003", "boot.files[/etc/nccl.conf]") in found
        results = {r.check: r for r in health(lab, "gpu003").results}
        nccl = results["nccl.config"]
        assert nccl.status == "fail" and nccl.node == "gpu003"
        assert "ib_tc=0" in nccl.message and "DSCP 0 -> priority 0, which has no PFC" in nccl.message
    finally:
        assert lab.deploy(["gpu003"]).exit_code == 0
    assert audit(lab, ["gpu003"]) == []
