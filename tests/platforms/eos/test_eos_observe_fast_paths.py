"""The EOS config reader's and ``expected``'s fast paths give what the previous code gave: the config tree (one read
per distinct line), the interface lines (what each says remembered per config), the BGP neighbours (each address
read once, ``inet_aton`` for dotted quads) and the ports' queue maps shared again after validation. The previous
code is kept here as the reference; every EOS switch of lab-mini and of a 2-SU lab fabric, with drift, is compared.
(shared/fixtures/eos holds no running-config capture: text tables only, which these paths do not read.)"""

from __future__ import annotations

import ipaddress
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from labtools import lab_mini

from roceops.device.compare import compare
from roceops.device.observed import ObservedBgp, ObservedBgpNeighbor, ObservedSwitch, ObservedSwitchPort
from roceops.device.oper import canonical_mac
from roceops.lab.devices.eos.device import EosCli, EosState
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.eos import DRIVER
from roceops.platforms.eos import config_tree as ct
from roceops.platforms.eos import parsers as p
from roceops.platforms.eos.parsers_addresses import _V4_INTERFACE, SubnetIndex, network_key
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.util.sorting import ip_key, ip_sort_key, port_key

# --------------------------------------------------------------------------- the previous code (reference)


def old_plain_tree(text: str) -> ct.ConfigLine:
    root = ct.ConfigLine("", [])
    sections = [root]
    open_: list[tuple[int, list[Any]]] = [(-1, root.children)]
    last = -1
    seen: dict[str, tuple[str, int] | None] = {}
    for raw in text.splitlines():
        read = seen[raw] if raw in seen else seen.setdefault(raw, old_plain_line(raw))
        if read is None:
            continue
        body, indent = read
        siblings = open_[-1][1]
        if indent > last and siblings:
            section = ct.ConfigLine(siblings[-1], [])
            siblings[-1] = section
            sections.append(section)
            open_.append((last, section.children))
        else:
            while indent <= open_[-1][0]:
                open_.pop()
        open_[-1][1].append(body)
        last = indent
    for section in sections:
        if len(section.children) > 1 and len({ct.line_text(c) for c in section.children}) < len(section.children):
            raise ct._NeedsHConfig
    return root


def old_plain_line(raw: str) -> tuple[str, int] | None:
    if raw.startswith("banner "):
        raise ct._NeedsHConfig
    line = " " * (len(raw) - len(raw.lstrip())) + " ".join(raw.split())
    if ct._ANY_LINE_SUB.search(line):
        for pattern, replace in ct._LINE_SUBS:
            line = pattern.sub(replace, line)
    line = line.rstrip()
    if not line:
        return None
    body = line.lstrip()
    if body in ct._EXITS:
        raise ct._NeedsHConfig
    return body, len(line) - len(body)


def old_config_tree(text: str) -> ct.ConfigLine:
    try:
        return old_plain_tree(text)
    except ct._NeedsHConfig:
        return ct._copied("", ct.hconfig(text))


def old_parse_tx_queues(intf: ct.Line) -> dict[int, Any]:
    out = {}
    for q in ct.line_children(intf):
        text = ct.line_text(q)
        if not text.startswith(("tx-queue ", "uc-tx-queue ")) or not (m := p._TX_QUEUE.fullmatch(text)):
            continue
        out[int(m.group(1))] = p._tx_queue(tuple(map(ct.line_text, ct.line_children(q))))
    return out


def old_parse_interface(intf: ct.Line) -> dict[str, Any]:
    values: dict[str, str] = {}
    leaves = [c for c in ct.line_children(intf) if isinstance(c, str)]
    no_drop: list[int] = []
    for t in leaves:
        if m := p._INTF_VALUE.match(t):
            if m.group(1) not in values:
                values[m.group(1)] = m.group(2).strip()
        elif t.startswith("priority-flow-control priority ") and (m := p._NO_DROP.fullmatch(t)):
            no_drop.append(int(m.group(1)))
    speed, mtu = values.get("speed"), values.get("mtu")
    out: dict[str, Any] = {
        "name": ct.line_text(intf).split(" ", 1)[1], "mtu": int(mtu) if mtu else p.DEFAULT_MTU,
        "admin_up": "shutdown" not in leaves, "description": values.get("description") or "",
        "address": values.get("ip address"),
        "pfc_priorities": sorted(no_drop) if "priority-flow-control on" in leaves else [],
        "pfc_watchdog": "priority-flow-control pause watchdog" in leaves,
        "trust": values.get("qos trust") or "none", "queues": old_parse_tx_queues(intf),
    }
    if speed is not None:
        out["speed"] = p.SPEED_OF_KEYWORD.get(speed.removeprefix("forced "))
    return out


