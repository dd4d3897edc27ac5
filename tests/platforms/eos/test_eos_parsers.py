"""Arista EOS parsers: real captures (shared/fixtures/eos), hand-written samples in ANTA's JSON shapes, and the
lab personality's own output; running-config -> ObservedSwitch against the driver's expected(intent), display form
and hier_config planning (no SSH here)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
import yaml

from roceops.device.change import Snapshot
from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.observed import (
    ObservedBgp,
    ObservedBgpNeighbor,
    ObservedEcn,
    ObservedPfcWatchdog,
    ObservedQueue,
    ObservedSwitch,
)
from roceops.lab.devices.eos.device import EosCli, EosState
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.eos import DRIVER
from roceops.platforms.eos import parsers as p
from roceops.platforms.eos.config_tree import ConfigLine, config_tree, hconfig
from roceops.platforms.eos.driver import display_form, hms
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.util.sorting import ip_key

REPO = Path(__file__).resolve().parents[3]
FIX = REPO.parent / "shared" / "fixtures" / "eos"


@cache
def fabric() -> Fabric:
    return expand(FabricIntent.model_validate(yaml.safe_load((REPO / "inventory" / "lab-mini.yaml").read_text())))


def intent(name: str = "spine01") -> SwitchIntent:
    i = plan(fabric(), name)
    assert isinstance(i, SwitchIntent)
    return i


def lab_state(name: str = "spine01", configured: bool = True) -> EosState:
    spec = lab_specs(fabric(), [name], configured=configured)[0]
    return EosState(spec.name, spec.platform, spec.extra)


def run(state: EosState, *commands: str) -> str:
    cli = EosCli(state, SessionInfo(username="admin", pty=True))
    cli.enabled = True
    out = ""
    for cmd in commands:
        reply = cli.handle(cmd)
        out = reply if isinstance(reply, str) else reply.text
    return out


# --------------------------------------------------------------------------- text captures


def test_interfaces_status_capture_without_flags() -> None:
    rows = p.parse_interfaces_status((FIX / "show_interfaces_status.txt").read_text())
    assert [r["port"] for r in rows] == ["Et3/1/1", "Et3/1/4", "Et3/2/1", "Et3/2/2", "Et3/2/4", "Et3/2/5"]
    assert rows[0] == {"port": "Et3/1/1", "name": "I am a 40G port !! Hi", "status": "connected", "vlan": "trunk",
                       "duplex": "a-full", "speed": "a-40G", "type": "40GBASE-CR4", "flags": "", "encapsulation": ""}
    assert rows[1] == {"port": "Et3/1/4", "name": "", "status": "inactive", "vlan": "1", "duplex": "unconf",
                       "speed": "unconf", "type": "40GBASE-CR4", "flags": "", "encapsulation": ""}
    assert (rows[4]["name"], rows[4]["status"], rows[4]["vlan"]) == ("- DISABLED routed (", "disabled", "routed")
    assert [r["status"] for r in rows] == ["connected", "inactive", "notconnect", "errdisabled", "disabled",
                                           "disabled"]


def test_interfaces_status_capture_with_flags_and_collapsed_lines() -> None:
    rows = p.parse_interfaces_status((FIX / "show_interfaces_status_flags.txt").read_text())
    assert [r["port"] for r in rows] == ["Et1", "Et2", "Et3", "Ma1", "Et49", "Et52", "Ma1", "Po49"]
    assert rows[0] == {"port": "Et1", "name": "", "status": "notconnect", "vlan": "10", "duplex": "auto",
                       "speed": "auto", "type": "10GBASE-T", "flags": "", "encapsulation": ""}
    assert rows[3] == {"port": "Ma1", "name": "", "status": "connected", "vlan": "routed", "duplex": "a-full",
                       "speed": "a-100M", "type": "10/100/1000", "flags": "", "encapsulation": ""}
    # the capture's last four lines have their column padding collapsed to single spaces
    assert rows[4] == {"port": "Et49", "name": "Core: drxx.yul01", "status": "notconnect", "vlan": "in Po49",
                       "duplex": "full", "speed": "10G", "type": "Not Present", "flags": "", "encapsulation": ""}
    assert (rows[5]["status"], rows[5]["type"]) == ("connected", "10GBASE-SR")
    assert (rows[6]["duplex"], rows[6]["speed"]) == ("a-half", "a-10M")
    assert rows[7] == {"port": "Po49", "name": "Core: dr01-dr02.y", "status": "connected", "vlan": "trunk",
                       "duplex": "full", "speed": "20G", "type": "N/A", "flags": "", "encapsulation": ""}


def test_interfaces_status_capture_with_flags_and_encapsulation_columns() -> None:
    rows = p.parse_interfaces_status((FIX / "show_interfaces_status_encapsulation.txt").read_text())
    assert [r["port"] for r in rows] == ["Et1", "Et2", "Et3", "Et4", "Et5", "Et6", "Et7", "Ma1"]
    assert rows[1] == {"port": "Et2", "name": "", "status": "connected", "vlan": "2", "duplex": "full",
                       "speed": "1G", "type": "EbraTestPhyPort", "flags": "", "encapsulation": ""}
    assert rows[7] == {"port": "Ma1", "name": "", "status": "disabled", "vlan": "routed", "duplex": "a-full",
                       "speed": "a-1G", "type": "10/100/1000", "flags": "", "encapsulation": ""}
    line = "Et9               connected    routed   full   400G   400GBASE-CR8    D     dot1q"
    header = "Port       Name   Status       Vlan     Duplex Speed  Type            Flags Encapsulation"
    row = p.parse_interfaces_status(f"{header}\n{line}\n")[0]
    assert (row["type"], row["flags"], row["encapsulation"]) == ("400GBASE-CR8", "D", "dot1q")


def test_interfaces_status_rejects_other_output() -> None:
    with pytest.raises(p.ParseError):
        p.parse_interfaces_status("% Invalid input")


def test_queue_counters_capture() -> None:
    rows = p.parse_queue_counters((FIX / "show_interfaces_counters_queue_detail_egress.txt").read_text())
    assert len(rows) == 20
    assert rows[0] == {"port": "Et3/1/1", "tc": 1, "drop_precedence": "DP0-3", "dest_type": "UC",
                       "out_enq_pkts": 67521, "out_enq_octets": 7523778, "out_drop_pkts": 0, "out_drop_octets": 0}
    assert rows[-1] == {"port": "Et4/4/1", "tc": 7, "drop_precedence": "DP0-3", "dest_type": "UC",
                        "out_enq_pkts": 0, "out_enq_octets": 0, "out_drop_pkts": 1, "out_drop_octets": 110}
    assert sum(r["out_drop_pkts"] for r in rows) == 2


def test_lab_prints_the_capture_layouts() -> None:
    st = lab_state()
    status = run(st, "show interfaces status")
    assert status.splitlines()[0] == (FIX / "show_interfaces_status.txt").read_text().splitlines()[0]
    rows = p.parse_interfaces_status(status)
    assert [r["port"] for r in rows] == [f"Et{n}/1" for n in range(1, 9)] + ["Ma1"]
    assert rows[0]["name"] == "leaf-su1-r1:Ethernet16" and rows[0]["status"] == "connected"
    queue = run(st, "show interfaces counters queue detail")
    assert queue.splitlines()[:3] == (FIX / "show_interfaces_counters_queue_detail_egress.txt").read_text(
    ).splitlines()[:3]
    assert {r["tc"] for r in p.parse_queue_counters(queue)} == {0, 3, 6}


# --------------------------------------------------------------------------- JSON (ANTA shapes)


def test_json_samples_in_anta_shapes() -> None:
    pfc = {"interfaceCounters": {"Ethernet3/1/1": {"rxFrames": 1, "txFrames": 0},
                                 "Ethernet3/2/1": {"rxFrames": 0, "txFrames": 2}}}
    assert p.parse_pfc_counters_json(json.dumps(pfc))["Ethernet3/2/1"] == {"rx": 0, "tx": 2, "priorities": {}}
    ecn = {"intfQueueCounters": {"Ethernet10/3/1": {"queueCounters": {"0": "0", "1": "-", "2": "17"}}}}
    assert p.parse_ecn_counters_json(json.dumps(ecn)) == {"Ethernet10/3/1": {0: 0, 1: None, 2: 17}}
    wd = {"interfaces": {"Ethernet1": {"txQueues": {"3": {"stuckCount": 2, "recoveryCount": 2},
                                                    "4": {"stuckCount": 1, "recoveryCount": 0}}}}}
    assert p.parse_pfc_watchdog_json(json.dumps(wd)) == {"Ethernet1": 3}
    assert p.parse_pfc_watchdog_json(json.dumps({"interfaces": {}})) == {}
    bgp = {"vrfs": {"default": {"vrf": "default", "routerId": "10.1.0.3", "asn": "65120", "peers": {
        "10.1.0.1": {"peerState": "Established", "peerAsn": "65100"},
        "10.1.255.0": {"peerState": "Idle", "asn": "65100", "description": "spine1"}}}}}
    got = p.parse_bgp_summary_json(json.dumps(bgp))
    assert got["asn"] == "65120" and got["router_id"] == "10.1.0.3"
    assert got["peers"]["10.1.0.1"] == {"state": "Established", "remote_asn": 65100, "description": ""}
    assert got["peers"]["10.1.255.0"]["state"] == "Idle"
    assert p.parse_bgp_summary_json(json.dumps({"vrfs": {}}))["peers"] == {}
    version = {"modelName": "vEOS-lab", "internalVersion": "4.27.0F-24305004.4270F", "version": "4.27.0F"}
    assert p.parse_version_json(json.dumps(version))["version"] == "4.27.0F"
    lldp = {"lldpNeighbors": [{"port": "Ethernet1", "neighborDevice": "spine1", "neighborPort": "Ethernet3",
                               "ttl": 120}]}
    assert p.parse_lldp_json(json.dumps(lldp)) == {"Ethernet1": ("spine1", "Ethernet3")}
    intfs = {"interfaces": {"Ethernet2": {"name": "Ethernet2", "forwardingModel": "routed", "lineProtocolStatus": "up",
                                          "interfaceStatus": "connected", "hardware": "ethernet", "mtu": 1500,
                                          "l3MtuConfigured": True, "l2Mru": 0, "bandwidth": 100_000_000_000,
                                          "interfaceCounters": {"inUcastPkts": 5, "outUcastPkts": 6,
                                                                "linkStatusChanges": 3,
                                                                "inputErrorsDetail": {"fcsErrors": 7,
                                                                                      "symbolErrors": 1}}},
                            "Loopback0": {"name": "Loopback0", "lineProtocolStatus": "up", "mtu": 65535}}}
    got_i = p.parse_interfaces_json(json.dumps(intfs))
    assert got_i["Ethernet2"]["speed"] == 100_000 and got_i["Ethernet2"]["mtu"] == 1500
    assert got_i["Ethernet2"]["counters"] == {"rx_packets": 5, "tx_packets": 6, "crc_errors": 7, "symbol_errors": 1,
                                              "carrier_changes": 3}
    assert got_i["Loopback0"]["counters"] == {} and got_i["Loopback0"]["speed"] is None
    status = {"interfaceStatuses": {"Ethernet8": {"bandwidth": 1_000_000_000, "duplex": "duplexFull",
                                                  "linkStatus": "connected", "lineProtocolStatus": "up"}}}
    assert p.parse_interfaces_status_json(json.dumps(status))["Ethernet8"]["speed"] == 1000
    sessions = {"maxSavedSessions": 1, "maxOpenSessions": 5,
                "sessions": {"s1": {"state": "pendingCommitTimer", "commitUser": "admin", "instances": {}}}}
    assert p.parse_sessions_json(json.dumps(sessions))["s1"]["state"] == "pendingCommitTimer"
    with pytest.raises(p.ParseError, match="not JSON"):
        p.parse_lldp_json("% Invalid input")


def test_json_parsers_on_lab_output() -> None:
    st = lab_state()
    st.apply_fault("pause_storm", port="Ethernet1/1")
    lldp = p.parse_lldp_json(run(st, p.CMD_LLDP))
    assert lldp["Ethernet1/1"] == ("leaf-su1-r1", "Ethernet16") and len(lldp) == 8
    bgp = p.parse_bgp_summary_json(run(st, p.CMD_BGP))
    assert bgp["asn"] == "4200100000" and len(bgp["peers"]) == 8
    assert {s["state"] for s in bgp["peers"].values()} == {"Established"}
    ecn = p.parse_ecn_counters_json(run(st, p.CMD_ECN))
    assert ecn["Ethernet1/1"][0] is None and isinstance(ecn["Ethernet1/1"][3], int)
    pfc = p.parse_pfc_counters_json(run(st, p.CMD_PFC))
    assert set(pfc["Ethernet1/1"]["priorities"]) == set(range(8))
    assert pfc["Ethernet1/1"]["rx"] == sum(rx for rx, _ in pfc["Ethernet1/1"]["priorities"].values())
    assert p.parse_pfc_watchdog_json(run(st, p.CMD_PFC_WATCHDOG)) == {"Ethernet1/1": 1}
    intfs = p.parse_interfaces_json(run(st, p.CMD_INTERFACES))
    assert intfs["Ethernet1/1"]["mtu"] == 9214 and intfs["Ethernet1/1"]["speed"] == 400_000
    assert intfs["Loopback0"]["mtu"] == 65535
    status = p.parse_interfaces_status_json(run(st, "show interfaces status | json"))
    assert status["Ethernet2/1"]["status"] == "connected" and status["Ethernet2/1"]["speed"] == 400_000
    assert p.parse_version_json(run(st, p.CMD_VERSION))["version"] == "4.32.2F"
    assert p.parse_sessions_json(run(st, p.CMD_SESSIONS)) == {"roceops-preload": {
        "state": "completed", "commitUser": "admin", "description": "", "instances": {}}}


# --------------------------------------------------------------------------- running-config -> intent


def test_observed_config_of_a_deployed_switch_has_no_drift() -> None:
    want = intent()
    observed = DRIVER.observe({p.CMD_RUNNING: lab_state().running_text()})
    assert isinstance(observed, ObservedSwitch)
    assert compare(DRIVER.expected(want), observed) == []
    assert observed.ports is not None and list(observed.ports) == [f"Ethernet{n}/1" for n in range(1, 9)]
    e1 = observed.ports["Ethernet1/1"]
    assert e1.model_dump(exclude={"queues"}, exclude_unset=True) == {
        "name": "Ethernet1/1", "mtu": 9214, "admin_up": True, "description": "leaf-su1-r1:Ethernet16",
        "address": "10.1.0.0/31", "pfc_priorities": [3], "pfc_watchdog": True, "speed": 400_000, "trust": "dscp"}
    assert e1.queues is not None and sorted(e1.queues) == list(range(8))  # every queue of the TC->queue map
    assert e1.queues[3] == ObservedQueue(scheduler="dwrr", weight=60,
                                         ecn=ObservedEcn(min_bytes=153600, max_bytes=1536000, probability=100))
    assert e1.queues[0] == ObservedQueue(scheduler="dwrr", weight=40, ecn=None)
    assert e1.queues[6] == ObservedQueue(scheduler="strict", weight=None, ecn=None)  # EOS hides an all-default queue
    assert observed.qos is not None
    assert observed.qos.model_fields_set == {"dscp_to_tc", "tc_to_queue", "pfc_watchdog"}  # the rest is per port
    assert observed.qos.pfc_watchdog == ObservedPfcWatchdog(detect_ms=200, restore_ms=400, poll_ms=100,
                                                            action="drop", enabled=True)
    assert observed.qos.dscp_to_tc is not None and (observed.qos.dscp_to_tc[26], observed.qos.dscp_to_tc[48]) == (3, 6)
    assert (observed.name, observed.loopback) == ("spine01", "10.0.0.5/32")
    assert observed.bgp is not None and observed.bgp.neighbors is not None
    assert (observed.bgp.asn, observed.bgp.router_id, observed.bgp.networks) == (4200100000, "10.0.0.5",
                                                                                 ["10.0.0.5/32"])
    assert [(n.ip, n.port) for n in observed.bgp.neighbors] == sorted(
        ((n.ip, n.port) for n in want.bgp.neighbors), key=lambda n: ip_key(n[0]))


SAMPLE = """! Command: show running-config
hostname sw1
qos map dscp 26 to traffic-class 3
qos map traffic-class 7 to tx-queue 6
interface Ethernet1/1
   shutdown
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 2 mbytes maximum-threshold 3000000 bytes
interface Ethernet2/1
   mtu 9214
   speed forced 100gfull
   qos trust cos
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control priority 4 drop
   uc-tx-queue 3
      no priority
      bandwidth percent 50
