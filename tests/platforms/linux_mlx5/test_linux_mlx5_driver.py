"""deploy_device / restore_device with the linux_mlx5 driver against lab hosts of inventory/lab-mini.yaml.

Real Netmiko sessions on loopback; the lab logs in as ``admin`` (not root), so every write goes
through ``sudo -n`` exactly as on a production host with NOPASSWD sudo.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import example_dict
from labtools import free_endpoint_base
from netmiko import ConnectHandler

from roceops.deploy.device import deploy_device, restore_device
from roceops.device.compare import compare
from roceops.device.intent import HostIntent
from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.linux_mlx5 import DRIVER, PLATFORM
from roceops.platforms.linux_mlx5.driver import LinuxMlx5Driver
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

pytestmark = pytest.mark.lab

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))
HOSTS = ["gpu001", "gpu002", "gpu003", "gpu004", "gpu005", "gpu006"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(FABRIC, HOSTS), tmp_path_factory.mktemp("mlx5deploy") / "state", port=port,
                       base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


class LabConnector:
    """deploy.device.Connector over Netmiko to one lab host (one live session at a time)."""

    def __init__(self, lab: LabThread, host: str) -> None:
        self.endpoint = lab.overlay[host]
        self.conn: Any = None
        self.reconnects = 0

    def connect(self) -> Any:
        if self.conn is None:
            o = self.endpoint
            self.conn = ConnectHandler(device_type=PLATFORM.netmiko.device_type, host=o["host"], port=o["port"],
                                       username=o["username"], use_keys=True, key_file=o["key_file"],
                                       allow_agent=False, conn_timeout=10, **PLATFORM.netmiko.extras)
        return self.conn

    def reconnect(self) -> Any:
        self.reconnects += 1
        self.close()
        return self.connect()

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):  # already dead after a drop
                self.conn.disconnect()
            self.conn = None


@pytest.fixture
def connector(lab: LabThread, request: pytest.FixtureRequest) -> Iterator[LabConnector]:
    c = LabConnector(lab, request.param)
    try:
        yield c
    finally:
        lab.clear(request.param)
        c.close()


def host(name: str) -> tuple[HostIntent, Any]:
    intent = plan(FABRIC, name)
    assert isinstance(intent, HostIntent)
    return intent, render_device(intent)


def drift_paths(conn: Any, intent: HostIntent) -> list[str]:
    observed = DRIVER.observe(DRIVER.collect(conn, intent))
    assert set(observed.nics or {}) == set(intent.nics)
    return sorted(d.path for d in compare(DRIVER.expected(intent), observed))


def test_driver_is_the_rooms_driver() -> None:
    assert get_driver("linux_mlx5") is DRIVER


@pytest.mark.parametrize("connector", ["gpu001"], indirect=True)
def test_fresh_host_deploy_audits_clean_and_redeploy_is_unchanged(connector: LabConnector) -> None:
    intent, rendered = host("gpu001")
    conn = connector.connect()
    assert drift_paths(conn, intent)  # a fresh host is far from the intent
    out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-1")
    assert out.status == "changed", out.error
    assert "pcp -> dscp" in out.diff and out.summary["commands"] > 40
    assert drift_paths(connector.connect(), intent) == []
    again = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-2")
    assert again.status == "unchanged" and again.diff == "" and again.error is None
    oper = for_intent(DRIVER.operational(DRIVER.collect(connector.connect(), intent)), intent)
    assert oper.firmware == "28.42.1000" and oper.driver and oper.driver.startswith("mlx5_core")
    assert {p.name for p in oper.ports.values() if p.oper_up and p.speed == 400_000} == set(intent.nics)
    neutral = {"pfc_rx_3", "pfc_tx_3", "crc_errors", "symbol_errors", "fec_uncorrected", "carrier_changes",
               "cnp_sent", "cnp_handled", "ecn_marked", "pfcwd_storms", "rx_packets", "tx_packets"}
    assert all(neutral <= set(p.counters) for p in oper.ports.values())
    # a health check's second sample: link state and counters only, for the NICs asked for
    nic = sorted(intent.nics)[0]
    raw = DRIVER.collect_counters(connector.connect(), intent, [nic])
    assert len(raw) == 3 and not any("mlnx_qos" in c or "ip -j" in c for c in raw)
    second = for_intent(DRIVER.operational(raw), intent)
    assert set(second.ports) == {nic} and second.firmware is None
    assert neutral <= set(second.ports[nic].counters) and second.ports[nic].oper_up and second.ports[nic].speed


@pytest.mark.parametrize("connector", ["gpu002"], indirect=True)
def test_dry_run_changes_nothing(connector: LabConnector) -> None:
    intent, rendered = host("gpu002")
    before = DRIVER.read_config(connector.connect())
    out = deploy_device(DRIVER, connector, rendered, intent, commit=False, txn="t-dry")
    assert out.status == "would_change" and out.diff and out.backup == before
    assert DRIVER.read_config(connector.connect()) == before


@pytest.mark.parametrize("connector", ["gpu003"], indirect=True)
def test_rejected_config_rolls_back_to_the_backup(lab: LabThread, connector: LabConnector) -> None:
    intent, rendered = host("gpu003")
    lab.inject("gpu003", "reject_config")
    out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-reject")
    assert out.status == "rolled_back"
    assert "Operation not permitted" in (out.error or "")  # the first line of the push: ip link set ... mtu
    assert out.backup is not None and DRIVER.read_config(connector.connect()).text == out.backup.text
    # without sudo the same push is refused by the kernel, and rolled back too
    lab.clear("gpu003")
    no_sudo = LinuxMlx5Driver(privilege="none")
    out = deploy_device(no_sudo, connector, rendered, intent, commit=True, txn="t-nosudo")
    assert out.status == "rolled_back" and "RTNETLINK answers: Operation not permitted" in (out.error or "")


@pytest.mark.parametrize("connector", ["gpu004"], indirect=True)
def test_session_dropped_mid_push_is_rolled_back_on_reconnect(lab: LabThread, connector: LabConnector) -> None:
    intent, rendered = host("gpu004")
    small_batches = LinuxMlx5Driver(chunk_commands=10)
    backup = small_batches.read_config(connector.connect())
    # read_config = 2 lines; then 2 batches of the push get through and the 3rd line resets the session
    lab.inject("gpu004", "drop", after=4)
    out = deploy_device(small_batches, connector, rendered, intent, commit=True, txn="t-drop")
    assert out.status == "rolled_back", out.error
    assert "closed the SSH session" in (out.error or "") and connector.reconnects == 1
    assert out.backup is not None and out.backup.text == backup.text
    assert small_batches.read_config(connector.connect()).text == backup.text


@pytest.mark.parametrize("connector", ["gpu005"], indirect=True)
def test_drift_after_deploy_is_named_per_nic_and_redeploy_clears_it(lab: LabThread, connector: LabConnector) -> None:
    intent, rendered = host("gpu005")
    assert deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-a").status == "changed"
    lab.inject("gpu005", "pfc_off")  # every NIC: one drift per NIC, each naming its NIC
    assert drift_paths(connector.connect(), intent) == ["nics[eth0].pfc_priorities", "nics[eth1].pfc_priorities"]
    assert deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-pfc").status == "changed"
    lab.inject("gpu005", "nic_reset", netdev="eth1")
    connector.connect().send_command("sudo -n ip addr add 10.200.0.9/24 dev eth1")  # beside the rail address
    paths = drift_paths(connector.connect(), intent)
    # the reset also returns the 400G speed-profile DCQCN values (roceops.plan.speed_profiles) to driver defaults
    assert paths == sorted(f"nics[eth1].{p}" for p in (
        "trust", "pfc_priorities", "dcqcn.np_enabled", "dcqcn.rp_enabled", "roce_tos", "addresses",
        "dcqcn.np[min_time_between_cnps]", "dcqcn.rp[rpg_min_dec_fac]", "dcqcn.rp[rpg_ai_rate]",
        "dcqcn.rp[rpg_time_reset]"))
    out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-b")
    assert out.status == "changed" and "eth0" not in out.diff
    assert "10.200.0.9/24" in out.diff  # removed by netplan's clean-up: audit and deploy agree
    assert drift_paths(connector.connect(), intent) == []


@pytest.mark.parametrize("connector", ["gpu006"], indirect=True)
def test_restore_device_goes_back_to_a_journal_backup(connector: LabConnector) -> None:
    intent, rendered = host("gpu006")
    out = deploy_device(DRIVER, connector, rendered, intent, commit=True, txn="t-deploy")
    assert out.status == "changed" and out.backup is not None
    back = restore_device(DRIVER, connector, "gpu006", "linux_mlx5", out.backup, commit=True, txn="t-restore")
    assert back.status == "changed", back.error
    assert "dscp -> pcp" in back.diff
    assert DRIVER.read_config(connector.connect()).text == out.backup.text
    same = restore_device(DRIVER, connector, "gpu006", "linux_mlx5", out.backup, commit=True, txn="t-again")
    assert same.status == "unchanged"
