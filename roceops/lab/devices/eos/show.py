"""What the simulated EOS switch prints for its show commands, text and ``| json``, built on demand from state.

Layouts follow the captures in ``shared/fixtures/eos`` (``show interfaces status`` without the Flags column,
``show interfaces counters queue detail``) and JSON keys follow ANTA's test data (platforms.md section 3.6).
Shapes with no public capture are marked "(lab shape)" where they are built.
"""

from __future__ import annotations

import difflib
import json
import re
import time
import zlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.eos.counters import (
    ENCODE,
    SLOT,
    Encoded,
    ecn_counters,
    ecn_counters_json,
    errors,
    errors_text,
    intf,
    json_entries,
    json_float,
    json_template,
    pfc_counters,
    pfc_counters_json,
    queue_detail,
    table,
    watchdog,
    watchdog_text,
)
from roceops.lab.devices.eos.routing import (
    bgp,
    bgp_json_text,
    bgp_text,
    iface,
    ipv6_neighbors,
    ipv6_neighbors_text,
    lldp,
    lldp_text,
)
from roceops.lab.devices.eos.tree import (
    EOS_VERSION,
    Node,
    hostname_of,
    normalize_ifname,
    running_config_text,
    short_ifname,
)
from roceops.lab.personality import reported_fact
from roceops.util.sorting import natural_key

if TYPE_CHECKING:
    from roceops.lab.devices.eos.state import CliView, EosStateCore

UNCONVERTED = "% This is an unconverted command"
# `speed` keywords the simulated EOS accepts (forced speeds, with lane counts where EOS spells them), in Mb/s
SPEED_OF_KEYWORD = {"10gfull": 10_000, "25gfull": 25_000, "40gfull": 40_000, "50gfull": 50_000,
                    "100gfull": 100_000, "100g-4": 100_000, "100g-2": 100_000, "200g-4": 200_000,
                    "200g-2": 200_000, "400g-8": 400_000, "400g-4": 400_000, "800g-8": 800_000}
MEDIA = {800_000: "800GBASE-CR8", 400_000: "400GBASE-CR8", 200_000: "200GBASE-CR4", 100_000: "100GBASE-CR4",
         50_000: "50GBASE-CR", 40_000: "40GBASE-CR4", 25_000: "25GBASE-CR", 10_000: "10GBASE-CR"}
_ALIASES = {"run": "running-config", "running": "running-config", "int": "interfaces", "interface": "interfaces",
            "ver": "version", "stat": "status", "conf": "configuration", "config": "configuration"}


def needs_privilege(tokens: list[str]) -> bool:
    words = [_ALIASES.get(t, t) for t in tokens[1:3]]
    return bool(words) and words[0] in ("running-config", "startup-config", "session-config", "configuration")


def show(cli: CliView, text: str) -> str:
    parts = [p.strip() for p in text.split("|")]
    words = [_ALIASES.get(t, t) for t in parts[0].split()[1:]]
    filters = [p for p in parts[1:] if p]
    as_json = "json" in filters
    try:
        result = _dispatch(cli, words, as_json)
    except _Invalid as exc:
        return cli.invalid(text, exc.token)
    if isinstance(result, Encoded):  # written as compact JSON text already
        return result.text if len(result.text) > 4096 else json.dumps(result.data(), indent=2)
    if isinstance(result, dict):
        # EOS indents `| json` answers; large ones go out compact (same JSON: json's indenting encoder is
        # pure Python and was this personality's largest cost in a profile of collect)
        text = json.dumps(result, check_circular=False)  # the answers are trees built just now
        return text if len(text) > 4096 else json.dumps(result, indent=2)
    for f in filters:
        result = _filter(result, f)
    return result


class _Invalid(Exception):
    def __init__(self, token: int) -> None:
        super().__init__(token)
        self.token = token


