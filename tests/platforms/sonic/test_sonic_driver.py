"""deploy_device / restore_device with the SONiC driver against the lab over Netmiko (loopback only).

The unconfigured lab-mini leaf ``leaf-su1-r1`` and three copies of it (same hardware and cabling, other lab
names) run in one lab, one per scenario, so no scenario depends on another's leftovers.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini
from netmiko import ConnectHandler

from roceops.deploy.device import deploy_device, restore_device
from roceops.device.change import RenderedDevice
from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.sonic import DRIVER, PLATFORM
from roceops.platforms.sonic.driver import patch_file_text
from roceops.platforms.templating import render_device

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[3]
LEAF = "leaf-su1-r1"
DEVICES = (LEAF, "sonic-b", "sonic-c", "sonic-d")  # the leaf itself and three copies of it


@pytest.fixture(scope="module")
def intent() -> SwitchIntent:
    fab = lab_mini()
    found = plan(fab, LEAF)
    assert isinstance(found, SwitchIntent)
    return found


@pytest.fixture(scope="module")
def rendered(intent: SwitchIntent) -> RenderedDevice:
    return render_device(intent)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    fab = lab_mini()
    spec = lab_specs(fab, [LEAF])[0]
    base, port = free_endpoint_base()
    # sonic-b/c/d test the day-2 transaction: they run an earlier render (other ECN thresholds and watchdog
    # timers), so their change is one apply-patch accepts; the leaf itself starts fresh (a bring-up)
    earlier = json.loads(render_device(plan(fab, LEAF)).files["config_db.json"])
    earlier["WRED_PROFILE"]["AZURE_LOSSLESS"]["green_min_threshold"] = "100000"
    for key, entry in earlier["PFC_WD"].items():
        if key != "GLOBAL":
            entry["detection_time"] = "400"
    specs = [spec.model_copy(update={"name": name, **({} if name == LEAF else {"extra": {
        **spec.extra, "preload_files": {"config_db.json": json.dumps(earlier)}}})}) for name in DEVICES]
    thread = LabThread(specs, tmp_path_factory.mktemp("sonic-deploy"), port=port, base_address=base).start()
    try:
        yield thread
    finally:
        thread.stop()


class Connector:
    """deploy.device's Connector over plain Netmiko (the Nornir one does the same with the host's connection)."""

    def __init__(self, lab: LabThread, name: str) -> None:
        self.endpoint = lab.overlay[name]
        self.conn: Any = None
        self.reconnects = 0

    def _open(self) -> Any:
        o = self.endpoint
        return ConnectHandler(device_type=PLATFORM.netmiko.device_type, host=o["host"], port=o["port"],
                              username=o["username"], use_keys=True, key_file=o["key_file"], allow_agent=False,
                              **PLATFORM.netmiko.extras)

    def connect(self) -> Any:
        if self.conn is None:
            self.conn = self._open()
        return self.conn

    def reconnect(self) -> Any:
        self.reconnects += 1
        self.close()
        self.conn = self._open()
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.disconnect()
            self.conn = None


@pytest.fixture
def connector(lab: LabThread, request: pytest.FixtureRequest) -> Iterator[Connector]:
    c = Connector(lab, request.param)
    try:
        yield c
    finally:
        c.close()


def fresh_read(lab: LabThread, name: str) -> tuple[str, list[str]]:
    """(running CONFIG_DB text, checkpoints) through a new session."""
    c = Connector(lab, name)
    try:
        conn = c.connect()
        return DRIVER.read_config(conn).text, json.loads(conn.send_command("sudo config list-checkpoints"))
    finally:
        c.close()


@pytest.mark.parametrize("connector", [LEAF], indirect=True)
def test_dry_run_deploy_audit_redeploy_restore(lab: LabThread, connector: Connector, intent: SwitchIntent,
                                               rendered: RenderedDevice) -> None:
    before, _ = fresh_read(lab, LEAF)
    dry = deploy_device(DRIVER, connector, rendered, intent, commit=False, txn="roceops-dry")
    assert dry.status == "would_change" and dry.summary["add"] > 0 and '"op": "add"' in dry.diff
    assert dry.path == "bringup"  # a fresh switch: GCU refuses the new tables, and the modes need a restart
    assert any("refuses add /PFC_WD: Modification of PFC_WD table is illegal" in r for r in dry.path_reasons)
    assert any(r.startswith("DEVICE_METADATA buffer_model (unset) -> traditional") for r in dry.path_reasons)
    assert fresh_read(lab, LEAF) == (before, [])  # a dry run changes nothing

    stopped = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="roceops-nobringup")
    assert stopped.status == "needs_bringup" and "re-run with --bringup" in (stopped.error or "")
    assert fresh_read(lab, LEAF) == (before, [])  # nothing sent without --bringup

    done = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="roceops-run1", bringup=True)
    assert done.status == "changed" and done.path == "bringup", done.error
    assert done.backup is not None and done.backup.text == before
    conn = connector.connect()
    outputs = DRIVER.collect(conn, intent)
    assert compare(DRIVER.expected(intent), DRIVER.observe(outputs)) == []
    saved = conn.send_command("sonic-cfggen -j /etc/sonic/config_db.json --print-data")
    running, checkpoints = fresh_read(lab, LEAF)
    assert json.loads(saved) == json.loads(running) and checkpoints == []
    assert "No such file" in conn.send_command("cat /tmp/roceops-run1-bringup.json")

    oper = for_intent(DRIVER.operational(outputs), intent)
    assert set(oper.ports) == set(intent.ports) and all(p.oper_up for p in oper.ports.values())
    # a health check's second sample
    counters = for_intent(DRIVER.operational(DRIVER.collect_counters(conn, intent)), intent)
    keys = {n: set(p.counters) for n, p in counters.ports.items()}
    assert keys == {n: set(p.counters) for n, p in oper.ports.items()}
    assert not counters.bgp and not counters.lldp
    assert {"pfc_rx_3", "pfc_tx_3", "ecn_marked", "pfcwd_storms", "crc_errors", "fec_uncorrected",
            "carrier_changes"} <= set(oper.ports["Ethernet0"].counters)
    assert {n.ip for n in intent.bgp.neighbors} == set(oper.bgp)
    assert {s.state for s in oper.bgp.values()} == {"Established"}
    assert oper.lldp["Ethernet16"].device == "spine01" and oper.os_version

    again = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="roceops-run2")
    assert again.status == "unchanged" and again.diff == "", again.diff[:3000]

    undo = restore_device(DRIVER, connector, LEAF, "sonic", done.backup, commit=True, txn="roceops-run1-undo",
                          intent=intent)
    assert undo.status == "changed" and undo.path == "bringup", undo.error  # apply-patch cannot remove PFC_WD
    assert fresh_read(lab, LEAF) == (before, [])


@pytest.mark.parametrize("connector", ["sonic-b"], indirect=True)
def test_rejected_config_rolls_back_byte_identical(lab: LabThread, connector: Connector, intent: SwitchIntent,
                                                   rendered: RenderedDevice) -> None:
    lab.inject("sonic-b", "reject_config")
    try:
        out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="roceops-rej")
    finally:
        lab.clear("sonic-b")
    assert out.status == "backup_refused" and out.error is not None  # the checkpoint came first: nothing applied
    assert "Sorry, user admin is not allowed to execute '/usr/local/bin/config checkpoint roceops-rej'" in out.error
    assert out.backup is not None
    assert fresh_read(lab, "sonic-b") == (out.backup.text, [])


@pytest.mark.parametrize("connector", ["sonic-c"], indirect=True)
def test_session_dropped_mid_push_is_rolled_back_on_reconnect(lab: LabThread, connector: Connector,
                                                              intent: SwitchIntent, rendered: RenderedDevice) -> None:
    conn = connector.connect()
    backup = DRIVER.read_config(conn)
    lines = len(patch_file_text(DRIVER.diff(backup, rendered, intent)).splitlines())
    # answered: read_config, show version (facts), pgrep (modes in effect), checkpoint, `cat > ... <<EOF`, the
    # patch, EOF, apply-patch, rm -f; the first verification command then meets a reset connection, with the patch
    # already applied
    lab.inject("sonic-c", "drop", after=lines + 8)
    out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="roceops-drop")
    assert out.status == "rolled_back", out.error
    assert out.error is not None and "closed while waiting for `sonic-cfggen -d --print-data`" in out.error
    assert connector.reconnects == 1
    assert out.backup is not None and out.backup.text == backup.text
    assert fresh_read(lab, "sonic-c") == (backup.text, [])


@pytest.mark.parametrize("connector", ["sonic-d"], indirect=True)
def test_confirm_that_does_not_take_is_rolled_back(lab: LabThread, connector: Connector, intent: SwitchIntent,
                                                   rendered: RenderedDevice) -> None:
    lab.inject("sonic-d", "confirm_lost")
    try:
        out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="roceops-lost")
    finally:
        lab.clear("sonic-d")
    assert out.status == "rolled_back", (out.error, out.path_reasons)
    assert out.error is not None and out.error.startswith("ConfirmNotTaken:")
    assert out.backup is not None
    assert fresh_read(lab, "sonic-d") == (out.backup.text, [])
    c = Connector(lab, "sonic-d")
    try:  # the startup config was not left with the change either
        saved = c.connect().send_command("sonic-cfggen -j /etc/sonic/config_db.json --print-data")
        assert json.loads(saved) == json.loads(out.backup.text)
    finally:
        c.close()