interface Ethernet3/1
   speed auto
interface Loopback0
   ip address 10.0.0.9/32
interface Management1
   ip address 192.168.0.9/24
priority-flow-control pause watchdog default timeout 0.05
priority-flow-control pause watchdog action no-drop
router bgp 64088.28832
   neighbor 10.1.0.9 remote-as 65001
   neighbor 10.1.0.10 remote-as 65002
   neighbor 10.1.0.10 description b
   neighbor SPINES remote-as 65003
   network 10.0.1.0/24
   network 10.0.0.9/32
end
"""


def test_observed_config_fills_eos_defaults() -> None:
    observed = p.observe_config(SAMPLE)
    assert observed.ports is not None and list(observed.ports) == ["Ethernet1/1", "Ethernet2/1", "Ethernet3/1"]
    e1, e2, e3 = observed.ports.values()
    assert (e1.mtu, e1.admin_up, e1.pfc_priorities, e1.description, e1.trust) == (1500, False, [], "", "none")
    assert "speed" not in e1.model_fields_set and e3.speed is None and e2.speed == 100_000
    assert (e2.mtu, e2.pfc_priorities, e2.trust) == (9214, [3], "cos")
    assert e1.queues is not None and e2.queues is not None and e3.queues is not None
    assert e1.queues[3] == ObservedQueue(scheduler="strict", weight=None, ecn=ObservedEcn(
        min_bytes=2 * 1024 * 1024, max_bytes=3_000_000, probability=100))
    assert e2.queues[3] == ObservedQueue(scheduler="dwrr", weight=50, ecn=None)  # uc-tx-queue read as tx-queue
    # TC 7 goes to queue 6: queue 7 is in no map and configured nowhere, so no port shows it
    assert sorted(e3.queues) == list(range(7)) and set(e3.queues.values()) == {p.DEFAULT_QUEUE}
    assert observed.qos is not None and observed.qos.dscp_to_tc is not None
    assert observed.qos.dscp_to_tc[26] == 3 and observed.qos.dscp_to_tc[48] == 6  # 48 from the DSCP/8 default
    assert observed.qos.tc_to_queue == {**{tc: tc for tc in range(7)}, 7: 6}
    assert observed.qos.pfc_watchdog == ObservedPfcWatchdog(detect_ms=50, action="forward", enabled=True)
    assert observed.qos.pfc_watchdog.model_fields_set == {"detect_ms", "action", "enabled"}
    assert (observed.name, observed.loopback) == ("sw1", "10.0.0.9/32")
    assert observed.bgp == ObservedBgp(asn=4200100000, router_id=None, neighbors=[
        ObservedBgpNeighbor(ip="10.1.0.9", remote_asn=65001, port="", description=""),
        ObservedBgpNeighbor(ip="10.1.0.10", remote_asn=65002, port="", description="b"),
        ObservedBgpNeighbor(ip="SPINES", remote_asn=65003, port="", description="")],
        networks=["10.0.0.9/32", "10.0.1.0/24"])


def test_observed_config_of_a_switch_without_roceops_config() -> None:
    observed = p.observe_config(lab_state(configured=False).running_text())
    assert observed.ports is not None and list(observed.ports) == [f"Ethernet{n}/1" for n in range(1, 9)]
    assert "loopback" not in observed.model_fields_set  # no Loopback0 address: not compared (as before)
    assert observed.bgp == ObservedBgp(asn=None, router_id=None, neighbors=[], networks=[])
    drift = compare(DRIVER.expected(intent()), observed)
    paths = {d.path for d in drift}
    assert "ports[Ethernet1/1].queues[3].scheduler" in paths and "ports[Ethernet8/1].trust" in paths
    assert "qos.pfc_watchdog.enabled" in paths and "bgp.neighbors" in paths


def test_observe_does_not_depend_on_the_order_the_config_lists_neighbours_and_networks() -> None:
    text = lab_state().running_text()
    lines = text.splitlines()
    bgp_at = lines.index("router bgp 4200100000")
    end = lines.index("!", bgp_at)
    body = lines[bgp_at + 1:end]
    shuffled = [*lines[:bgp_at + 1], *reversed(body), *lines[end:]]
    assert p.observe_config("\n".join(shuffled) + "\n") == p.observe_config(text)


def test_per_port_drift_on_two_ports_is_two_findings_each_naming_its_port() -> None:
    st = lab_state()
    st.apply_fault("ecn_changed", port="Ethernet2/1", min=51200, max=512000)
    st.apply_fault("ecn_changed", port="Ethernet7/1", min=51200, max=512000)
    run(st, "configure", "interface Ethernet7/1", "qos trust cos", "end")
    drift = compare(DRIVER.expected(intent()), DRIVER.observe({p.CMD_RUNNING: st.running_text()}))
    assert [(d.path, d.expected, d.observed) for d in drift] == [
        ("ports[Ethernet2/1].queues[3].ecn.min_bytes", 153600, 51200),
        ("ports[Ethernet2/1].queues[3].ecn.max_bytes", 1536000, 512000),
        ("ports[Ethernet7/1].trust", "dscp", "cos"),
        ("ports[Ethernet7/1].queues[3].ecn.min_bytes", 153600, 51200),
        ("ports[Ethernet7/1].queues[3].ecn.max_bytes", 1536000, 512000),
    ]


def _tree(node: object) -> list[tuple[str, list]]:
    """(text, subtree) per child, of a hier_config tree or of config_tree's (where a line without lines under
    it is a plain str)."""
    return [(c, []) if isinstance(c, str) else (c.text, _tree(c)) for c in node.children]  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", [
    "! Command: show running-config\nhostname a\n!\ninterface Ethernet1/1\n   description  x   y \n"
    "   no ip address\n   tx-queue 3\n      no priority\n   !\n  ipv6 unreachables disable\n      deep\n"
    "router bgp 1\n   neighbor 1.1.1.1 remote-as 2\n   address-family ipv4\n      network 1.0.0.0/8\n!\nend\n",
    "hostname a\nbanner motd\nhello\nEOF\nhostname b\n",  # banner: hier_config itself
    "interface Ethernet1/1\n   mtu 1500\n   mtu 1500\n",  # duplicate line: hier_config's error
    "router bgp 1\n   address-family ipv4\n      network 1.0.0.0/8\n      exit-address-family\n",
    "  a\nb\n      c\n   d\n    e\n f\ng\n",  # uneven indentation: a line goes under the nearest less indented one
    "a\n   b\n   c\n      d\n   b\n",  # a duplicate line that had lines under it
    "interface Ethernet1/1\ninterface Ethernet1/1\n   mtu 1500\n",  # a line twice, once with lines under it
])
def test_config_tree_is_the_hier_config_tree(text: str) -> None:
    try:
        want: object = _tree(hconfig(text))
    except Exception as exc:  # the same exception must come out of config_tree
        with pytest.raises(type(exc)):
            config_tree(text)
        return
    assert _tree(config_tree(text)) == want


def test_config_tree_of_a_lab_running_config_is_the_hier_config_tree() -> None:
    text = lab_state().running_text()
    assert isinstance(config_tree(text), ConfigLine)  # the light reader, not the fallback
    assert _tree(config_tree(text)) == _tree(hconfig(text))


def test_expected_rounds_to_what_eos_holds() -> None:
    base = intent()
    q3 = base.qos.queues[3]
    assert q3.ecn is not None
    odd = q3.model_copy(update={"ecn": q3.ecn.model_copy(update={"min_bytes": 150_000, "max_bytes": 1_000_001})})
    strict = base.qos.queues[6].model_copy(update={"weight": 10})  # a weight EOS cannot show on a strict queue
    wd = base.qos.pfc_watchdog.model_copy(update={"action": "alert"})
    changed = base.model_copy(update={"qos": base.qos.model_copy(update={
        "queues": {**base.qos.queues, 3: odd, 6: strict}, "pfc_watchdog": wd})})
    exp = DRIVER.expected(changed)
    assert isinstance(exp, ObservedSwitch) and exp.qos is not None and exp.ports is not None
    assert exp.qos.pfc_watchdog is not None and exp.qos.pfc_watchdog.action == "forward"
    for port in exp.ports.values():
        assert port.queues is not None and sorted(port.queues) == list(range(8)) and port.trust == "dscp"
        assert port.queues[3].ecn == ObservedEcn(min_bytes=146 * 1024, max_bytes=977 * 1024, probability=100)
        assert (port.queues[6].scheduler, port.queues[6].weight) == ("strict", None)
        assert port.queues[5] == p.DEFAULT_QUEUE  # no intent queue: EOS's default
        assert port.mtu == 9214 and port.pfc_watchdog is True
    assert exp.bgp is not None and exp.bgp.neighbors is not None
    assert [n.ip for n in exp.bgp.neighbors] == sorted((n.ip for n in base.bgp.neighbors), key=ip_key)
    quiet = base.model_copy(update={"qos": base.qos.model_copy(update={
        "pfc_watchdog": base.qos.pfc_watchdog.model_copy(update={"enabled": False})})})
    assert {port.pfc_watchdog for port in (DRIVER.expected(quiet).ports or {}).values()} == {False}


def test_expected_and_observed_of_a_rendered_config_agree_on_a_uc_tx_queue_model() -> None:
    split = intent().model_copy(update={"hwsku": "DCS-7060DX5-64S"})
    text = render_device(split).files["config.eos"]
    assert "uc-tx-queue 3" in text
    running = display_form(hconfig(text))
    observed = p.observe_config("".join(f"{'   ' * (c.depth() - 1)}{c.text}\n" for c in running.all_children_sorted()))
    assert compare(DRIVER.expected(split), observed) == []


# --------------------------------------------------------------------------- planning


def test_display_form_drops_what_eos_hides() -> None:
    hc = display_form(hconfig("""interface Ethernet1/1
   no shutdown
   tx-queue 6
      priority strict
   tx-queue 3
      no priority
