"""Issue 6 against the lab: clean after deploy; each injected drift found at its exact device and path only."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from labkit import changed_host_keys, deployed_lab, fresh_lab  # noqa: F401  (fixtures)
from prometheus_client.parser import text_string_to_metric_families

from roceops.audit.engine import AuditOptions, run_audit
from roceops.audit.report import to_junit, to_prometheus

pytestmark = pytest.mark.lab

# (device, fault, params, path prefix every finding must have)
DRIFTS = [
    ("leaf-su1-r1", "pfc_off", {"port": "Ethernet0"}, "ports[Ethernet0]"),
    ("leaf-su2-r1", "pfc_off", {"port": "swp1s0"}, "ports[swp1s0]"),
    ("spine01", "pfc_off", {"port": "Ethernet1/1"}, "ports[Ethernet1/1]"),
    ("leaf-su1-r2", "ecn_changed", {"min": 50000, "max": 60000}, "ports["),  # SONiC binds queues per port
    ("leaf-su2-r2", "ecn_changed", {"min": 50000, "max": 60000}, "qos.queues[3].ecn"),
    ("spine02", "ecn_changed", {"min": 50000, "max": 60000}, "ports["),  # EOS configures queues per interface
    ("leaf-su1-r1", "mtu_mismatch", {"port": "Ethernet8", "mtu": 1500}, "ports[Ethernet8].mtu"),
    # an operator pins a hash seed lab-mini leaves to switchd's own: a redeploy unsets it
    ("leaf-su2-r1", "hash_seed", {"seed": 7}, "load_balancing.hash_seed"),
    ("gpu001", "nic_reset", {"port": "eth0"}, "nics[eth0]"),
    ("gpu006", "mtu_mismatch", {"port": "eth1", "mtu": 1500}, "nics[eth1].mtu"),
    # a switch reporting another release than its fabric's: one facts.mismatch finding
    ("leaf-su1-r1", "facts", {"version": "202405.1"}, "facts"),
    ("leaf-su2-r1", "facts", {"version": "5.15.0"}, "facts"),
    ("spine01", "facts", {"version": "4.26.1F"}, "facts"),
]


def audit(lab, names=None, shards=None):
    return run_audit(lab.fabric, names or lab.names,
                     AuditOptions(lab_dir=lab.state_dir, quiet=True, timeout_s=10, shards=shards))


def remediate(lab, devices) -> None:
    lab.thread.clear(None)
    report = lab.deploy(sorted(set(devices)))
    assert report.exit_code == 0, {n: (o.status, o.error) for n, o in report.outcomes.items()}


def test_deployed_lab_audits_clean(deployed_lab) -> None:
    result = audit(deployed_lab)
    assert result.exit_code == 0, [(f.device, f.path, f.expected, f.observed) for f in result.findings]
    junit = ET.fromstring(to_junit(result))
    suite = junit.find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("tests") == str(len(deployed_lab.names))
    families = {f.name: f for f in text_string_to_metric_families(to_prometheus(result))}
    assert families["roceops_audit_findings"].samples[0].value == 0
    assert len(families["roceops_audit_device_ok"].samples) == len(deployed_lab.names)


@pytest.mark.parametrize(("device", "fault", "params", "prefix"), DRIFTS, ids=[f"{d[0]}-{d[1]}" for d in DRIFTS])
def test_each_drift_found_exactly(deployed_lab, device: str, fault: str, params: dict, prefix: str) -> None:
    deployed_lab.thread.inject(device, fault, **params)
    try:
        result = audit(deployed_lab)
        assert result.exit_code == 1
        found = [(f.device, f.path) for f in result.findings]
        assert found, "drift not found"
        assert all(d == device and p.startswith(prefix) for d, p in found), found
    finally:
        remediate(deployed_lab, [device])
    assert audit(deployed_lab, [device]).findings == []


def test_sharded_audit_gives_the_same_findings(deployed_lab) -> None:
    """Devices read by forked shard processes (as large audits are) report what one process finds, including
    a drift that shows on both ends of a host-leaf link read by different shards."""
    deployed_lab.thread.inject("gpu003", "nic_reset", port="eth1")
    deployed_lab.thread.inject("leaf-su1-r1", "pfc_off", port="Ethernet0")
    try:
        serial = audit(deployed_lab)
        sharded = run_audit(deployed_lab.fabric, deployed_lab.names,
                            AuditOptions(lab_dir=deployed_lab.state_dir, quiet=True, timeout_s=10, shards=3))
    finally:
        remediate(deployed_lab, ["gpu003", "leaf-su1-r1"])
    assert (serial.shards, sharded.shards) == (1, 3)
    assert [f.model_dump() for f in sharded.findings] == [f.model_dump() for f in serial.findings]
    assert {f.device for f in sharded.findings} == {"gpu003", "leaf-su1-r1"}
    assert [a.device for a in sharded.audits] == deployed_lab.names


@pytest.mark.parametrize("shards", [None, 3], ids=["one process", "three shards"])
def test_unreachable_device_is_its_own_finding(deployed_lab, shards) -> None:
    deployed_lab.thread.inject("spine02", "refuse")
    try:
        result = audit(deployed_lab, shards=shards)
    finally:
        deployed_lab.thread.clear("spine02")
    assert result.exit_code == 2
    assert [(f.device, f.check) for f in result.findings] == [("spine02", "device.unreachable")]
    junit = ET.fromstring(to_junit(result))
    errors = [c.get("name") for c in junit.iter("testcase") if c.find("error") is not None]
    assert errors == ["spine02"]
    data = json.loads(json.dumps([f.model_dump(mode="json") for f in result.findings]))
    assert data[0]["device"] == "spine02"


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.sampled_from(range(len(DRIFTS))), min_size=1, max_size=4))
def test_random_drift_sets_all_found_no_false_positives(deployed_lab, picks: set[int]) -> None:
    chosen = [DRIFTS[i] for i in sorted(picks)]
    devices = {c[0] for c in chosen}
    if len(devices) != len(chosen):  # one fault per device keeps the expected set unambiguous
        return
    for device, fault, params, _ in chosen:
        deployed_lab.thread.inject(device, fault, **params)
    try:
        result = audit(deployed_lab)
        found = {(f.device, f.path) for f in result.findings}
        for device, _, _, prefix in chosen:
            assert any(d == device and p.startswith(prefix) for d, p in found), (device, prefix, found)
        allowed = {(d, pre) for d, _, _, pre in chosen}
        assert all(any(d == ad and p.startswith(pre) for ad, pre in allowed) for d, p in found), found
    finally:
        remediate(deployed_lab, devices)


def test_a_shard_that_dies_names_every_device_it_did_not_report(deployed_lab, monkeypatch) -> None:
    """A shard process killed mid-audit (here: it exits while auditing spine02) costs only its unreported
    devices, each a device.failed finding (exit 2); the other shards' devices are audited as usual."""
    import os

    import roceops.audit.engine as engine

    real = engine.audit_device

    def dies_on_spine02(task, fabric, *rest):
        if task.host.name == "spine02":
            os._exit(3)
        return real(task, fabric, *rest)

    monkeypatch.setattr(engine, "audit_device", dies_on_spine02)
    result = run_audit(deployed_lab.fabric, deployed_lab.names,
                       AuditOptions(lab_dir=deployed_lab.state_dir, quiet=True, timeout_s=10, shards=3))
    assert result.exit_code == 2
    failed = {f.device for f in result.findings if f.check == "device.failed"}
    assert "spine02" in failed
    assert {f.check for f in result.findings} == {"device.failed"}  # the devices that were read show no drift
    shard_of_spine02 = set(deployed_lab.names[deployed_lab.names.index("spine02") % 3::3])
    assert failed <= shard_of_spine02
    assert all("exit status 3" in f.message for f in result.findings)
    assert [a.device for a in result.audits] == deployed_lab.names


