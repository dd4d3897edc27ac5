"""The host's LLDP view (``lldpcli -f json show neighbors``) on lldpd's own output (tests/platforms/captures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roceops.platforms.linux_mlx5.lldp import LldpParseError, parse_lldpcli_json

CAPTURE = Path(__file__).resolve().parents[1] / "captures" / "lldpcli_json_show_neighbors.json"


def test_real_lldpd_output_gives_the_peer_and_its_port() -> None:
    # a Linux peer sends its MAC as PortID: the port is its PortDescr
    assert parse_lldpcli_json(CAPTURE.read_text()) == {"eth0": ("ns-2.example.com", "eth1")}


def test_several_interfaces_come_as_an_array_and_switch_ports_as_ifname() -> None:
    one = json.loads(CAPTURE.read_text())["lldp"]["interface"]["eth0"]
    switch = {**one, "chassis": {"leaf-su1-r1": {"id": {"type": "mac", "value": "0c:42:a1:00:00:01"}}},
              "port": {"id": {"type": "ifname", "value": "Ethernet4"}, "descr": "to gpu002", "ttl": "120"}}
    text = json.dumps({"lldp": {"interface": [{"eth0": one}, {"eth1": switch}]}})  # json_writer.c's array form
    assert parse_lldpcli_json(text) == {"eth0": ("ns-2.example.com", "eth1"), "eth1": ("leaf-su1-r1", "Ethernet4")}


def test_no_neighbours_and_broken_output() -> None:
    assert parse_lldpcli_json('{"lldp": {}}') == {}
    with pytest.raises(LldpParseError, match="not JSON"):
        parse_lldpcli_json("unable to connect to lldpd daemon\n")
