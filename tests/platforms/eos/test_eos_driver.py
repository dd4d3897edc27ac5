"""The EOS driver end to end: ``deploy_device`` onto lab-mini's EOS spines over real Netmiko sessions to an
in-process lab, audit read-back, dry run, and every way a transaction can fail (refused line, dropped session,
confirm that does not take, commit timer that ran out) ending byte-identical to the backup."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini
from netmiko import ConnectHandler

from roceops.deploy.device import deploy_device, restore_device
from roceops.device.change import ConfirmNotTaken, RenderedDevice
from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.eos import DRIVER, PLATFORM
from roceops.platforms.eos import parsers as p
from roceops.platforms.eos.driver import EosDriver
from roceops.platforms.templating import render_device

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[3]


@cache
def intent(name: str) -> SwitchIntent:
    i = plan(lab_mini(), name)
    assert isinstance(i, SwitchIntent)
    return i


def rendered(name: str) -> RenderedDevice:
    return render_device(intent(name))


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LabThread]:
    """Both lab-mini spines, fresh: cabled and bootstrapped, no roceops configuration yet."""
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(lab_mini(), ["spine01", "spine02"]), tmp_path / "lab", port=port,
                       base_address=base).start()
    try:
        yield thread
    finally:
        thread.stop()


class LabConnector:
    """deploy's Connector over the lab; ``drop_after`` arms the lab's ``drop`` fault right after connecting."""

    def __init__(self, lab: LabThread, device: str, drop_after: int | None = None) -> None:
        self.lab, self.device, self.drop_after = lab, device, drop_after
        self.conns: list[Any] = []

    def connect(self) -> Any:
        o = self.lab.overlay[self.device]
        conn = ConnectHandler(device_type=PLATFORM.netmiko.device_type, host=o["host"], port=o["port"],
                              username=o["username"], use_keys=True, key_file=o["key_file"], allow_agent=False,
                              **PLATFORM.netmiko.extras)
        self.conns.append(conn)
        if self.drop_after is not None:
            self.lab.inject(self.device, "drop", after=self.drop_after)
            self.drop_after = None
        return conn

    def reconnect(self) -> Any:
        with suppress(Exception):
            self.conns[-1].disconnect()
        return self.connect()

    def close(self) -> None:
        for conn in self.conns:
            with suppress(Exception):
                conn.disconnect()


@pytest.fixture
def connector(lab: LabThread) -> Iterator[Any]:
    made: list[LabConnector] = []

    def make(device: str, drop_after: int | None = None) -> LabConnector:
        made.append(LabConnector(lab, device, drop_after))
        return made[-1]

    yield make
    for c in made:
        c.close()


def deploy(connector: Any, device: str, *, commit: bool = True, txn: str = "roceops-t1", **kw: Any) -> Any:
    return deploy_device(DRIVER, connector(device, **kw), rendered(device), intent(device), commit=commit, txn=txn,
                         confirm_timeout_s=120)


def read(connector: Any, device: str) -> str:
    return DRIVER.read_config(connector(device).connect()).text


# --------------------------------------------------------------------------- happy path


def test_registered_as_the_eos_driver() -> None:
    assert get_driver("eos") is DRIVER


def test_deploy_fresh_spine_audits_clean_and_redeploy_is_unchanged(connector: Any) -> None:
    first = deploy(connector, "spine01")
    assert (first.status, first.error) == ("changed", None)
    assert first.summary["add"] > 100 and "router bgp 4200100000" in first.diff
    conn = connector("spine01").connect()
    outputs = DRIVER.collect(conn, intent("spine01"))
    assert compare(DRIVER.expected(intent("spine01")), DRIVER.observe(outputs)) == []
    oper = for_intent(DRIVER.operational(outputs), intent("spine01"))
    assert set(oper.ports) == set(intent("spine01").ports) and all(p.oper_up for p in oper.ports.values())
    counters = for_intent(DRIVER.operational(DRIVER.collect_counters(conn, intent("spine01"))), intent("spine01"))
    keys = {n: set(p.counters) for n, p in counters.ports.items()}
    assert keys == {n: set(p.counters) for n, p in oper.ports.items()}
    assert not counters.bgp and not counters.lldp and counters.os_version is None
    assert {ip: s.state for ip, s in oper.bgp.items()} == {n.ip: "Established" for n in intent("spine01").bgp.neighbors}
    assert {port: (n.device, n.port) for port, n in oper.lldp.items()} == {
        name: (p.peer_device, p.peer_port) for name, p in intent("spine01").ports.items()}
    assert oper.os_version == "4.32.2F" and oper.ports["Ethernet1/1"].speed == 400_000
    assert {"pfc_rx_3", "pfc_tx_3", "ecn_marked", "crc_errors", "pfcwd_storms", "rx_packets"} <= set(
        oper.ports["Ethernet1/1"].counters)
    startup = conn.send_command("show startup-config")  # the confirm saved the change
    assert startup.splitlines()[1:] == DRIVER.read_config(conn).text.splitlines()[1:]
    second = deploy(connector, "spine01", txn="roceops-t2")
    assert (second.status, second.diff) == ("unchanged", "")


def test_dry_run_changes_nothing(connector: Any) -> None:
    before = read(connector, "spine02")
    outcome = deploy(connector, "spine02", commit=False)
    assert outcome.status == "would_change" and outcome.diff
    assert read(connector, "spine02") == before
    assert outcome.backup is not None and outcome.backup.text == before


def test_audit_finds_injected_drift_and_redeploy_fixes_it(lab: LabThread, connector: Any) -> None:
    assert deploy(connector, "spine02").status == "changed"
    lab.inject("spine02", "pfc_off", port="Ethernet1/1")
    lab.inject("spine02", "ecn_changed", min=51200, max=512000)
    lab.inject("spine02", "mtu_mismatch", port="Ethernet2/1")
    want = intent("spine02")
    observed = DRIVER.observe(DRIVER.collect(connector("spine02").connect(), want))
    drift = {d.path: d.observed for d in compare(DRIVER.expected(want), observed)}
    ecn = {f"ports[{name}].queues[3].ecn.{field}": value for name in want.ports  # every port's own queues
           for field, value in (("min_bytes", 51200), ("max_bytes", 512000))}
    assert drift == {"ports[Ethernet1/1].pfc_priorities": [], "ports[Ethernet2/1].mtu": 1500, **ecn}
    assert len(ecn) == 16
    fixed = deploy(connector, "spine02", txn="roceops-fix")
    assert fixed.status == "changed" and fixed.summary["add"] < 40
    observed = DRIVER.observe(DRIVER.collect(connector("spine02").connect(), want))
    assert compare(DRIVER.expected(want), observed) == []


# --------------------------------------------------------------------------- failures end at the backup


def test_rejected_config_rolls_back_byte_identical(lab: LabThread, connector: Any) -> None:
    before = read(connector, "spine01")
    lab.inject("spine01", "reject_config")
    outcome = deploy(connector, "spine01")
    assert outcome.status == "rolled_back"
    assert outcome.error is not None and "Unavailable command" in outcome.error
    assert read(connector, "spine01") == before
    lab.clear("spine01")
    assert deploy(connector, "spine01", txn="roceops-t2").status == "changed"


def test_session_dropped_mid_push_rolls_back(connector: Any) -> None:
    before = read(connector, "spine01")
    # after connecting: show running-config (backup), configure session, then ~20 lines, then the reset
    outcome = deploy(connector, "spine01", drop_after=22)
    assert outcome.status == "rolled_back", outcome.error
    assert outcome.error is not None and "connection to the device lost" in outcome.error
    assert "'show" not in outcome.error and "'configure" not in outcome.error  # it died on a config line
    assert read(connector, "spine01") == before
    conn = connector("spine01").connect()
    conn.enable()
    sessions = p.parse_sessions_json(conn.send_command(p.CMD_SESSIONS))
    assert "roceops-t1" not in sessions  # the abandoned session was aborted, not left pending


def test_confirm_that_does_not_take_rolls_back(connector: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    before = read(connector, "spine02")
    monkeypatch.setattr(EosDriver, "confirm_command", "show clock")  # the "confirm" leaves the timer running
    outcome = deploy(connector, "spine02")
    assert outcome.status == "rolled_back"
    assert outcome.error is not None and outcome.error.startswith("ConfirmNotTaken")
    assert read(connector, "spine02") == before


def test_commit_timer_expiry_is_reported_and_already_reverted(connector: Any) -> None:
    conn = connector("spine01").connect()
    backup = DRIVER.read_config(conn)
    change = DRIVER.diff(backup, rendered("spine01"), intent("spine01"))
    DRIVER.apply(conn, change, "roceops-short", 2)
    assert DRIVER.read_config(conn).text != backup.text
    time.sleep(2.2)
    with pytest.raises(ConfirmNotTaken, match="commit timer ran out"):
        DRIVER.confirm(conn, "roceops-short")
    DRIVER.abort(conn, "roceops-short", backup)
    assert DRIVER.read_config(conn).text == backup.text


def test_abort_restores_the_backup_when_no_session_can_undo(connector: Any) -> None:
    conn = connector("spine02").connect()
    backup = DRIVER.read_config(conn)
    conn.enable()
    conn.send_config_set(["hostname renamed", "interface Ethernet1/1", "mtu 1500", "ntp server 192.0.2.9"])
    DRIVER.abort(conn, "roceops-none", backup)  # no pending session: full replace from the backup
    assert DRIVER.read_config(conn).text == backup.text


def test_restore_device_goes_back_to_a_journal_backup(connector: Any) -> None:
    first = deploy(connector, "spine01")
    assert first.status == "changed" and first.backup is not None
    undo = restore_device(DRIVER, connector("spine01"), "spine01", "eos", first.backup, commit=True,
                          txn="roceops-undo", confirm_timeout_s=120)
    assert undo.status == "changed", undo.error
    assert read(connector, "spine01") == first.backup.text
