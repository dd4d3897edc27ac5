"""Issue 29 against one shared lab: the wire faults (retransmits, ...) on gpu003 drain exactly gpu003 through the
CLI's --drain-file with a one-line reason; a clean lab gives no finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from labkit import deployed_lab  # noqa: F401  (fixture: one lab for this module)
from typer.testing import CliRunner

from roceops.audit.engine import AuditOptions, run_audit
from roceops.cli.main import app
from roceops.health.engine import HealthOptions, run_health

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[2]
NODES = ["gpu001", "gpu002", "gpu003", "gpu004"]
NEW_CHECKS = {"nic.transport", "nic.rail", "cc.loop", "pcie.acs"}


def test_clean_lab_runs_the_new_checks_without_findings(deployed_lab) -> None:
    report = run_health(deployed_lab.fabric, NODES, HealthOptions(window_s=1.0, deadline_s=20.0,
                                                                  lab_dir=deployed_lab.state_dir))
    assert report.exit_code == 0, [(v.node, v.reasons) for v in report.verdicts if v.status != "ok"]
    ran = {r.check for r in report.results}
    assert ran >= NEW_CHECKS
    assert {r.status for r in report.results if r.check in NEW_CHECKS} == {"ok"}


# (fault, params, the check that must name gpu003)
WIRE_FAULTS = [
    ("retransmits", {"port": "eth1"}, "nic.transport"),
    ("ecn_no_cnp", {"port": "eth0"}, "cc.loop"),
    ("acs_on", {"port": "eth1"}, "pcie.acs"),
]


@pytest.mark.parametrize(("fault", "params", "check"), WIRE_FAULTS, ids=[f[0] for f in WIRE_FAULTS])
def test_wire_fault_on_gpu003_drains_exactly_gpu003(deployed_lab, tmp_path, monkeypatch, fault, params,
                                                    check) -> None:
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(deployed_lab.state_dir))
    drain = tmp_path / "drain"
    deployed_lab.thread.inject("gpu003", fault, **params)
    try:
        result = CliRunner().invoke(app, ["health", "gpu[001-004]", "-f", str(REPO / "inventory/lab-mini.yaml"),
                                          "--lab", "--window", "1s", "--deadline", "20s", "--drain-file", str(drain)])
    finally:
        deployed_lab.thread.clear(None)
    assert result.exit_code == 1, result.output
    lines = drain.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu003 roceops: "), lines
    assert check in lines[0], lines[0]


def test_rail_swap_on_gpu002_named_by_audit_and_drained_by_health(deployed_lab, monkeypatch) -> None:
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(deployed_lab.state_dir))
    nics = {n.netdev: n for n in next(h for h in deployed_lab.fabric.hosts if h.name == "gpu002").nics}
    a, b = sorted(nics)[:2]
    deployed_lab.thread.inject("gpu002", "rail_swap")
    try:
        leaves = sorted({n.leaf for n in nics.values()})
        audit = run_audit(deployed_lab.fabric, ["gpu002", *leaves],
                          AuditOptions(lab_dir=deployed_lab.state_dir, quiet=True))
        cli = CliRunner().invoke(app, ["health", "gpu002", "-f", str(REPO / "inventory/lab-mini.yaml"), "--lab",
                                       "--window", "1s", "--deadline", "20s", "--format", "json"])
        health = run_health(deployed_lab.fabric, ["gpu002"], HealthOptions(window_s=0.5, deadline_s=20.0,
                                                                          lab_dir=deployed_lab.state_dir))
    finally:
        deployed_lab.thread.clear(None)
    assert cli.exit_code == 1 and "nic.rail" in cli.output, cli.output
    cabling = {f.path: f for f in audit.findings if f.check == "cabling.host"}
    assert set(cabling) == {f"nics[{a}].leaf_port", f"nics[{b}].leaf_port"}, audit.findings
    for mine, other in ((a, b), (b, a)):
        f = cabling[f"nics[{mine}].leaf_port"]
        assert f.device == "gpu002"
        assert f.expected == f"{nics[mine].leaf}:{nics[mine].leaf_port}"
        assert f.observed == f"{nics[other].leaf}:{nics[other].leaf_port}"
    assert health.exit_code == 1
    [verdict] = health.verdicts
    assert verdict.status == "drain" and any(r.startswith(f"nic.rail gpu002:{a}") for r in verdict.reasons)
    assert any("its LLDP hears" in r for r in verdict.reasons), verdict.reasons  # the host's lldpcli view too


def _without_host_lldp(lab) -> None:  # type: ignore[no-untyped-def]
    for node in NODES:  # lldpd not installed on any host: no host view, no host in a leaf's LLDP table
        lab.thread.inject(node, "no_lldpd")


def test_rail_swap_without_host_lldp_found_by_the_leaves_neighbour_tables(deployed_lab) -> None:
    nics = {n.netdev: n for n in next(h for h in deployed_lab.fabric.hosts if h.name == "gpu002").nics}
    a, b = sorted(nics)[:2]
    leaves = sorted({n.leaf for n in nics.values()})
    _without_host_lldp(deployed_lab)
    deployed_lab.thread.inject("gpu002", "rail_swap")
    try:
        audit = run_audit(deployed_lab.fabric, ["gpu002", *leaves],
                          AuditOptions(lab_dir=deployed_lab.state_dir, quiet=True))
        health = run_health(deployed_lab.fabric, ["gpu002"], HealthOptions(window_s=0.5, deadline_s=20.0,
                                                                          lab_dir=deployed_lab.state_dir))
    finally:
        deployed_lab.thread.clear(None)
    cabling = {f.path: f for f in audit.findings if f.check == "cabling.host"}
    assert set(cabling) == {f"nics[{a}].leaf_port", f"nics[{b}].leaf_port"}, audit.findings
    for mine, other in ((a, b), (b, a)):
        f = cabling[f"nics[{mine}].leaf_port"]
        assert (f.device, f.expected) == ("gpu002", f"{nics[mine].leaf}:{nics[mine].leaf_port}")
        assert f.observed == f"{nics[other].leaf}:{nics[other].leaf_port}"
    assert health.exit_code == 1
    [verdict] = health.verdicts
    rail = [r for r in verdict.reasons if r.startswith("nic.rail")]
    assert verdict.status == "drain" and any(r.startswith(f"nic.rail gpu002:{a}") for r in rail), verdict.reasons
    assert all("MAC in the neighbour table" in r and "LLDP hears" not in r for r in rail), rail


def test_clean_lab_without_host_lldp_places_every_nic_by_mac(deployed_lab) -> None:
    _without_host_lldp(deployed_lab)
    try:
        leaves = sorted({n.leaf for h in deployed_lab.fabric.hosts if h.name in NODES for n in h.nics})
        audit = run_audit(deployed_lab.fabric, [*NODES, *leaves],
                          AuditOptions(lab_dir=deployed_lab.state_dir, quiet=True))
        health = run_health(deployed_lab.fabric, NODES, HealthOptions(window_s=0.5, deadline_s=20.0,
                                                                      lab_dir=deployed_lab.state_dir))
    finally:
        deployed_lab.thread.clear(None)
    assert audit.findings == [], audit.findings
    assert health.exit_code == 0, [(v.node, v.reasons) for v in health.verdicts if v.status != "ok"]
    rail = [r for r in health.results if r.check == "nic.rail"]
    assert len(rail) == 2 * len(NODES) and {r.status for r in rail} == {"ok"}, rail  # judged, not skipped


def test_ecn_no_cnp_lowers_the_senders_handling_and_fails_only_the_receiver(deployed_lab) -> None:
    # gpu003's eth0 sends no CNPs: its rail peers (every other host's eth0) handle only the others' (2 of 3)
    deployed_lab.thread.inject("gpu003", "ecn_no_cnp", port="eth0")
    try:  # a 3 s window: over 1 s, 2/3 of ~7 handled CNPs can round to the same count as all of them
        report = run_health(deployed_lab.fabric, NODES, HealthOptions(window_s=3.0, deadline_s=20.0,
                                                                      lab_dir=deployed_lab.state_dir))
    finally:
        deployed_lab.thread.clear(None)
    loop = {r.path: r for r in report.results if r.check == "cc.loop"}
    assert [v.node for v in report.verdicts if v.status != "ok"] == ["gpu003"]
    assert loop["gpu003:eth0"].status == "fail" and "notification point" in loop["gpu003:eth0"].message
    for node in ("gpu001", "gpu002", "gpu004"):
        eth0, eth1 = loop[f"{node}:eth0"], loop[f"{node}:eth1"]
        assert eth0.status == eth1.status == "ok", (eth0, eth1)
        assert isinstance(eth0.observed, dict) and isinstance(eth1.observed, dict)
        assert eth0.observed["rp_cnp_handled"] < eth1.observed["rp_cnp_handled"], (eth0.observed, eth1.observed)
