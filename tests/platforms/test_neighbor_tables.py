"""Each switch room's IPv6 neighbour-table read (a host NIC's MAC on a leaf port where LLDP is absent), on real
outputs (tests/platforms/captures, sources in SOURCES.md), and the host's own NIC MAC from ``ip -j addr show``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roceops.device.oper import canonical_mac
from roceops.platforms.cumulus.neighbors import parse_ip_neigh_json
from roceops.platforms.eos.parsers import ParseError as EosParseError
from roceops.platforms.eos.parsers import parse_ipv6_neighbors_json
from roceops.platforms.sonic.parsers_control import show_ndp

CAPTURES = Path(__file__).resolve().parent / "captures"


def test_sonic_show_ndp_capture_gives_the_interface_and_mac() -> None:
    assert show_ndp((CAPTURES / "sonic_show_ndp.txt").read_text()) == {"PortChannel0001": ["52:54:00:87:8f:2c"]}


def test_sonic_show_ndp_several_rows_and_an_empty_table() -> None:
    # nbrshow's layout (tabulate "simple") with the columns widened to the longest cell
    text = ("Address                   MacAddress         Iface            Vlan    Status\n"
            "------------------------  -----------------  ---------------  ------  ---------\n"
            "fc00::72                  52:54:00:87:8f:2c  PortChannel0001  -       REACHABLE\n"
            "fe80::bace:f6ff:fe01:203  b8:ce:f6:01:02:03  Ethernet0        -       STALE\n"
            "fe80::bace:f6ff:fe01:204  b8:ce:f6:01:02:04  Ethernet0        -       STALE\n"
            "Total number of entries 3 \n")
    assert show_ndp(text) == {"PortChannel0001": ["52:54:00:87:8f:2c"],
                              "Ethernet0": ["b8:ce:f6:01:02:03", "b8:ce:f6:01:02:04"]}
    assert show_ndp("Total number of entries 0 \n") == {}


def test_eos_ipv6_neighbors_capture_short_names_and_dotted_macs() -> None:
    assert parse_ipv6_neighbors_json((CAPTURES / "eos_show_ipv6_neighbors.json").read_text()) == {
        "Ethernet1": ["00:05:86:71:5b:01"]}
    with pytest.raises(EosParseError, match="not JSON"):
        parse_ipv6_neighbors_json("% Invalid input")


def test_cumulus_ip_neigh_json_capture_and_entries_without_a_mac() -> None:
    rows = json.loads((CAPTURES / "ip_json_neigh_show.json").read_text())
    rows.append({"dst": "fe80::1", "dev": "swp3", "state": ["FAILED"]})  # lladdr is absent from failed entries
    assert parse_ip_neigh_json(json.dumps(rows)) == {"eth0": ["00:aa:bb:cc:dd:ee"]}


def test_canonical_mac_spellings() -> None:
    assert canonical_mac("B8-CE-F6-01-02-03") == "b8:ce:f6:01:02:03"
    assert canonical_mac("00:00:00:00:00:00") is None
    assert canonical_mac("incomplete") is None
