"""deploy_device/restore_device with the Cumulus NVUE driver against the lab (real Netmiko, loopback): a fresh
leaf of lab-mini gets configured and audits clean, a second deploy changes nothing, a dry run touches
nothing, and every failure (refused command, session dropped mid-push, confirm that does not take) ends with
the device byte-identical to its backup."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini
from netmiko import ConnectHandler

from roceops.deploy.device import deploy_device, restore_device
from roceops.device.change import ConfirmNotTaken, RenderedDevice
from roceops.device.compare import Drift, compare
from roceops.device.intent import SwitchIntent
from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.cumulus import DRIVER, PLATFORM
from roceops.platforms.cumulus.driver import CumulusDriver
from roceops.platforms.templating import render_device

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[3]
LEAF = "leaf-su2-r1"
DEVICES = ("deploy", "dry", "reject", "drop", "noconfirm", "faults", "restore")


@cache
def intent() -> SwitchIntent:
    i = plan(lab_mini(), LEAF)
    assert isinstance(i, SwitchIntent)
    return i


@cache
def rendered() -> RenderedDevice:
    return render_device(intent())


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    fresh = lab_specs(lab_mini(), [LEAF])[0]  # a new switch: factory config only
    specs = [fresh.model_copy(update={"name": n}, deep=True) for n in DEVICES]
    base, port = free_endpoint_base()
    thread = LabThread(specs, tmp_path_factory.mktemp("cumulus-deploy") / "state", port=port, base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


@dataclass
class Connector:
    """deploy's Connector over Netmiko; a short read timeout so a dead session is noticed quickly."""

    endpoint: dict[str, Any]
    read_timeout: int = 10
    conn: Any = None
    opened: int = 0

    def connect(self) -> Any:
        if self.conn is None:
            o = self.endpoint
            extras = {**PLATFORM.netmiko.extras, "read_timeout_override": self.read_timeout}
            self.conn = ConnectHandler(device_type=PLATFORM.netmiko.device_type, host=o["host"], port=o["port"],
                                       username=o["username"], use_keys=True, key_file=o["key_file"],
                                       allow_agent=False, **extras)
            self.opened += 1
        return self.conn

    def reconnect(self) -> Any:
        old, self.conn = self.conn, None
        with contextlib.suppress(Exception):  # already dead
            old.disconnect()
        return self.connect()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.disconnect()


@pytest.fixture
def connector(lab: LabThread, request: pytest.FixtureRequest) -> Iterator[Connector]:
    """``request.param``: a device name, or (name, read timeout in seconds)."""
    name, timeout = request.param if isinstance(request.param, tuple) else (request.param, 10)
    c = Connector(lab.overlay[name], read_timeout=timeout)
    try:
        yield c
    finally:
        c.close()


def audit(conn: Any) -> list[Drift]:
    return compare(DRIVER.expected(intent()), DRIVER.observe(DRIVER.collect(conn, intent())))


def deploy(connector: Connector, *, commit: bool = True, driver: Any = DRIVER, timeout: int = 60) -> Any:
    return deploy_device(driver, connector, rendered(), intent(), commit=commit, txn="roceops-test",
                         confirm_timeout_s=timeout)


# --------------------------------------------------------------------------- happy path


@pytest.mark.parametrize("connector", ["deploy"], indirect=True)
def test_fresh_leaf_deploys_audits_clean_and_redeploys_unchanged(connector: Connector) -> None:
    before = audit(connector.connect())
    assert len(before) > 50  # a factory switch is far from the intent
    out = deploy(connector)
    assert out.status == "changed", out.error
    assert out.backup is not None and out.backup.format == "nvue_commands"
    assert out.backup.text.splitlines()[-1] == f"nv set system hostname {LEAF}"
    assert out.summary == {"set": len(rendered().files["nvue.commands"].splitlines()) - 1, "unset": 0}
    assert audit(connector.connect()) == []
    oper = for_intent(DRIVER.operational(DRIVER.collect(connector.connect(), intent())), intent())
    assert {ip: s.state for ip, s in oper.bgp.items()} == {n.ip: "Established" for n in intent().bgp.neighbors}
    assert oper.lldp["swp3s0"].device == "spine01"
    # a health check's second sample: counters of the named ports only, no configuration or BGP reads
    some = sorted(intent().ports)[:2]
    raw = DRIVER.collect_counters(connector.connect(), intent(), some)
    assert len(raw) == 2 + 4 * len(some) and not any("config" in c or "bgp" in c for c in raw)
    counters = for_intent(DRIVER.operational(raw), intent())
    assert not counters.bgp and counters.os_version is None
    for name in intent().ports:
        want = set(oper.ports[name].counters) if name in some else {"carrier_changes", "rx_packets", "tx_packets",
                                                                     "fec_uncorrected", "symbol_errors"}
        assert set(counters.ports[name].counters) == want, name
        assert counters.ports[name].oper_up == oper.ports[name].oper_up
    again = deploy(connector)
    assert (again.status, again.diff) == ("unchanged", "")
    states = connector.connect().send_command("nv config apply --confirm-status")
    assert states == "No configuration is waiting for confirmation."