def test_a_device_roceops_fails_on_is_device_failed_and_the_rest_is_audited(deployed_lab, monkeypatch) -> None:
    import roceops.audit.device as device

    real = device.plan

    def plan_fails_for_gpu002(fabric, name):
        if name == "gpu002":
            raise ValueError("a planning bug")
        return real(fabric, name)

    monkeypatch.setattr(device, "plan", plan_fails_for_gpu002)
    result = audit(deployed_lab)
    assert [(f.device, f.check) for f in result.findings] == [("gpu002", "device.failed")]
    assert "ValueError: a planning bug" in result.findings[0].message and result.exit_code == 2
    assert {a.device: a.platform for a in result.audits}["gpu002"] == "linux_mlx5"


def test_host_keys_checked_against_known_hosts_when_asked(deployed_lab, monkeypatch, tmp_path) -> None:
    """ROCEOPS_KNOWN_HOSTS: the lab's own known_hosts lets every device through; a changed key or a device
    missing from the file refuses the connection, named as such, on every platform."""
    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(deployed_lab.state_dir / "known_hosts"))
    assert audit(deployed_lab).findings == []

    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(changed_host_keys(deployed_lab, tmp_path / "changed")))
    changed = audit(deployed_lab, shards=2)
    assert {f.device for f in changed.findings} == set(deployed_lab.names) and changed.exit_code == 2
    assert all(f.check == "device.unreachable" and "does not match" in f.message for f in changed.findings)

    (tmp_path / "empty").write_text("")
    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(tmp_path / "empty"))
    unknown = audit(deployed_lab, ["spine01", "gpu001"])
    assert [(f.device, f.check) for f in unknown.findings] == [("gpu001", "device.unreachable"),
                                                               ("spine01", "device.unreachable")]
    assert all("not found in known_hosts" in f.message for f in unknown.findings)


TWO_PORTS = [("leaf-su1-r1", ("Ethernet0", "Ethernet8")), ("leaf-su2-r1", ("swp1s0", "swp1s1")),
             ("spine01", ("Ethernet1/1", "Ethernet2/1"))]


@pytest.mark.parametrize("fault", ["mtu_mismatch", "pfc_off"])
@pytest.mark.parametrize(("device", "ports"), TWO_PORTS, ids=[d for d, _ in TWO_PORTS])
def test_per_port_drift_on_two_ports_is_two_findings(deployed_lab, device: str, ports: tuple[str, str],
                                                     fault: str) -> None:
    """Issue 15: every departing port is its own finding at its port, not only the first one the parser meets."""
    field = {"mtu_mismatch": "mtu", "pfc_off": "pfc_priorities"}[fault]
    for port in ports:
        deployed_lab.thread.inject(device, fault, port=port, **({"mtu": 1500} if fault == "mtu_mismatch" else {}))
    try:
        result = audit(deployed_lab, [device])
        paths = sorted(f.path for f in result.findings if f.device == device and f.path.endswith(f".{field}"))
        assert paths == sorted(f"ports[{p}].{field}" for p in ports), [(f.device, f.path) for f in result.findings]
    finally:
        remediate(deployed_lab, [device])
