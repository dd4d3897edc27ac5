"""Cumulus load balancing end to end against the lab (real Netmiko, loopback): a lab-mini leaf with mode adaptive
and a hash seed deploys (the change is flagged as restarting switchd), reads back and audits clean; a changed seed
and adaptive routing turned off on one fabric port are each one finding at their path; a redeploy repairs both."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini
from netmiko import ConnectHandler

from roceops.deploy.device import deploy_device
from roceops.device.change import RenderedDevice, Snapshot
from roceops.device.compare import Drift, compare
from roceops.device.intent import SwitchIntent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.cumulus import DRIVER, PLATFORM
from roceops.platforms.cumulus.driver import diff_commands
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

LEAF = "leaf-su2-r1"
SEED = 1931
FABRIC_PORTS = ["swp3s0", "swp3s1", "swp4s0", "swp4s1"]


@cache
def fabric() -> Fabric:
    """lab-mini with adaptive routing and a seed on its Cumulus leaves (SN5600, 2x400G uplinks: LB004/LB005 quiet)."""
    data = lab_mini().intent.model_dump(mode="json", exclude_unset=True)
    data["overrides"]["groups"]["cumulus"]["load_balancing"].update(mode="adaptive", hash_seed=SEED)
    return expand(FabricIntent.model_validate(data))


@cache
def intent() -> SwitchIntent:
    i = plan(fabric(), LEAF)
    assert isinstance(i, SwitchIntent)
    return i


@cache
def rendered() -> RenderedDevice:
    return render_device(intent())


def test_expected_has_adaptive_routing_on_the_fabric_ports_only() -> None:
    want = DRIVER.expected(intent())
    assert want.load_balancing is not None
    assert (want.load_balancing.mode, want.load_balancing.hash_seed) == ("adaptive", SEED)
    assert want.ports is not None
    assert sorted(n for n, p in want.ports.items() if p.adaptive_routing) == FABRIC_PORTS
    assert all(p.adaptive_routing is False for n, p in want.ports.items() if n not in FABRIC_PORTS)
    plain = plan(lab_mini(), LEAF)  # mode ecmp: every port expects it off, as NVUE shows an unset port
    assert all(p.adaptive_routing is False for p in (DRIVER.expected(plain).ports or {}).values())


def test_a_seed_change_is_flagged_and_a_dropped_seed_is_unset() -> None:
    text = rendered().files["nvue.commands"]
    other_seed = Snapshot(format="nvue_commands", text=text.replace(f"hash-seed {SEED}", "hash-seed 7"))
    change = DRIVER.diff(other_seed, rendered(), intent())
    assert change.payload == [f"nv set system forwarding hash-seed {SEED}"]
    assert change.summary == {"set": 1, "unset": 0, "restarts_switchd": 1}
    other_port = Snapshot(format="nvue_commands", text=text.replace("swp3s1 router adaptive-routing enable on",
                                                                    "swp3s1 router adaptive-routing enable off"))
    assert DRIVER.diff(other_port, rendered(), intent()).summary == {"set": 1, "unset": 0}  # AR reloads, no restart
    without = "".join(line + "\n" for line in text.splitlines() if "hash-seed" not in line
                      and "adaptive-routing" not in line)
    unsets, sets = diff_commands(text, without)
    assert sets == [] and unsets == [
        *(f"nv unset interface {p} router" for p in FABRIC_PORTS),
        "nv unset router adaptive-routing enable", "nv unset system forwarding hash-seed"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    spec = lab_specs(fabric(), [LEAF])[0]  # a new switch: factory config only
    base, port = free_endpoint_base()
    thread = LabThread([spec], tmp_path_factory.mktemp("cumulus-lb") / "state", port=port, base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


@dataclass
class Connector:
    endpoint: dict[str, Any]
    conn: Any = None

    def connect(self) -> Any:
        if self.conn is None:
            o = self.endpoint
            extras = {**PLATFORM.netmiko.extras, "read_timeout_override": 10}
            self.conn = ConnectHandler(device_type=PLATFORM.netmiko.device_type, host=o["host"], port=o["port"],
                                       username=o["username"], use_keys=True, key_file=o["key_file"],
                                       allow_agent=False, **extras)
        return self.conn

    def reconnect(self) -> Any:
        old, self.conn = self.conn, None
        with contextlib.suppress(Exception):
            old.disconnect()
        return self.connect()


def audit(conn: Any) -> list[Drift]:
    return compare(DRIVER.expected(intent()), DRIVER.observe(DRIVER.collect(conn, intent())))


def deploy(connector: Connector) -> Any:
    return deploy_device(DRIVER, connector, rendered(), intent(), commit=True, txn="roceops-lb", confirm_timeout_s=60)


@pytest.mark.lab
def test_deploy_audit_drift_and_repair(lab: LabThread) -> None:
    connector = Connector(lab.overlay[LEAF])
    try:
        out = deploy(connector)
        assert out.status == "changed", out.error
        assert out.summary["restarts_switchd"] == 1  # the seed's apply restarts switchd: the deploy table shows it
        config = connector.connect().send_command("nv config show -o commands")
        assert f"nv set system forwarding hash-seed {SEED}" in config.splitlines()
        assert "nv set interface swp3s0 router adaptive-routing enable on" in config.splitlines()
        observed = DRIVER.observe(DRIVER.collect(connector.connect(), intent()))
        assert observed.load_balancing is not None and observed.load_balancing.hash_seed == SEED
        assert audit(connector.connect()) == []
        again = deploy(connector)
        assert (again.status, again.diff) == ("unchanged", "")

        lab.inject(LEAF, "hash_seed", seed=7)
        lab.inject(LEAF, "ar_off", port="swp3s1")
        drift = audit(connector.connect())
        assert [(d.path, d.expected, d.observed) for d in drift] == [
            ("ports[swp3s1].adaptive_routing", True, False), ("load_balancing.hash_seed", SEED, 7)]

        lab.clear(LEAF)
        repair = deploy(connector)
        assert repair.status == "changed" and repair.summary == {"set": 2, "unset": 0, "restarts_switchd": 1}, \
            repair.diff
        assert audit(connector.connect()) == []
    finally:
        if connector.conn is not None:
            connector.conn.disconnect()


@pytest.mark.lab
def test_the_lab_refuses_a_seed_out_of_range(lab: LabThread) -> None:
    conn = Connector(lab.overlay[LEAF]).connect()
    try:
        out = conn.send_command("nv set system forwarding hash-seed 4294967296")
        assert "Error: Invalid Command" in out and "integer:0 - 4294967295" in out
        out = conn.send_command("nv set interface swp1s0 router adaptive-routing enable maybe")
        assert "Error: Invalid Command" in out and "enum:on, off" in out
        conn.send_command("nv config detach")
    finally:
        conn.disconnect()
