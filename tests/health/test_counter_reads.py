"""Counter checks on a NIC whose driver prints older ethtool names, or whose counters cannot be read: the
older names still give CRC/symbol/pause, and an unreadable counter is ``unknown`` with its reason, never ok."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import yaml

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.oper import OperState, PortOper, for_intent
from roceops.health.catalog import CrcErrors, LinkContext, PauseStorm, Sample
from roceops.health.model import Thresholds
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import DRIVER
from roceops.platforms.linux_mlx5.driver_model import CMD_ADDR
from roceops.platforms.linux_mlx5.hw_counters import CC_COUNTERS, TRANSPORT_COUNTERS
from roceops.topology.expand import expand

REPO = Path(__file__).resolve().parents[2]
OLDER = REPO.parent / "shared" / "fixtures" / "linux_mlx5" / "ethtool_S_mlx5_connectx4_older_driver.txt"
UNREAD_HW = set(TRANSPORT_COUNTERS) | {neutral for neutral, _ in CC_COUNTERS}  # no hw_counters read here
NEWER = REPO.parent / "shared" / "fixtures" / "linux_mlx5" / "ethtool_S_mlx5_connectx4.txt"


@cache
def intents() -> tuple[HostIntent, SwitchIntent]:
    fab = expand(FabricIntent.model_validate(yaml.safe_load((REPO / "inventory" / "lab-mini.yaml").read_text())))
    host = plan(fab, fab.hosts[0].name)
    assert isinstance(host, HostIntent)
    nic = next(iter(host.nics.values()))
    leaf = plan(fab, nic.leaf)
    assert isinstance(leaf, SwitchIntent)
    return host, leaf


def host_oper(ethtool: str | None) -> OperState:
    host, _ = intents()
    netdev = next(iter(host.nics))
    outputs = {CMD_ADDR: json.dumps([{"ifname": netdev, "operstate": "UP", "mtu": 9000, "addr_info": []}])}
    if ethtool is not None:
        outputs[f"ethtool -S {netdev}"] = ethtool
    return for_intent(DRIVER.operational(outputs), host)


def test_older_driver_names_give_crc_symbol_and_pause() -> None:
    netdev = next(iter(intents()[0].nics))
    port = host_oper(OLDER.read_text()).ports[netdev]
    assert port.counters == {"crc_errors": 0, "symbol_errors": 0, "pause_rx": 0, "pause_tx": 0,
                             "rx_packets": 5487361, "tx_packets": 5116718}
    assert set(port.unread) == UNREAD_HW  # no hw_counters read in these outputs: unread, not 0


def test_newer_driver_names_give_the_phy_counters() -> None:
    netdev = next(iter(intents()[0].nics))
    port = host_oper(NEWER.read_text()).ports[netdev]
    assert (port.counters["crc_errors"], port.counters["symbol_errors"]) == (0, 0)
    assert (port.counters["pause_rx"], port.counters["pause_tx"]) == (0, 0)
    assert port.counters["rx_packets"] == 845715962 and set(port.unread) == UNREAD_HW


def test_unreadable_counters_are_named_with_their_reason() -> None:
    netdev = next(iter(intents()[0].nics))
    port = host_oper("ethtool: bad command line argument(s)\n").ports[netdev]
    ethtool = {"crc_errors", "symbol_errors", "pause_rx", "pause_tx"}
    assert port.counters == {} and set(port.unread) == ethtool | UNREAD_HW
    assert all("ethtool -S" in port.unread[c] for c in ethtool)
    assert set(host_oper(None).ports[netdev].unread) == ethtool | UNREAD_HW


def _context(host_port: PortOper) -> LinkContext:
    host, leaf = intents()
    nic = next(iter(host.nics.values()))
    switch = OperState(device=leaf.name, ports={nic.leaf_port: PortOper(name=nic.leaf_port, counters={
        "crc_errors": 0, "pfc_rx_3": 0, "pfc_tx_3": 0})})
    hosts = OperState(device=host.name, ports={nic.netdev: host_port})
    return LinkContext(node=host.name, nic=nic, host=Sample(first=hosts, second=hosts, window_s=1.0), leaf=leaf,
                       leaf_port=leaf.ports[nic.leaf_port], switch=Sample(first=switch, second=switch, window_s=1.0),
                       thresholds=Thresholds())


def test_a_nic_whose_counters_cannot_be_read_is_unknown_never_ok() -> None:
    netdev = next(iter(intents()[0].nics))
    unreadable = host_oper("garbage that is not ethtool output\n").ports[netdev]
    for check in (CrcErrors(), PauseStorm()):
        nic_result, switch_result = check.test(_context(unreadable))
        assert nic_result.status == "unknown" and "ethtool -S" in nic_result.message
        assert switch_result.status == "ok"


def test_older_driver_nic_is_checked_not_skipped() -> None:
    netdev = next(iter(intents()[0].nics))
    older = host_oper(OLDER.read_text()).ports[netdev]
    for check in (CrcErrors(), PauseStorm()):
        results = check.test(_context(older))
        assert [r.status for r in results] == ["ok", "ok"] and str(results[0].observed).startswith("0")