def _dispatch(cli: CliView, w: list[str], as_json: bool) -> str | dict[str, Any] | Encoded:
    st = cli.state
    if not w:
        raise _Invalid(1)
    head = tuple(w[:2])
    json_only: dict[tuple[str, ...], Any] = {
        ("priority-flow-control", "counters"): (pfc_counters, pfc_counters_json),
        ("qos", "interfaces"): (ecn_counters, ecn_counters_json),
    }
    if w[0] == "running-config":
        return _text_only(as_json, _running(st, w[1:]))
    if w[0] == "startup-config":
        if st.startup is None:
            return _text_only(as_json, "% Startup-config does not exist")
        return _text_only(as_json, running_config_text(st.startup, hostname_of(st.startup), st.model,
                                                       "show startup-config"))
    if w[0] == "session-config":
        return _text_only(as_json, _session_config(cli, w[1:]))
    if head == ("configuration", "sessions"):
        return _sessions(cli, as_json, detail="detail" in w[2:])
    if head == ("interfaces", "status"):
        return _status_json(st) if as_json else _status_text(st)
    if w[:3] == ["interfaces", "counters", "errors"]:
        data = errors(st)
        return data if as_json else errors_text(data)
    if w[:4] == ["interfaces", "counters", "queue", "detail"]:
        return _text_only(as_json, queue_detail(st))
    if w[0] == "interfaces":
        names = _interfaces(st, w[1:])
        return _interfaces_json_text(st, names) if as_json else _interfaces_text(st, names)
    if head in json_only:
        if head == ("priority-flow-control", "counters") and w[2:3] == ["watchdog"]:
            data = watchdog(st)
            return data if as_json else watchdog_text(data)
        if head == ("qos", "interfaces") and w[2:5] != ["ecn", "counters", "queue"]:
            raise _Invalid(3)
        as_dict, as_text = json_only[head]
        return as_text(st, "detail" in w) if as_json else table(as_dict(st, "detail" in w))
    if head == ("lldp", "neighbors"):
        data = lldp(st)
        return data if as_json else lldp_text(data)
    if head == ("ipv6", "neighbors"):
        data = ipv6_neighbors(st)
        return data if as_json else ipv6_neighbors_text(data)
    if w[:3] == ["ip", "bgp", "summary"] or head == ("bgp", "summary"):
        return bgp_json_text(st) if as_json else bgp_text(bgp(st))
    if w == ["version"]:
        return _version(st) if as_json else _version_text(st)
    if w == ["hostname"]:
        host = st.hostname
        return {"hostname": host, "fqdn": host} if as_json else f"Hostname: {host}\nFQDN:     {host}"
    if w == ["clock"]:
        return _text_only(as_json, time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime()) + "\nTimezone: UTC\n"
                          "Clock source: local")
    raise _Invalid(1)


def _text_only(as_json: bool, text: str) -> str:
    return UNCONVERTED if as_json else text


def _filter(text: str, f: str) -> str:
    op, _, arg = f.partition(" ")
    lines = text.splitlines()
    if op in ("include", "grep", "i"):
        return "\n".join(ln for ln in lines if re.search(arg, ln))
    if op in ("exclude", "e"):
        return "\n".join(ln for ln in lines if not re.search(arg, ln))
    if op in ("begin", "b"):
        for i, ln in enumerate(lines):
            if re.search(arg, ln):
                return "\n".join(lines[i:])
        return ""
    if op in ("section", "s"):
        out: list[str] = []
        block: list[str] = []
        for ln in [*lines, "!"]:
            if ln and not ln.startswith(" "):
                if any(re.search(arg, b) for b in block):
                    out.extend(b for b in block if b.strip() != "!")
                block = []
            block.append(ln)
        return "\n".join(out)
    return text  # no-more and friends


# --------------------------------------------------------------------------- configuration


def _running(st: EosStateCore, args: list[str]) -> str:
    if not args:
        return st.running_text()
    if args[0] == "interfaces" and len(args) == 2:
        name = normalize_ifname(args[1]) or args[1]
        node = st.running.children.get(f"interface {name}")
        if not isinstance(node, Node):
            return ""
        body = Node("", {f"interface {name}": node})
        return "\n".join(running_config_text(body, st.hostname, st.model).splitlines()[5:-2])
    raise _Invalid(2)


