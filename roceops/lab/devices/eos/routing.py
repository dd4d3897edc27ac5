"""The EOS lab's ``show lldp neighbors`` and ``show ip bgp summary`` (text and ``| json``), and the address
arithmetic they and the interface answers share (IPv4 in the canonical dotted form without ipaddress objects)."""

from __future__ import annotations

import ipaddress
import json
import re
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.eos.counters import (
    ENCODE,
    SLOT,
    Encoded,
    intf,
    json_float,
    json_template,
    oper,
)
from roceops.lab.devices.eos.tree import Node, short_ifname
from roceops.lab.physical import link_local, port_mac
from roceops.util.sorting import ip_key

if TYPE_CHECKING:
    from roceops.lab.devices.eos.state import EosStateCore

_Net = tuple[int, int, int]  # (IP version, network address as an int, prefix length)
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"({_OCTET})\.({_OCTET})\.({_OCTET})\.({_OCTET})")  # the canonical form only
_IPV4_PREFIX = re.compile(rf"({_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET})/(3[0-2]|[12]?\d)")


def _ipv4_int(text: str) -> int | None:
    """A canonical dotted IPv4 address as an int (what ipaddress gives), None for any other text."""
    m = _IPV4.fullmatch(text)
    if m is None:
        return None
    a, b, c, d = map(int, m.groups())
    return a << 24 | b << 16 | c << 8 | d


@lru_cache(maxsize=1 << 14)
def iface(address: str) -> tuple[str, int, _Net]:
    """``ip address`` text -> (address, prefix length, network), as ipaddress.ip_interface reads it."""
    m = _IPV4_PREFIX.fullmatch(address)
    ip = _ipv4_int(m.group(1)) if m else None
    if m is not None and ip is not None:  # the common case, without building ipaddress objects
        plen = int(m.group(2))
        return m.group(1), plen, (4, ip >> (32 - plen) << (32 - plen), plen)
    interface = ipaddress.ip_interface(address)
    net = interface.network
    return str(interface.ip), net.prefixlen, (net.version, int(net.network_address), net.prefixlen)


@lru_cache(maxsize=1 << 14)
def _ip(ip: str) -> tuple[int, int, int]:
    """A neighbour address -> (IP version, the address as an int, its bit count); ValueError as ip_address."""
    value = _ipv4_int(ip)
    if value is not None:
        return 4, value, 32
    addr = ipaddress.ip_address(ip)
    return addr.version, int(addr), addr.max_prefixlen


def lldp(st: EosStateCore) -> dict[str, Any]:
    neighbors = []
    for name in st.ports_sorted:
        heard = st.physical.lldp_neighbor(name)  # None: nothing cabled, or the far end sends no LLDP
        if heard and oper(st, name):
            neighbors.append({"port": name, "neighborDevice": heard[0], "neighborPort": heard[1], "ttl": 120})
    return {"tablesLastChangeTime": st.booted, "tablesAgeOuts": 0, "tablesInserts": len(neighbors),
            "tablesDeletes": 0, "tablesDrops": 0, "lldpNeighbors": neighbors}


def lldp_text(data: dict[str, Any]) -> str:
    out = ["Last table change time   : 0:00:01 ago", f"Number of table inserts  : {data['tablesInserts']}",
           "Number of table deletes  : 0", "Number of table drops    : 0", "Number of table age-outs : 0", "",
           f"{'Port':<10}    {'Neighbor Device ID':<24} {'Neighbor Port ID':<22} TTL",
           f"{'-' * 10} {'-' * 24} {'-' * 22} ---"]
    for n in data["lldpNeighbors"]:
        out.append(f"{short_ifname(n['port']):<13} {n['neighborDevice']:<24} {n['neighborPort']:<22} {n['ttl']}")
    return "\n".join(out)


def ipv6_neighbors(st: EosStateCore) -> dict[str, Any]:
    """``show ipv6 neighbors | json``: the link-local neighbour at the far end of every cabled, up port (the lab's
    MACs, lab/physical.py). Keys, dotted MAC and short interface name as in a capture from EOS
    (scottpeterman/fibtrace fibtrace/parsers.py @ 9bee2ab0)."""
    out = []
    for name in st.ports_sorted:
        neighbor = st.physical.ports[name].neighbor
        if neighbor and oper(st, name):
            mac = port_mac(*neighbor)
            digits = mac.replace(":", "")
            out.append({"address": link_local(mac), "age": 0, "interface": short_ifname(name),
                        "hwAddress": ".".join(digits[i:i + 4] for i in (0, 4, 8))})
    return {"ipV6Neighbors": out}


def ipv6_neighbors_text(data: dict[str, Any]) -> str:
    """The text form: the lab's own layout (no public capture of it was found)."""
    rows = [f"{'IPv6 Address':<40} {'Age':>8} {'Hardware Addr':<15} Interface"]
    rows += [f"{n['address']:<40} {n['age']:>8} {n['hwAddress']:<15} {n['interface']}" for n in data["ipV6Neighbors"]]
    return "\n".join(rows)