@pytest.mark.parametrize("connector", ["dry"], indirect=True)
def test_dry_run_changes_nothing(connector: Connector) -> None:
    out = deploy(connector, commit=False)
    assert out.status == "would_change" and out.diff.startswith("nv set interface lo type loopback")
    assert out.backup is not None
    assert DRIVER.read_config(connector.connect()).text == out.backup.text
    revisions = connector.connect().send_command("nv config revision").splitlines()
    assert len(revisions) == 3  # header, dashes, the factory revision


# --------------------------------------------------------------------------- failures roll back


@pytest.mark.parametrize("connector", ["reject"], indirect=True)
def test_rejected_config_rolls_back_to_an_identical_backup(lab: LabThread, connector: Connector) -> None:
    lab.inject("reject", "reject_config")
    try:
        out = deploy(connector)
    finally:
        lab.clear("reject")
    assert out.status == "rolled_back", out.error
    assert out.error and "refused the change" in out.error and "Invalid config" in out.error
    assert out.backup is not None and DRIVER.read_config(connector.connect()).text == out.backup.text


@pytest.mark.parametrize("connector", [pytest.param(("drop", 2), id="drop")], indirect=True)
def test_session_dropped_mid_push_rolls_back(lab: LabThread, connector: Connector) -> None:
    connector.connect()
    lab.inject("drop", "drop", after=3)  # answers read_config, detach and the first chain of nv set, then resets
    out = deploy(connector)
    assert out.status == "rolled_back", out.error
    assert connector.opened == 2  # the abort ran on a fresh session
    assert out.backup is not None and DRIVER.read_config(connector.connect()).text == out.backup.text
    assert "pending" not in connector.connect().send_command("nv config revision")


class LateConfirm(CumulusDriver):
    """Confirms only after the commit-confirmed timer ran out (a slow or stuck control plane)."""

    def confirm(self, conn: Any, txn: str) -> None:
        time.sleep(1.3)
        super().confirm(conn, txn)


@pytest.mark.parametrize("connector", ["noconfirm"], indirect=True)
def test_confirm_that_does_not_take_rolls_back(connector: Connector) -> None:
    driver = LateConfirm()
    conn = connector.connect()
    backup = driver.read_config(conn)
    change = driver.diff(backup, rendered(), intent())
    driver.apply(conn, change, "direct", 1)
    with pytest.raises(ConfirmNotTaken, match="no pending confirm"):
        driver.confirm(conn, "direct")
    assert driver.read_config(conn).text == backup.text  # the switch reverted on its own
    out = deploy(connector, driver=LateConfirm(), timeout=1)
    assert out.status == "rolled_back" and out.error and out.error.startswith("ConfirmNotTaken")
    assert out.backup is not None and driver.read_config(conn).text == out.backup.text == backup.text


# --------------------------------------------------------------------------- drift and restore


@pytest.mark.parametrize("connector", ["faults"], indirect=True)
def test_injected_drift_is_found_and_a_redeploy_repairs_it(lab: LabThread, connector: Connector) -> None:
    assert deploy(connector).status == "changed"
    lab.inject("faults", "pfc_off", port="swp1s1")
    lab.inject("faults", "ecn_changed")
    lab.inject("faults", "mtu_mismatch", port="swp2s0", mtu=1500)
    paths = {d.path for d in audit(connector.connect())}
    assert paths == {"ports[swp1s1].pfc_priorities", "qos.queues[3].ecn.min_bytes", "qos.queues[3].ecn.max_bytes",
                     "ports[swp2s0].mtu"}
    lab.clear("faults")
    out = deploy(connector)
    assert out.status == "changed" and out.summary == {"set": 3, "unset": 2}, out.diff
    assert "nv unset qos pfc pfc-swp1s1" in out.diff
    assert audit(connector.connect()) == []


@pytest.mark.parametrize("connector", ["restore"], indirect=True)
def test_restore_to_a_journal_backup(connector: Connector) -> None:
    first = deploy(connector)
    assert first.status == "changed" and first.backup is not None
    out = restore_device(DRIVER, connector, "restore", "cumulus", first.backup, commit=True, txn="roceops-undo",
                         confirm_timeout_s=60)
    assert out.status == "changed", out.error
    assert out.summary["unset"] > 0
    assert DRIVER.read_config(connector.connect()).text == first.backup.text