def _session_config(cli: CliView, args: list[str]) -> str:
    st = cli.state
    name = cli.target
    if args[:1] == ["named"] and len(args) >= 2:
        name, args = args[1], args[2:]
    sess = st.sessions.get(name) if name else None
    if sess is None or sess.config is None:
        return "% Not in a configuration session" if name is None else f"% Session {name} does not exist"
    host, model = hostname_of(sess.config), st.model
    text = running_config_text(sess.config, host, model, "show session-config")
    if not args:
        return text
    if args != ["diffs"]:
        raise _Invalid(2)
    before = running_config_text(st.running, st.hostname, model).splitlines()[1:]
    after = running_config_text(sess.config, host, model).splitlines()[1:]
    return "\n".join(difflib.unified_diff(before, after, "system:/running-config",
                                          f"session:/{name}-session-config", lineterm=""))


def _sessions(cli: CliView, as_json: bool, detail: bool) -> str | dict[str, Any]:
    st = cli.state
    now = st.clock()
    rows = [*([st.completed] if st.completed else []), *st.sessions.values()]
    if as_json:
        sessions: dict[str, Any] = {}
        for s in rows:
            entry: dict[str, Any] = {"state": s.state, "commitUser": s.user if s.state != "pending" else "",
                                     "description": "", "instances": {}}
            if s.state == "pendingCommitTimer" and s.deadline is not None:
                entry["commitTimerSecondsLeft"] = max(0, int(s.deadline - now))  # (lab shape)
            sessions[s.name] = entry
        return {"maxSavedSessions": 1, "maxOpenSessions": 5, "sessions": sessions}
    out = ["Maximum number of completed sessions: 1", "Maximum number of pending sessions: 5", ""]
    header = f"  {'Name':<24} {'State':<22} {'User':<10} {'Terminal':<9}"
    rule = f"  {'-' * 24} {'-' * 22} {'-' * 10} {'-' * 9}"
    if detail:
        header, rule = header + " Commit Timer", rule + " " + "-" * 12
    out += [header, rule]
    for s in rows:
        mark = "*" if s.name == cli.target else " "
        row = f"{mark} {s.name:<24} {s.state:<22} {s.user:<10} {s.terminal:<9}"
        if detail and s.state == "pendingCommitTimer" and s.deadline is not None:
            left = max(0, int(s.deadline - now))
            row += f" {left // 3600:02d}:{left % 3600 // 60:02d}:{left % 60:02d}"
        out.append(row.rstrip())
    return "\n".join(out)


# --------------------------------------------------------------------------- interfaces


def _port(st: EosStateCore, name: str, counters: bool = True) -> dict[str, Any]:
    """Everything the interface commands print for one port, from config and the physical layer
    (``counters=False``: without reading the counters)."""
    node = intf(st, name)
    ch = node.children
    admin = "shutdown" not in ch
    phys = st.physical.ports.get(name)
    speed_kw = str(ch.get("speed", "")).removeprefix("speed ") or None
    speed = SPEED_OF_KEYWORD.get(speed_kw or "", phys.speed if phys else 1000)
    oper = st.physical.oper_up(name, admin) if phys else admin
    status = "disabled" if not admin else "connected" if oper else "notconnect"
    mtu_line = ch.get("mtu")
    address = str(ch.get("ip address", "")).removeprefix("ip address ") or None
    kind = name.rstrip("0123456789/")
    return {
        "name": name, "admin": admin, "oper": oper, "status": status, "speed": speed, "forced": speed_kw is not None,
        "description": str(ch.get("description", "")).removeprefix("description "),
        "routed": "switchport" in ch or kind != "Ethernet",
        "mtu": int(str(mtu_line).split()[1]) if isinstance(mtu_line, str) else (65535 if kind == "Loopback" else 1500),
        "mtu_configured": isinstance(mtu_line, str), "address": address, "kind": kind,
        "counters": st.physical.snapshot(name) if phys and counters else {},
    }


def _physical_names(st: EosStateCore, with_mgmt: bool = True) -> list[str]:
    return [*st.ports_sorted, *(["Management1"] if with_mgmt else [])]


def _all_names(st: EosStateCore) -> list[str]:
    names = [k.split(" ", 1)[1] for k, v in st.running.children.items() if k.startswith("interface ")]
    return sorted(names, key=_name_order)


@lru_cache(maxsize=1 << 14)
def _name_order(name: str) -> tuple[bool, tuple[Any, ...]]:
    """Interface listing order: Ethernet ports first, then natural order (a pure function of the name)."""
    return not name.startswith("Ethernet"), natural_key(name)