def old_observed_bgp(cfg: dict[str, Any]) -> ObservedBgp:
    bgp = cfg["bgp"]
    if not bgp:
        return ObservedBgp(asn=None, router_id=None, neighbors=[], networks=[])
    port_of = SubnetIndex((old_network_key(q["address"]), n) for n, q in cfg["interfaces"].items() if q.get("address"))

    def port(ip: str) -> str:
        try:
            key = ip_key(ip)
        except ValueError:
            return ""
        return port_of.find(key) or ""

    neighbors = [ObservedBgpNeighbor(ip=ip, remote_asn=a.get("remote_asn"), port=port(ip),
                                     description=a.get("description", "")) for ip, a in bgp["neighbors"].items()]
    neighbors = sorted(neighbors, key=lambda n: ip_sort_key(n.ip or ""))
    return ObservedBgp(asn=bgp["asn"], router_id=bgp.get("router_id"), neighbors=neighbors,
                       networks=p.network_order(bgp["networks"]))


def old_parse_bgp(sec: ct.Line) -> dict[str, Any]:
    out: dict[str, Any] = {"asn": p.asn_value(ct.line_text(sec).split()[-1]), "neighbors": {}, "networks": []}
    for t in map(ct.line_text, ct.line_children(sec)):
        if t.startswith("router-id "):
            out["router_id"] = t.split()[1]
        elif m := p._NEIGHBOR_AS.fullmatch(t):
            out["neighbors"].setdefault(m.group(1), {})["remote_asn"] = p.asn_value(m.group(2))
        elif m := p._NEIGHBOR_DESCRIPTION.fullmatch(t):
            out["neighbors"].setdefault(m.group(1), {})["description"] = m.group(2)
        elif m := p._NETWORK.fullmatch(t):
            out["networks"].append(m.group(1))
    return out


def old_network_key(prefix: str) -> tuple[int, int, int]:
    if (m := _V4_INTERFACE.fullmatch(prefix)) and int(m.group(5)) <= 32:
        mask = (0xFFFFFFFF << (32 - int(m.group(5)))) & 0xFFFFFFFF
        a, b, c, d = (int(x) for x in m.groups()[:4])
        return 4, mask, ((a << 24) | (b << 16) | (c << 8) | d) & mask
    net = ipaddress.ip_interface(prefix).network
    return net.version, int(net.netmask), int(net.network_address)


def old_observe_config(text: str, monkeypatch: pytest.MonkeyPatch) -> ObservedSwitch:
    """observe_config as it was: the previous tree, interface and BGP readers, each port its own queue map."""
    with monkeypatch.context() as m:
        m.setattr(p, "config_tree", old_config_tree)
        m.setattr(p, "parse_interface", lambda intf, memo=None: old_parse_interface(intf))
        m.setattr(p, "_parse_bgp", old_parse_bgp)
        cfg = p.parse_running_config(text)
    device_queues = frozenset(cfg["tc_to_queue"].values())
    ports = {name: ObservedSwitchPort.model_validate({**intf, "queues": {
                 qid: intf["queues"].get(qid, p.DEFAULT_QUEUE) for qid in sorted(device_queues | intf["queues"].keys())}
                 if not device_queues <= intf["queues"].keys() else intf["queues"]})
             for name, intf in sorted(cfg["interfaces"].items(), key=lambda kv: port_key(kv[0]))
             if p.FRONT_PANEL.fullmatch(name)}
    qos = p.ObservedQos(dscp_to_tc=cfg["dscp_to_tc"], tc_to_queue=cfg["tc_to_queue"],
                        pfc_watchdog=p.ObservedPfcWatchdog.model_validate(cfg["pfc_watchdog"]))
    out: dict[str, Any] = {"name": cfg["hostname"], "qos": qos, "ports": ports, "bgp": old_observed_bgp(cfg)}
    if cfg["loopback"]:
        out["loopback"] = cfg["loopback"]
    return ObservedSwitch.model_validate(out)


