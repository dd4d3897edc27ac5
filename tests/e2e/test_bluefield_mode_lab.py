"""BlueField-3 operation mode against the lab (docs/platforms.md, "BlueField-3 modes"): a host whose NIC is in DPU
mode (the lab's ``dpu_mode`` fault) is a ``nic.mode`` finding in deploy (nothing sent), audit and health; the
same host in NIC mode (a ConnectX, or the fault cleared) is clean."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from labkit import Lab
from labtools import free_endpoint_base, lab_mini

from roceops.audit.engine import AuditOptions, run_audit
from roceops.health.engine import HealthOptions, run_health
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread

pytestmark = pytest.mark.lab
HOST = "gpu001"
DEVICES = [HOST, "leaf-su1-r1", "leaf-su1-r2"]  # the host and the leaves of its two rails


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    tmp = tmp_path_factory.mktemp("bluefield")
    base, port = free_endpoint_base()
    fabric = lab_mini()
    thread = LabThread(lab_specs(fabric, DEVICES), tmp / "lab", base_address=base, port=port).start()
    lab = Lab(fabric=fabric, thread=thread, state_dir=tmp / "lab", journal=Journal(tmp / "journal.sqlite"))
    try:
        report = lab.deploy(DEVICES)
        assert report.exit_code == 0, {n: (o.status, o.error) for n, o in report.outcomes.items()}
        yield lab
    finally:
        lab.thread.stop()
        lab.journal.close()


def _audit(lab: Lab) -> list[tuple[str, str, object]]:
    result = run_audit(lab.fabric, [HOST], AuditOptions(lab_dir=lab.state_dir, quiet=True, timeout_s=10))
    return [(f.check, f.path, f.observed) for f in result.findings]


def _health(lab: Lab) -> dict[str, str]:
    report = run_health(lab.fabric, [HOST], HealthOptions(window_s=0.5, deadline_s=20.0, lab_dir=lab.state_dir))
    assert [v.node for v in report.verdicts] == [HOST]
    return {r.path: r.status for r in report.results if r.check == "nic.mode"} | {"verdict": report.verdicts[0].status}


def test_a_connectx_host_is_in_nic_mode_everywhere(lab: Lab) -> None:
    assert _audit(lab) == []
    assert _health(lab) == {f"{HOST}:mlx5_0": "ok", f"{HOST}:mlx5_1": "ok", "verdict": "ok"}


def test_a_dpu_mode_host_is_a_nic_mode_finding_in_deploy_audit_and_health(lab: Lab) -> None:
    lab.thread.inject(HOST, "dpu_mode", port="eth1")
    try:
        assert _audit(lab) == [("nic.mode", "nics[eth1].mode", "dpu")]
        assert _health(lab) == {f"{HOST}:mlx5_0": "ok", f"{HOST}:mlx5_1": "fail", "verdict": "drain"}
        # a change the deploy would make: MTU on eth0 back from 1500; the DPU-mode NIC stops the whole host
        lab.thread.inject(HOST, "mtu_mismatch", port="eth0", mtu=1500)
        report = lab.deploy([HOST])
        outcome = report.outcomes[HOST]
        assert outcome.status == "facts_mismatch" and outcome.error is not None
        assert outcome.error.startswith("nic.mode: mlx5_1 (eth1) is a BlueField in DPU mode")
        assert outcome.diff == "" and report.exit_code == 1
        assert ("config.drift", "nics[eth0].mtu", 1500) in _audit(lab)  # nothing was sent: eth0 still drifts
    finally:
        lab.thread.clear(HOST)
    report = lab.deploy([HOST])  # NIC mode again: the deploy goes through and repairs eth0
    assert report.outcomes[HOST].status == "changed", report.outcomes[HOST].error
    assert _audit(lab) == []