def _interfaces(st: EosStateCore, args: list[str]) -> list[str]:
    if not args:
        return _all_names(st)
    name = normalize_ifname(args[0])
    if name is None or len(args) > 1 or f"interface {name}" not in st.running.children:
        raise _Invalid(2)
    return [name]


def _media(p: dict[str, Any]) -> str:
    return MEDIA.get(p["speed"], "10/100/1000") if p["kind"] == "Ethernet" else "10/100/1000"


def _speed_text(mbps: int) -> str:
    return f"{mbps // 1000}G" if mbps >= 1000 else f"{mbps}M"


def _status_text(st: EosStateCore) -> str:
    # newer EOS adds Flags and Encapsulation columns, blank-padded when empty (the status_columns fault;
    # ntc-templates arista_eos_show_interfaces_status_encap.raw)
    newer = "status_columns" in st.faults.extra

    def row(cols: tuple[str, str, str, str, str, str, str], tail: str = "") -> str:
        port, name, status, vlan, duplex, speed, media = cols
        line = f"{port:<10} {name[:22]:<22} {status:<12} {vlan:<11} {duplex:<7}{speed:>6} {media}"
        return f"{line:<{_STATUS_TYPE_END}}{tail}" if newer else line.rstrip()

    out = [row(("Port", "Name", "Status", "Vlan", "Duplex", "Speed", "Type"), "Flags Encapsulation")]
    for name in _physical_names(st):
        p = _port(st, name, counters=False)
        up = p["status"] == "connected"
        if p["forced"]:
            duplex, speed = "full", _speed_text(p["speed"])
        elif up:
            duplex, speed = "a-full", "a-" + _speed_text(p["speed"])
        else:
            duplex, speed = "auto", "auto"
        out.append(row((short_ifname(name), p["description"], p["status"], "routed" if p["routed"] else "1", duplex,
                        speed, _media(p)), " " * 19))
    return "\n".join(out)


_STATUS_TYPE_END = 92  # where the Flags column starts: past the widest Type this lab prints


def _status_json(st: EosStateCore) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _physical_names(st):
        p = _port(st, name, counters=False)
        mode = "routed" if p["routed"] else "bridged"
        out[name] = {
            "description": p["description"], "linkStatus": p["status"],
            "lineProtocolStatus": "up" if p["oper"] else "down", "interfaceType": _media(p),
            "bandwidth": p["speed"] * 1_000_000, "duplex": "duplexFull",
            "autoNegotiateActive": not p["forced"], "autoNegotigateActive": not p["forced"], "interfaceDamped": False,
            "vlanInformation": {"interfaceMode": mode, "interfaceForwardingModel": mode,
                                **({} if p["routed"] else {"vlanId": 1})},
        }
    return {"interfaceStatuses": out}


def _mac(st: EosStateCore, name: str) -> str:
    return _mac_of(st.name, name)


@lru_cache(maxsize=1 << 14)
def _mac_of(device: str, name: str) -> str:
    n = (sum(map(ord, device)) * 131 + sum(map(ord, name))) & 0xFFFFFF
    return f"00:1c:73:{n >> 16:02x}:{(n >> 8) & 0xFF:02x}:{n & 0xFF:02x}"