# --------------------------------------------------------------------------- inputs


@cache
def two_su_lab() -> Fabric:
    """bench/common.py lab_fabric(2): SONiC leaves in SU 1, Cumulus in SU 2, EOS spines and cores."""
    return expand(FabricIntent.model_validate({
        "name": "lab-bench-2su", "node": {"rails": 8}, "scalable_units": {"count": 2, "nodes_per_su": 32},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"},
        "qos": {"pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100}},
        "overrides": {"groups": {"su2": {"platform": "cumulus"}}},
    }))


def switches() -> list[tuple[Fabric, str, EosState]]:
    out = []
    for fabric in (lab_mini(), two_su_lab()):
        for spec in lab_specs(fabric, configured=True):
            if spec.platform == "eos":
                out.append((fabric, spec.name, EosState(spec.name, spec.platform, spec.extra)))
    assert len(out) > 4
    return out


def drifted(state: EosState) -> str:
    """The switch's running-config with per-port drift (ECN, trust, a queue's weight, no PFC) and its BGP lines
    reversed."""
    ports = sorted(state.running_text().split("interface Ethernet")[1:], key=len)
    names = [re.match(r"\S+", t).group() for t in ports[:3]]  # type: ignore[union-attr]
    state.apply_fault("ecn_changed", port=f"Ethernet{names[0]}", min=51200, max=512000)
    cli = EosCli(state, SessionInfo(username="admin", pty=True))
    cli.enabled = True
    for cmd in ("configure", f"interface Ethernet{names[1]}", "qos trust cos", "tx-queue 0", "bandwidth percent 30",
                "exit", f"interface Ethernet{names[2]}", "no priority-flow-control on", "end"):
        cli.handle(cmd)
    lines = state.running_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("router bgp "))
    end = lines.index("!", at)
    return "\n".join([*lines[:at + 1], *reversed(lines[at + 1:end]), *lines[end:]]) + "\n"


def same(a: object, b: object) -> None:
    assert a == b  # pydantic: same class, values and fields set, all the way down
    assert repr(a) == repr(b)  # and the same types of values


def tree(node: ct.ConfigLine) -> list[tuple[str, list[Any]]]:
    return [(c, []) if isinstance(c, str) else (c.text, tree(c)) for c in node.children]


# --------------------------------------------------------------------------- tests
ADDRESSES = st.one_of(st.ip_addresses().map(str), st.text(alphabet="0123456789.x:abf", max_size=18),
                      st.sampled_from(["1.2.3", "010.0.0.1", "0x1.2.3.4", "1.2.3.4 ", " 1.2.3.4", "256.1.1.1", "1",
                                       "1.2.3.4\x00", "peers", "", "::ffff:1.2.3.4", "1.2.3.04"]))



def test_every_lab_switch_as_before_with_and_without_drift(monkeypatch: pytest.MonkeyPatch) -> None:
    for fabric, name, state in switches():
        intent = plan(fabric, name)
        exp = DRIVER.expected(intent)
        assert len({id(port.queues) for port in exp.ports.values()}) == 1  # one queue map for every port
        clean = state.running_text()
        for text in (clean, drifted(state)):
            assert isinstance(ct.config_tree(text), ct.ConfigLine)
            assert tree(ct.config_tree(text)) == tree(old_plain_tree(text)) == tree(ct._copied("", ct.hconfig(text)))
            new, old = p.observe_config(text), old_observe_config(text, monkeypatch)
            same(new, old)
            assert len({id(port.queues) for port in new.ports.values()}) == len(
                {tuple(port.queues.items()) for port in old.ports.values()})  # one map per kind of port
            # the drift walk: the same departures as on the previous, unshared models
            same(compare(exp, new), compare(exp.model_copy(update={"ports": {
                n: port.model_copy(update={"queues": dict(port.queues)}) for n, port in exp.ports.items()}}), old))
            if text != clean:
                assert {d.path.split(".")[-1] for d in compare(exp, new)} >= {"min_bytes", "trust", "weight",
                                                                               "pfc_priorities"}


