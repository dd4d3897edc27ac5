"""health --traffic against the lab: ib_write_bw between gpu001 and gpu002 on each rail over the health sessions;
a slow rail fails naming node, rail NIC, peer and Gb/s; no perftest or one node: skipped with the reason."""

from __future__ import annotations

import pytest
from labkit import deployed_lab  # noqa: F401  (fixture)

from roceops.health.engine import HealthOptions, run_health

pytestmark = pytest.mark.lab

PAIR = ["gpu001", "gpu002"]


def health(lab, nodes=PAIR, deadline=20.0):  # type: ignore[no-untyped-def]
    return run_health(lab.fabric, nodes, HealthOptions(window_s=0.5, deadline_s=deadline, lab_dir=lab.state_dir,
                                                       traffic=True))


def traffic(report):  # type: ignore[no-untyped-def]
    return {r.item: r for r in report.results if r.check == "traffic.rdma"}


def test_healthy_pair_is_ok_on_every_rail(deployed_lab) -> None:
    report = health(deployed_lab)
    rails = traffic(report)
    nics = {f"{h.name}:{nic.rdma_dev}" for h in deployed_lab.fabric.hosts if h.name in PAIR for nic in h.nics}
    assert set(rails) == nics and len(nics) >= 4
    assert {r.status for r in rails.values()} == {"ok"}, {i: r.message for i, r in rails.items()}
    assert all(r.observed.endswith(" Gb/s") and float(r.observed.split()[0]) > 300 for r in rails.values())
    assert report.exit_code == 0, report.verdicts
    assert report.phases["traffic"] >= 2.0  # the clients really ran their -D 2
    assert report.phases["traffic"] < 10.0  # and the phase stays well inside the deadline


def test_slow_rail_fails_naming_node_rail_peer_and_rate(deployed_lab) -> None:
    deployed_lab.thread.inject("gpu002", "slow_rdma", port="eth1")
    try:
        report = health(deployed_lab)
    finally:
        deployed_lab.thread.clear(None)
    rails = traffic(report)
    bad = [r for r in rails.values() if r.status != "ok"]
    assert [r.item for r in bad] == ["gpu002:mlx5_1"], {i: r.message for i, r in rails.items()}
    assert bad[0].status == "fail"
    assert "gpu002 mlx5_1 (rail 2) -> gpu001 mlx5_1 (10.128.128.1)" in bad[0].message
    assert "Gb/s, below 320 Gb/s" in bad[0].message
    verdicts = {v.node: v for v in report.verdicts}
    assert verdicts["gpu002"].status == "drain" and verdicts["gpu001"].status == "ok"
    assert report.exit_code == 1


def test_no_perftest_is_skipped_with_the_reason(deployed_lab) -> None:
    deployed_lab.thread.inject("gpu001", "no_perftest")
    try:
        report = health(deployed_lab)
    finally:
        deployed_lab.thread.clear(None)
    rails = traffic(report)
    assert {r.status for r in rails.values()} == {"skipped"}
    assert all("gpu001: ib_write_bw not installed (perftest)" in r.message for r in rails.values())
    assert report.exit_code == 0  # a skipped test never drains


def test_one_node_is_skipped(deployed_lab) -> None:
    report = health(deployed_lab, nodes=["gpu003"])
    [result] = traffic(report).values()
    assert result.status == "skipped" and "needs at least 2 nodes" in result.message


def test_failed_run_is_unknown_with_perftest_reason(deployed_lab) -> None:
    deployed_lab.thread.inject("gpu001", "link_down", port="eth0")
    try:
        report = health(deployed_lab)
    finally:
        deployed_lab.thread.clear(None)
    rails = traffic(report)
    assert rails["gpu001:mlx5_0"].status == "unknown"
    assert "Unable to Connect the HCA's through the link" in rails["gpu001:mlx5_0"].message
    assert rails["gpu001:mlx5_1"].status == "ok"