def _interface_json(st: EosStateCore, name: str) -> dict[str, Any]:
    p = _port(st, name)
    c = p["counters"]
    rx, tx = c.get("rx_packets", 0), c.get("tx_packets", 0)
    crc, sym = c.get("crc_errors", 0), c.get("symbol_errors", 0)
    addr: list[dict[str, Any]] = []
    if p["address"]:
        ip, prefixlen, _ = iface(p["address"])
        addr = [{"primaryIp": {"address": ip, "maskLen": prefixlen},
                 "secondaryIps": {}, "secondaryIpsOrderedList": [], "broadcastAddress": "255.255.255.255"}]
    out: dict[str, Any] = {
        "name": name, "forwardingModel": "routed" if p["routed"] else "bridged",
        "lineProtocolStatus": "up" if p["oper"] else "down",
        "interfaceStatus": p["status"], "hardware": p["kind"].lower() if p["kind"] != "Management" else "ethernet",
        "mtu": p["mtu"], "l3MtuConfigured": p["mtu_configured"], "l2Mru": 0, "bandwidth": p["speed"] * 1_000_000,
        "description": p["description"], "interfaceAddress": addr, "physicalAddress": _mac(st, name),
        "burnedInAddress": _mac(st, name), "lastStatusChangeTimestamp": st.booted,
    }
    if p["kind"] == "Ethernet":
        out["duplex"] = "duplexFull"
        out["interfaceCounters"] = {
            "inOctets": rx * 1100, "inUcastPkts": rx, "inMulticastPkts": 0, "inBroadcastPkts": 0, "inDiscards": 0,
            "inTotalPkts": rx, "outOctets": tx * 1100, "outUcastPkts": tx, "outMulticastPkts": 0,
            "outBroadcastPkts": 0, "outDiscards": 0, "totalInErrors": crc + sym, "totalOutErrors": 0,
            "inputErrorsDetail": {"runtFrames": 0, "giantFrames": 0, "fcsErrors": crc, "alignmentErrors": 0,
                                  "symbolErrors": sym, "rxPause": 0},
            "outputErrorsDetail": {"collisions": 0, "lateCollisions": 0, "deferredTransmissions": 0, "txPause": 0},
            "linkStatusChanges": c.get("carrier_changes", 0), "counterRefreshTime": time.time(),
        }
    return out


def _interface_template(ethernet: bool, addressed: bool) -> str:
    """The JSON of one ``_interface_json`` entry (``"name": {...}``) with the moving values as fields, for
    :func:`_interfaces_json_text`: the same keys in the same order as ``_interface_json``."""
    addr = [{"primaryIp": {"address": SLOT, "maskLen": SLOT}, "secondaryIps": {}, "secondaryIpsOrderedList": [],
             "broadcastAddress": "255.255.255.255"}] if addressed else []
    out: dict[str, Any] = {
        "name": SLOT, "forwardingModel": SLOT, "lineProtocolStatus": SLOT, "interfaceStatus": SLOT,
        "hardware": SLOT, "mtu": SLOT, "l3MtuConfigured": SLOT, "l2Mru": 0, "bandwidth": SLOT,
        "description": SLOT, "interfaceAddress": addr, "physicalAddress": SLOT, "burnedInAddress": SLOT,
        "lastStatusChangeTimestamp": SLOT,
    }
    if ethernet:
        out["duplex"] = "duplexFull"
        out["interfaceCounters"] = {
            "inOctets": SLOT, "inUcastPkts": SLOT, "inMulticastPkts": 0, "inBroadcastPkts": 0, "inDiscards": 0,
            "inTotalPkts": SLOT, "outOctets": SLOT, "outUcastPkts": SLOT, "outMulticastPkts": 0,
            "outBroadcastPkts": 0, "outDiscards": 0, "totalInErrors": SLOT, "totalOutErrors": 0,
            "inputErrorsDetail": {"runtFrames": 0, "giantFrames": 0, "fcsErrors": SLOT, "alignmentErrors": 0,
                                  "symbolErrors": SLOT, "rxPause": 0},
            "outputErrorsDetail": {"collisions": 0, "lateCollisions": 0, "deferredTransmissions": 0, "txPause": 0},
            "linkStatusChanges": SLOT, "counterRefreshTime": SLOT,
        }
    return json_template({SLOT: out})


_INTERFACE_TEMPLATES = {(e, a): _interface_template(e, a) for e in (False, True) for a in (False, True)}