@pytest.mark.parametrize("text", [
    "! Command: show running-config\nhostname a\n!\ninterface Ethernet1/1\n   description  x   y \n"
    "   no ip address\n   tx-queue 3\n      no priority\n   !\n  ipv6 unreachables disable\n      deep\n"
    "router bgp 1\n   neighbor 1.1.1.1 remote-as 2\n   address-family ipv4\n      network 1.0.0.0/8\n!\nend\n",
    "hostname a\nbanner motd\nhello\nEOF\nhostname b\n",
    "interface Ethernet1/1\n   mtu 1500\n   mtu 1500\n",
    "router bgp 1\n   address-family ipv4\n      network 1.0.0.0/8\n      exit-address-family\n",
    "  a\nb\n      c\n   d\n    e\n f\ng\n",
    "a\n   b\n   c\n      d\n   b\n",
    "interface Ethernet1/1\ninterface Ethernet1/1\n   mtu 1500\n",
    "a\t b\n\t\tc \n \x0b\n   d\x1c\n  ! x\n end\nend\n   end\n Current configuration x\n",
    "",
    "\n\n   \n",
])
def test_config_tree_as_before_on_odd_text(text: str) -> None:
    try:
        want: object = tree(old_config_tree(text))
    except Exception as exc:
        with pytest.raises(type(exc)):
            ct.config_tree(text)
        return
    assert tree(ct.config_tree(text)) == want


@given(st.lists(st.sampled_from(["", " ", "   ", "      ", "\t"]).flatmap(
    lambda indent: st.sampled_from(["a", "b", "a  b", "tx-queue 1", "! c", "end", "exit", "no priority",
                                    "banner x", " no ip address", "c "]).map(lambda body: indent + body)),
    max_size=12))
def test_config_tree_as_before_on_generated_text(lines: list[str]) -> None:
    test_config_tree_as_before_on_odd_text("\n".join(lines) + "\n")


@given(ADDRESSES)
def test_neighbor_sort_key_is_ip_sort_key(ip: str) -> None:
    assert p.neighbor_sort_key(ip) == ip_sort_key(ip)
    assert p.neighbor_sort_key(None) == ip_sort_key("")


@given(ADDRESSES, st.sampled_from(["/", "/0", "/31", "/032", "/32", "/33", "/128", "/²", "/3 ", "/24/1", ""]))
def test_network_key_as_before(address: str, length: str) -> None:
    try:
        want = old_network_key(address + length)
    except ValueError as exc:
        with pytest.raises(type(exc)):
            network_key(address + length)
        return
    assert network_key(address + length) == want


@given(st.one_of(st.text(alphabet="0123456789abcdefABCDEF.:- \t", max_size=20), st.text(max_size=16),
                 st.sampled_from(["b8ce.f6a6.8561", "52:54:00:87:8F:2C", "0000.0000.0000", "00-00-00-00-00-01",
                                  " aabb.ccdd.eeff\n", "aabb.ccdd.eef", "aabbccddeeff0"])))
def test_neighbour_table_mac_is_canonical_mac(text: str) -> None:
    assert p._mac(text) == canonical_mac(text)


@pytest.mark.parametrize("body", [
    "   tx-queue 5\n   mtu 9000\n   tx-queue 3\n      no priority\n      bandwidth percent 40\n   uc-tx-queue 5\n"
    "      no priority\n",
    "   uc-tx-queue 2\n      no priority\n   tx-queue 2\n      bandwidth percent 10\n   shutdown\n",
    "   tx-queue 1\n      no priority\n         deeper line\n      random-detect ecn minimum-threshold 1 mbytes"
    " maximum-threshold 2 mbytes\n   priority-flow-control on\n   priority-flow-control priority 4 no-drop\n",
    "   tx-queue x\n   tx-queue 1 2\n   speed forced 100gfull\n   speed 400g-8\n   description  a  b\n   tx-queue 6\n",
    "",
])
def test_interface_sections_as_before(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Odd interface sections (a tx-queue line without lines under it, uc- and plain queues of one number,
    nested lines, lines that only look like queues): the one-pass reader equals the previous one."""
    text = f"hostname a\ninterface Ethernet1/1\n{body}interface Ethernet2/1\n{body}   description x\n"
    tree_ = ct.config_tree(text)
    memo: dict[str, Any] = {}
    for c in tree_.children:
        new, old = p.parse_interface(c, memo), old_parse_interface(c)
        assert new == old
        assert list(new.items()) == list(old.items()) and list(new["queues"].items()) == list(old["queues"].items())
    same(p.observe_config(text), old_observe_config(text, monkeypatch))
