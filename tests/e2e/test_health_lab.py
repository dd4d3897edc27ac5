"""Issue 7 against the lab: healthy nodes pass; each fault drains exactly the affected nodes; the deadline holds."""

from __future__ import annotations

import time

import pytest
from labkit import changed_host_keys, deployed_lab, fresh_lab  # noqa: F401  (fixtures)

from roceops.health.engine import HealthOptions, run_health

pytestmark = pytest.mark.lab

NODES = [f"gpu{n:03d}" for n in range(1, 9)]


def health(lab, nodes=NODES, window=1.0, deadline=20.0):
    return run_health(lab.fabric, nodes, HealthOptions(window_s=window, deadline_s=deadline, lab_dir=lab.state_dir))


def test_healthy_lab_every_node_ok(deployed_lab) -> None:
    report = health(deployed_lab)
    assert report.exit_code == 0, [(v.node, v.reasons) for v in report.verdicts if v.status != "ok"]
    assert {v.status for v in report.verdicts} == {"ok"}


# (device, fault, params, nodes that must be drained, word that must appear in the reason, config-level?)
FAULTS = [
    ("gpu001", "nic_reset", {"port": "eth0"}, {"gpu001"}, "nic.roce", True),
    ("leaf-su1-r1", "pfc_off", {"port": "Ethernet8"}, {"gpu002"}, "Ethernet8", True),
    ("gpu003", "pause_storm", {"port": "eth0"}, {"gpu003"}, "counters.pause", False),
    ("leaf-su2-r1", "crc_errors", {"port": "swp1"}, {"gpu005"}, "counters.crc", False),
    ("gpu004", "link_flap", {"port": "eth1"}, {"gpu004"}, "counters.flaps", False),
    ("gpu006", "mtu_mismatch", {"port": "eth0", "mtu": 1500}, {"gpu006"}, "nic.mtu", True),
    ("gpu007", "firmware", {"version": "28.39.1002"}, {"gpu007"}, "nic.firmware", False),
]


@pytest.mark.parametrize(("device", "fault", "params", "drained", "reason", "config"), FAULTS,
                         ids=[f"{f[0]}-{f[1]}" for f in FAULTS])
def test_fault_drains_exactly_the_affected_nodes(deployed_lab, device, fault, params, drained, reason,
                                                 config) -> None:
    deployed_lab.thread.inject(device, fault, **params)
    try:
        report = health(deployed_lab)
    finally:
        deployed_lab.thread.clear(None)
        if config:
            assert deployed_lab.deploy([device]).exit_code == 0
    got = {v.node: v for v in report.verdicts if v.status != "ok"}
    assert set(got) == drained, {n: v.reasons for n, v in got.items()}
    assert all(v.status == "drain" for v in got.values())
    assert all(any(reason in r for r in v.reasons) for v in got.values()), {n: v.reasons for n, v in got.items()}
    assert report.exit_code == 1


def test_unreachable_host_is_unknown_exit_2(deployed_lab) -> None:
    deployed_lab.thread.inject("gpu008", "refuse")
    try:
        report = health(deployed_lab)
    finally:
        deployed_lab.thread.clear("gpu008")
    bad = {v.node: v for v in report.verdicts if v.status != "ok"}
    assert set(bad) == {"gpu008"} and bad["gpu008"].status == "unknown"
    assert any("gpu008" in r for r in bad["gpu008"].reasons)
    assert report.exit_code == 2


def test_deadline_holds_with_a_leaf_that_never_answers(deployed_lab) -> None:
    deployed_lab.thread.inject("leaf-su2-r2", "slow", ms=120_000)
    start = time.monotonic()
    try:
        report = health(deployed_lab, deadline=6.0)
    finally:
        deployed_lab.thread.clear("leaf-su2-r2")
    elapsed = time.monotonic() - start
    assert elapsed < 8.0, elapsed
    behind = {"gpu005", "gpu006", "gpu007", "gpu008"}  # rail 2 of SU2 hangs off leaf-su2-r2
    unknown = {v.node for v in report.verdicts if v.status == "unknown"}
    assert unknown == behind, [(v.node, v.status, v.reasons) for v in report.verdicts]
    assert all(any("leaf-su2-r2" in r for r in v.reasons) for v in report.verdicts if v.node in behind)
    assert report.exit_code == 2


def test_host_keys_checked_when_asked(deployed_lab, monkeypatch, tmp_path) -> None:
    """ROCEOPS_KNOWN_HOSTS: the lab's own file lets every node through; one node's key changed makes that node
    unknown (never "ok"), naming the host key, and leaves the others as they are."""
    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(deployed_lab.state_dir / "known_hosts"))
    assert health(deployed_lab, ["gpu001", "gpu002"]).exit_code == 0
    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(changed_host_keys(deployed_lab, tmp_path / "kh", ["gpu002"])))
    report = health(deployed_lab, ["gpu001", "gpu002"])
    status = {v.node: v for v in report.verdicts}
    assert status["gpu001"].status == "ok" and status["gpu002"].status == "unknown" and report.exit_code == 2
    assert any("does not match" in r for r in status["gpu002"].reasons), status["gpu002"].reasons


def test_older_mlx5_driver_names_still_give_health_its_counters(deployed_lab) -> None:
    deployed_lab.thread.inject("gpu003", "old_driver")
    try:
        quiet = health(deployed_lab)
        deployed_lab.thread.inject("gpu003", "crc_errors", port="eth0")
        noisy = health(deployed_lab)
    finally:
        deployed_lab.thread.clear(None)
    assert {v.status for v in quiet.verdicts} == {"ok"}, [(v.node, v.reasons) for v in quiet.verdicts]
    bad = {v.node: v for v in noisy.verdicts if v.status != "ok"}
    assert set(bad) == {"gpu003"} and bad["gpu003"].status == "drain"
    assert any("counters.crc" in r for r in bad["gpu003"].reasons), bad["gpu003"].reasons