interface Ethernet2/1
   uc-tx-queue 6
      priority strict
   uc-tx-queue 3
      no priority
qos map dscp 1 to traffic-class 0
qos map dscp 0 to traffic-class 0
"""))
    assert [c.text for c in hc.all_children_sorted()] == [  # uc-tx-queue (7060X6 profile) as tx-queue
        "interface Ethernet1/1", "tx-queue 3", "no priority", "interface Ethernet2/1", "uc-tx-queue 3", "no priority",
        "qos map dscp 0 1 to traffic-class 0"]
    assert hms(300) == "00:05:00"


def test_plan_change_converges_and_never_touches_unmanaged_config() -> None:
    want = intent()
    rendered = render_device(want)
    st = lab_state(configured=False)
    run(st, "configure", "ntp server 192.0.2.1", "username ops privilege 1 role network-operator nopassword",
        "interface Ethernet1/1", "mtu 1500", "load-interval 5", "end")
    first = DRIVER.diff(Snapshot("eos_cli", st.running_text()), rendered, want)
    assert first.summary["add"] > 100
    assert not any(w in first.diff for w in ("ntp", "username", "Management1", "spanning-tree", "aaa"))
    assert "   no load-interval 5" in first.diff  # a managed interface is owned entirely
    run(st, "configure session t1", *first.payload, "commit")
    assert "ntp server 192.0.2.1" in st.running_text()
    again = DRIVER.diff(Snapshot("eos_cli", st.running_text()), rendered, want)
    assert again.empty and again.diff == ""


def test_plan_change_after_drift_and_plan_restore_round_trip() -> None:
    want = intent()
    st = lab_state()
    backup = Snapshot("eos_cli", st.running_text())
    st.apply_fault("pfc_off", port="Ethernet1/1")
    st.apply_fault("ecn_changed", min=51200, max=512000)
    fix = DRIVER.diff(Snapshot("eos_cli", st.running_text()), render_device(want), want)
    assert fix.payload[:3] == ["interface Ethernet1/1", "priority-flow-control on",
                               "priority-flow-control priority 3 no-drop"]
    assert "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability " \
           "100" in fix.payload
    changed = Snapshot("eos_cli", st.running_text())
    restore = DRIVER.restore(changed, backup)
    run(st, "configure session r1", *restore.payload, "commit")
    assert st.running_text() == backup.text
    assert DRIVER.restore(backup, backup).empty


def test_lab_status_text_in_both_layouts_parses_to_the_same_rows() -> None:
    st = lab_state()
    older = p.parse_interfaces_status(run(st, "show interfaces status"))
    st.apply_fault("status_columns")
    text = run(st, "show interfaces status")
    assert text.splitlines()[0].split()[-2:] == ["Flags", "Encapsulation"]
    newer = p.parse_interfaces_status(text)
    assert [r["port"] for r in newer] == [r["port"] for r in older] and len(newer) >= len(intent().ports)
    assert newer == [{**r, "flags": "", "encapsulation": ""} for r in older]
    assert all(line.endswith(" ") for line in text.splitlines()[1:])  # empty trailing columns padded, as EOS does