_Peer = tuple[str, str, bool, int, str]  # (IP, description, up, messages each way when up, remote AS)


def _bgp_peers(st: EosStateCore) -> tuple[str, str, list[_Peer]] | None:
    """(router ID, AS, the neighbours) of ``router bgp``, None without it."""
    bgp = next((v for k, v in st.running.children.items() if k == "router bgp"), None)
    if not isinstance(bgp, Node):
        return None
    asn = bgp.text.split()[-1]
    router_id = str(bgp.children.get("router-id", "router-id 0.0.0.0")).split()[-1]
    oper_nets: set[_Net] = set()  # networks of the addressed ports that are up
    prefixes: set[tuple[int, int]] = set()  # (IP version, prefix length) of every addressed port
    for name in st.ports_sorted:
        address = str(intf(st, name).children.get("ip address", "")).removeprefix("ip address ")
        if address:
            net = iface(address)[2]
            prefixes.add((net[0], net[2]))
            if oper(st, name):
                oper_nets.add(net)
    uptime = max(0.0, time.time() - st.booted)
    peers: list[_Peer] = []
    for key, value in bgp.children.items():
        if not key.startswith("neighbor ") or not key.endswith(" remote-as"):
            continue
        ip = key.split()[1]
        version, addr, bits = _ip(ip)
        up = any((version, addr >> (bits - plen) << (bits - plen), plen) in oper_nets
                 for net_version, plen in prefixes if net_version == version) \
            and f"neighbor {ip} shutdown" not in bgp.children
        desc = str(bgp.children.get(f"neighbor {ip} description", "")).split(" ", 3)[3:] or [""]
        peers.append((ip, desc[0], up, int(uptime // 30) + 3, str(value).split()[-1]))
    return router_id, asn, peers


def bgp(st: EosStateCore) -> dict[str, Any]:
    found = _bgp_peers(st)
    if found is None:
        return {"vrfs": {}}
    router_id, asn, peers = found
    return {"vrfs": {"default": {"vrf": "default", "routerId": router_id, "asn": asn, "peers": {
        ip: {"description": desc, "version": 4, "msgReceived": msgs if up else 0, "msgSent": msgs if up else 0,
             "inMsgQueue": 0, "outMsgQueue": 0, "asn": peer_asn, "prefixAccepted": 1 if up else 0,
             "prefixReceived": 1 if up else 0, "upDownTime": st.booted, "underMaintenance": False,
             "peerState": "Established" if up else "Active"}
        for ip, desc, up, msgs, peer_asn in peers}}}}


_PEER = json_template({SLOT: {
    "description": SLOT, "version": 4, "msgReceived": SLOT, "msgSent": SLOT, "inMsgQueue": 0, "outMsgQueue": 0,
    "asn": SLOT, "prefixAccepted": SLOT, "prefixReceived": SLOT, "upDownTime": SLOT, "underMaintenance": False,
    "peerState": SLOT}})


def bgp_json_text(st: EosStateCore) -> Encoded:
    """``_bgp`` written as JSON text directly."""
    found = _bgp_peers(st)
    if found is None:
        return Encoded(json.dumps({"vrfs": {}}), lambda: bgp(st))
    router_id, asn, peers = found
    booted = json_float(st.booted)
    parts = [_PEER.format(ENCODE(ip), ENCODE(desc), msgs if up else 0, msgs if up else 0, ENCODE(peer_asn),
                          1 if up else 0, 1 if up else 0, booted, '"Established"' if up else '"Active"')
             for ip, desc, up, msgs, peer_asn in peers]
    head = f'{{"vrfs": {{"default": {{"vrf": "default", "routerId": {ENCODE(router_id)}, "asn": {ENCODE(asn)}, '
    return Encoded(f'{head}"peers": {{{", ".join(parts)}}}}}}}}}', lambda: bgp(st))


def bgp_text(data: dict[str, Any]) -> str:
    vrf = data["vrfs"].get("default")
    if vrf is None:
        return "BGP summary information for VRF default\nRouter identifier 0.0.0.0, local AS number unknown"
    out = ["BGP summary information for VRF default",
           f"Router identifier {vrf['routerId']}, local AS number {vrf['asn']}",
           "Neighbor Status Codes: m - Under maintenance",
           f"  {'Description':<24} {'Neighbor':<15} V {'AS':<12} {'MsgRcvd':>8} {'MsgSent':>8}  InQ OutQ  "
           f"{'Up/Down':<8} {'State':<6} PfxRcd PfxAcc"]
    for ip, p in sorted(vrf["peers"].items(), key=lambda kv: ip_key(kv[0])):
        state = "Estab" if p["peerState"] == "Established" else p["peerState"]
        out.append(f"  {p['description'][:24]:<24} {ip:<15} 4 {p['asn']:<12} {p['msgReceived']:>8} "
                   f"{p['msgSent']:>8} {0:>4} {0:>4} {'0:00:01':<8} {state:<6} {p['prefixReceived']:>6} "
                   f"{p['prefixAccepted']:>6}")
    return "\n".join(out)