def _interfaces_json_text(st: EosStateCore, names: list[str]) -> Encoded:
    """``{"interfaces": {n: _interface_json(st, n) for n in names}}`` written as JSON text directly."""
    parts = []
    booted = json_float(st.booted)
    for name in names:
        p = _port(st, name)
        ethernet = p["kind"] == "Ethernet"
        mac = ENCODE(_mac(st, name))
        values = [ENCODE(name), ENCODE(name), '"routed"' if p["routed"] else '"bridged"',
                  '"up"' if p["oper"] else '"down"', ENCODE(p["status"]),
                  ENCODE(p["kind"].lower() if p["kind"] != "Management" else "ethernet"), p["mtu"],
                  "true" if p["mtu_configured"] else "false", p["speed"] * 1_000_000, ENCODE(p["description"])]
        if p["address"]:
            ip, prefixlen, _ = iface(p["address"])
            values += (ENCODE(ip), prefixlen)
        values += (mac, mac, booted)
        if ethernet:
            c = p["counters"]
            rx, tx = c.get("rx_packets", 0), c.get("tx_packets", 0)
            crc, sym = c.get("crc_errors", 0), c.get("symbol_errors", 0)
            values += (rx * 1100, rx, rx, tx * 1100, tx, crc + sym, crc, sym, c.get("carrier_changes", 0),
                       json_float(time.time()))
        parts.append(_INTERFACE_TEMPLATES[ethernet, bool(p["address"])].format(*values))
    return Encoded(json_entries("interfaces", parts),
                   lambda: {"interfaces": {n: _interface_json(st, n) for n in names}})


def _interfaces_text(st: EosStateCore, names: list[str]) -> str:
    out: list[str] = []
    for name in names:
        j = _interface_json(st, name)
        up = "up" if j["lineProtocolStatus"] == "up" else "down"
        admin = "administratively down" if j["interfaceStatus"] == "disabled" else up
        out.append(f"{name} is {admin}, line protocol is {up} ({j['interfaceStatus']})")
        out.append(f"  Hardware is {j['hardware'].capitalize()}, address is {j['physicalAddress']}")
        if j["description"]:
            out.append(f"  Description: {j['description']}")
        for a in j["interfaceAddress"]:
            out.append(f"  Internet address is {a['primaryIp']['address']}/{a['primaryIp']['maskLen']}")
        out.append(f"  IP MTU {j['mtu']} bytes, BW {j['bandwidth'] // 1000} kbit")
        c = j.get("interfaceCounters")
        if c:
            out.append(f"  {c['linkStatusChanges']} link status changes since last clear")
            out.append(f"     {c['inUcastPkts']} packets input, {c['inOctets']} bytes")
            e = c["inputErrorsDetail"]
            out.append(f"     {c['totalInErrors']} input errors, {e['fcsErrors']} CRC, 0 alignment, "
                       f"{e['symbolErrors']} symbol, 0 input discards")
            out.append(f"     {c['outUcastPkts']} packets output, {c['outOctets']} bytes")
    return "\n".join(out)


# --------------------------------------------------------------------------- version


def _version(st: EosStateCore) -> dict[str, Any]:
    return {"mfgName": "Arista", "modelName": reported_fact(st, "hwsku", st.model), "hardwareRevision": "11.00",
            "serialNumber": f"LAB{zlib.crc32(st.name.encode()) % 10**8:08d}", "systemMacAddress": _mac(st, "system"),
            "hwMacAddress": _mac(st, "system"), "configMacAddress": "00:00:00:00:00:00",
            "version": reported_fact(st, "version", st.release),
            "architecture": "x86_64", "internalVersion": f"{EOS_VERSION}-lab", "internalBuildId": "roceops-lab",
            "imageFormatVersion": "3.0", "imageOptimization": "Strata-4GB", "bootupTimestamp": st.booted,
            "uptime": time.time() - st.booted, "memTotal": 32_588_196, "memFree": 27_019_668, "isIntlVersion": False}


def _version_text(st: EosStateCore) -> str:
    v = _version(st)
    up = int(v["uptime"])
    return "\n".join([
        f"Arista {v['modelName']}", f"Hardware version: {v['hardwareRevision']}",
        f"Serial number: {v['serialNumber']}", f"Hardware MAC address: {v['hwMacAddress']}",
        f"System MAC address: {v['systemMacAddress']}", "", f"Software image version: {v['version']}",
        f"Architecture: {v['architecture']}", f"Internal build version: {v['internalVersion']}",
        f"Internal build ID: {v['internalBuildId']}", f"Image format version: {v['imageFormatVersion']}",
        f"Image optimization: {v['imageOptimization']}", "",
        f"Uptime: {up // 3600} hours and {up % 3600 // 60} minutes", f"Total memory: {v['memTotal']} kB",
        f"Free memory: {v['memFree']} kB"])
