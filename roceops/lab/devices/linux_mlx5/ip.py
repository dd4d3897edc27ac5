"""iproute2 ``ip`` (link, addr, route, rule; text and ``-j`` JSON) on the simulated host.

JSON follows iproute2's keys (``ifname``, ``mtu``, ``operstate``, ``addr_info`` with ``local``/
``prefixlen``; routes ``dst``/``gateway``/``dev``/``table``/``protocol``; rules ``priority``/
``src``/``srclen``/``table``). Errors are the kernel's extack / ``RTNETLINK answers`` texts.
"""

from __future__ import annotations

import ipaddress
import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.linux_mlx5.model import (
    DEFAULT_RULES,
    MAX_MTU,
    Nic,
    Route,
    Rule,
    parse_table,
    table_name,
)
from roceops.lab.devices.linux_mlx5.shell import Program, Result, fail, ok

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.shell import Shell

EPERM = "RTNETLINK answers: Operation not permitted"
EEXIST = "RTNETLINK answers: File exists"


def _json(data: Any, pretty: bool) -> str:
    return json.dumps(data, separators=(",", ":"), indent=4 if pretty else None)


def _dev_missing(dev: str) -> Result:
    return fail(f'Cannot find device "{dev}"', 1)


def _links(sh: Shell) -> list[dict[str, Any]]:
    st = sh.state
    out: list[dict[str, Any]] = [
        {"ifindex": 1, "ifname": "lo", "flags": ["LOOPBACK", "UP", "LOWER_UP"], "mtu": 65536, "qdisc": "noqueue",
         "operstate": "UNKNOWN", "linkmode": "DEFAULT", "group": "default", "txqlen": 1000, "link_type": "loopback",
         "address": "00:00:00:00:00:00", "broadcast": "00:00:00:00:00:00"},
        {"ifindex": 2, "ifname": "eno1", "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"], "mtu": 1500,
         "qdisc": "mq", "operstate": "UP", "linkmode": "DEFAULT", "group": "default", "txqlen": 1000,
         "link_type": "ether", "address": "3c:ec:ef:00:10:01", "broadcast": "ff:ff:ff:ff:ff:ff"},
    ]
    for nic in st.host.nics.values():
        up = st.nic_up(nic)
        flags = ["BROADCAST", "MULTICAST"] + (["UP"] if nic.admin_up else []) + (["LOWER_UP"] if up else [])
        if nic.admin_up and not up:
            flags.insert(0, "NO-CARRIER")
        out.append({"ifindex": nic.ifindex, "ifname": nic.name, "flags": flags, "mtu": nic.mtu, "qdisc": "mq",
                    "operstate": "UP" if up else "DOWN", "linkmode": "DEFAULT", "group": "default",
                    "txqlen": 1000, "link_type": "ether", "address": nic.mac, "broadcast": "ff:ff:ff:ff:ff:ff"})
    return out


@lru_cache(maxsize=1 << 14)
def _network(ip: str, plen: int) -> ipaddress.IPv4Network:
    """The connected network of ``ip/plen`` (a pure function: its answers are kept)."""
    return ipaddress.IPv4Interface(f"{ip}/{plen}").network


def _addr_info(sh: Shell, ifname: str) -> list[dict[str, Any]]:
    def entry(ip: str, plen: int, scope: str, label: str) -> dict[str, Any]:
        net = _network(ip, plen)
        e: dict[str, Any] = {"family": "inet", "local": ip, "prefixlen": plen}
        if plen < 31:
            e["broadcast"] = str(net.broadcast_address)
        e.update({"scope": scope, "label": label, "valid_life_time": 4294967295,
                  "preferred_life_time": 4294967295})
        return e

    if ifname == "lo":
        return [entry("127.0.0.1", 8, "host", "lo")]
    if ifname == "eno1":
        mgmt = sh.state.host.mgmt_ip
        return [entry(mgmt, 24, "global", "eno1")] if mgmt else []
    return [entry(a, p, "global", ifname) for a, p in sh.state.host.nics[ifname].addrs]


def _iter_routes(sh: Shell) -> list[dict[str, Any]]:
    """Every IPv4 route as iproute2 prints it for ``table all``: user routes, connected, local."""
    host = sh.state.host
    out: list[dict[str, Any]] = []
    for r in sorted(host.routes, key=lambda r: (r.table != 254, r.table, r.dst != "0.0.0.0/0", r.dst)):
        e: dict[str, Any] = {"dst": "default" if r.dst == "0.0.0.0/0" else r.dst}
        if r.gateway:
            e["gateway"] = r.gateway
        e["dev"] = r.dev
        if r.table != 254:
            e["table"] = table_name(r.table)
        if r.proto != "boot":
            e["protocol"] = r.proto
        if r.metric:
            e["metric"] = r.metric
        nic = host.nics.get(r.dev)
        e["flags"] = [] if nic is None or sh.state.nic_up(nic) else ["linkdown"]
        out.append(e)
    ifaces: list[tuple[str, list[tuple[str, int]]]] = [("eno1", [(host.mgmt_ip, 24)] if host.mgmt_ip else [])]
    ifaces += [(n.name, n.addrs) for n in host.nics.values() if n.admin_up]
    for dev, addrs in ifaces:
        for ip, plen in addrs:
            net = _network(ip, plen)
            out.append({"dst": str(net), "dev": dev, "protocol": "kernel", "scope": "link", "prefsrc": ip,
                        "flags": []})
    for dev, addrs in [("lo", [("127.0.0.1", 8)]), *ifaces]:
        for ip, plen in addrs:
            net = _network(ip, plen)
            local = [{"type": "local", "dst": ip, "table": "local", "dev": dev, "protocol": "kernel",
                      "scope": "host", "prefsrc": ip, "flags": []}]
            if plen < 31:
                local.append({"type": "broadcast", "dst": str(net.broadcast_address), "table": "local",
                              "dev": dev, "protocol": "kernel", "scope": "link", "prefsrc": ip, "flags": []})
            out.extend(local)
    return out


def _route_text(e: dict[str, Any]) -> str:
    parts = [e["type"]] if "type" in e else []
    parts.append(e["dst"])
    if "gateway" in e:
        parts += ["via", e["gateway"]]
    parts += ["dev", e["dev"]]
    if "table" in e:
        parts += ["table", e["table"]]
    if "protocol" in e:
        parts += ["proto", e["protocol"]]
    if "scope" in e:
        parts += ["scope", e["scope"]]
    if "prefsrc" in e:
        parts += ["src", e["prefsrc"]]
    if "metric" in e:
        parts += ["metric", str(e["metric"])]
    parts += e["flags"]
    return " ".join(parts)


def _rules(sh: Shell) -> list[Rule]:
    return sorted([*DEFAULT_RULES, *sh.state.host.rules], key=lambda r: r.priority)


def _rule_json(r: Rule) -> dict[str, Any]:
    e: dict[str, Any] = {"priority": r.priority}
    if r.src is None:
        e["src"] = "all"
    else:
        net = ipaddress.IPv4Network(r.src)
        e["src"] = str(net.network_address)
        if net.prefixlen != 32:
            e["srclen"] = net.prefixlen
    e["table"] = table_name(r.table)
    return e


def _kv(words: list[str]) -> tuple[str | None, dict[str, str], list[str]]:
    """Split iproute2 arguments into a leading positional (prefix), keyword options and flags."""
    positional: str | None = None
    opts: dict[str, str] = {}
    flags: list[str] = []
    keys = {"via", "dev", "table", "lookup", "proto", "protocol", "metric", "priority", "preference", "pref", "prio",
            "src", "from", "to", "mtu", "scope", "label", "broadcast", "brd", "peer", "tos", "name", "type"}
    i = 0
    while i < len(words):
        w = words[i]
        if w in keys and i + 1 < len(words):
            opts[{"lookup": "table", "protocol": "proto", "preference": "priority", "pref": "priority",
                  "prio": "priority", "brd": "broadcast"}.get(w, w)] = words[i + 1]
            i += 2
            continue
        if positional is None and w not in ("onlink", "up", "down", "all"):
            positional = w
        else:
            flags.append(w)
        i += 1
    return positional, opts, flags


def ip(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    flags: set[str] = set()
    while args and args[0].startswith("-"):
        a = args.pop(0).lstrip("-")
        flags.update({"json": "j", "details": "d", "stats": "s", "statistics": "s", "pretty": "p",
                      "brief": "br"}.get(a, a) if len(a) > 2 else set(a) if a != "br" else {"br"})
    if not args:
        return fail("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }", 255)
    obj, rest = args[0], args[1:]
    cmd = rest[0] if rest else "show"
    words = rest[1:] if rest else []
    obj = {"l": "link", "a": "addr", "address": "addr", "r": "route", "ro": "route", "ru": "rule"}.get(obj, obj)
    if cmd in ("list", "lst", "ls"):
        cmd = "show"
    if cmd == "show":
        return _show(sh, obj, words, flags)
    if not sh.can_write:
        return fail(EPERM, 2)
    if obj == "link" and cmd == "set":
        return _link_set(sh, words)
    if obj == "addr" and cmd in ("add", "replace", "del", "delete", "flush"):
        return _addr_change(sh, cmd, words)
    if obj == "route" and cmd in ("add", "replace", "change", "del", "delete", "flush"):
        return _route_change(sh, cmd, words)
    if obj == "rule" and cmd in ("add", "del", "delete", "flush"):
        return _rule_change(sh, cmd, words)
    return fail(f'Command "{cmd}" is unknown, try "ip {obj} help".', 255)


def _show(sh: Shell, obj: str, words: list[str], flags: set[str]) -> Result:
    js, pretty = "j" in flags, "p" in flags
    if obj in ("link", "addr"):
        _, opts, _ = _kv(words)
        dev = opts.get("dev") or next((w for w in words if w != "dev"), None)
        links = _links(sh)
        if dev is not None:
            links = [lk for lk in links if lk["ifname"] == dev]
            if not links:
                return fail(f'Device "{dev}" does not exist.', 1)
        if obj == "addr":
            for lk in links:
                lk.pop("linkmode", None)
                lk["addr_info"] = _addr_info(sh, lk["ifname"])
        if js:
            return ok(_json(links, pretty))
        if "br" in flags:
            return ok("\n".join(
                f"{lk['ifname']:<16} {lk['operstate']:<14} " + (
                    " ".join(f"{a['local']}/{a['prefixlen']}" for a in lk["addr_info"]) if obj == "addr" else
                    f"{lk['address']} <{','.join(lk['flags'])}>") for lk in links))
        lines = []
        for lk in links:
            lines.append(f"{lk['ifindex']}: {lk['ifname']}: <{','.join(lk['flags'])}> mtu {lk['mtu']} qdisc "
                         f"{lk['qdisc']} state {lk['operstate']} {'mode DEFAULT ' if obj == 'link' else ''}"
                         f"group default qlen {lk['txqlen']}")
            lines.append(f"    link/{lk['link_type']} {lk['address']} brd {lk['broadcast']}")
            for a in lk.get("addr_info", []):
                brd = f" brd {a['broadcast']}" if "broadcast" in a else ""
                lines.append(f"    inet {a['local']}/{a['prefixlen']}{brd} scope {a['scope']} {a['label']}")
                lines.append("       valid_lft forever preferred_lft forever")
        return ok("\n".join(lines))
    if obj == "route":
        _, opts, _ = _kv(words)
        table = opts.get("table", "main")
        routes = _iter_routes(sh)
        if table != "all":
            tid = parse_table(table)
            if tid is None:
                return fail(f'Error: argument "{table}" is wrong: table id value is invalid', 1)
            routes = [{k: v for k, v in r.items() if k != "table"} for r in routes
                      if (parse_table(r.get("table", "main")) or 254) == tid]
        if "dev" in opts:
            routes = [r for r in routes if r["dev"] == opts["dev"]]
        return ok(_json(routes, pretty) if js else "\n".join(_route_text(r) for r in routes))
    if obj == "rule":
        rules = _rules(sh)
        if js:
            return ok(_json([_rule_json(r) for r in rules], pretty))
        lines = []
        for r in rules:
            e = _rule_json(r)
            src = e["src"] + (f"/{e['srclen']}" if "srclen" in e else "")
            lines.append(f"{r.priority}:\tfrom {src} lookup {e['table']}")
        return ok("\n".join(lines))
    return fail(f'Object "{obj}" is unknown, try "ip help".', 1)


def _nic(sh: Shell, dev: str | None) -> Nic | None:
    return sh.state.host.nics.get(dev or "")


def _link_set(sh: Shell, words: list[str]) -> Result:
    if words and words[0] == "dev":
        words = words[1:]
    if not words:
        return fail("Not enough of information: \"dev\" argument is required.", 1)
    dev, words = words[0], words[1:]
    nic = _nic(sh, dev)
    if nic is None:
        return _dev_missing(dev)
    i = 0
    while i < len(words):
        w = words[i]
        if w == "mtu" and i + 1 < len(words):
            if not words[i + 1].isdigit():
                return fail(f'Error: argument "{words[i + 1]}" is wrong: Invalid "mtu" value', 1)
            mtu = int(words[i + 1])
            if mtu < 68 or mtu > MAX_MTU:
                return fail(f"Error: mtu {'less than device minimum' if mtu < 68 else 'greater than device maximum'}"
                            ".", 2)
            nic.mtu = mtu
            i += 2
        elif w in ("up", "down"):
            nic.admin_up = w == "up"
            if not nic.admin_up:  # the kernel flushes the device's IPv4 routes
                sh.state.host.routes = [r for r in sh.state.host.routes if r.dev != nic.name]
            i += 1
        else:
            return fail(f'Error: either "dev" is duplicate, or "{w}" is a garbage.', 1)
    return Result()


def _iface(text: str) -> ipaddress.IPv4Interface | None:
    try:
        return ipaddress.IPv4Interface(text if "/" in text else f"{text}/32")
    except ValueError:
        return None


def _addr_change(sh: Shell, cmd: str, words: list[str]) -> Result:
    prefix, opts, _ = _kv(words)
    nic = _nic(sh, opts.get("dev"))
    if opts.get("dev") is None:
        return fail('Not enough information: "dev" argument is required.', 1)
    if nic is None:
        return _dev_missing(opts["dev"])
    if cmd == "flush":
        nic.addrs.clear()
        sh.state.host.prune_routes(nic.name)
        return Result()
    iface = _iface(prefix or "")
    if iface is None:
        return fail(f'Error: any valid prefix is expected rather than "{prefix}".', 1)
    entry = (str(iface.ip), iface.network.prefixlen)
    present = [a for a in nic.addrs if a[0] == entry[0]]
    if cmd in ("del", "delete"):
        if entry not in nic.addrs:
            return fail("RTNETLINK answers: Cannot assign requested address", 2)
        nic.addrs.remove(entry)
        sh.state.host.prune_routes(nic.name)
        return Result()
    if present and cmd == "add":
        return fail(EEXIST, 2)
    for a in present:
        nic.addrs.remove(a)
    nic.addrs.append(entry)
    return Result()


def _route_change(sh: Shell, cmd: str, words: list[str]) -> Result:
    host = sh.state.host
    dst_text, opts, flags = _kv(words)
    table = parse_table(opts.get("table", "main"))
    if table is None:
        return fail(f'Error: argument "{opts.get("table")}" is wrong: "table" value is invalid', 1)
    if cmd == "flush":
        host.routes = [r for r in host.routes if r.table != table and opts.get("table") != "all"]
        return Result()
    if dst_text is None:
        return fail("Error: either \"to\" is duplicate, or a garbage.", 1)
    try:
        dst = ipaddress.IPv4Network("0.0.0.0/0" if dst_text == "default" else dst_text)
    except ValueError:
        msg = "Invalid prefix for given prefix length." if "/" in dst_text else f'any valid prefix is expected ' \
              f'rather than "{dst_text}".'
        return fail(f"Error: {msg}", 2 if "/" in dst_text else 1)
    metric = int(opts.get("metric", "0")) if opts.get("metric", "0").isdigit() else 0
    key = (table, str(dst), metric)
    existing = [r for r in host.routes if (r.table, r.dst, r.metric) == key]
    if cmd in ("del", "delete"):
        match = [r for r in existing if ("via" not in opts or r.gateway == opts["via"])
                 and ("dev" not in opts or r.dev == opts["dev"])]
        if not match:
            return fail("RTNETLINK answers: No such process", 2)
        host.routes.remove(match[0])
        return Result()
    dev = opts.get("dev")
    if dev is not None and dev not in host.nics:
        return _dev_missing(dev)
    gateway = opts.get("via")
    if gateway is not None:
        if _iface(gateway) is None:
            return fail(f'Error: inet address is expected rather than "{gateway}".', 1)
        via_dev = host.gateway_dev(gateway, dev)
        if via_dev is None and "onlink" not in flags:
            return fail("Error: Nexthop has invalid gateway.", 2)
        dev = dev or via_dev
    if dev is None:
        return fail("Error: Device for nexthop is not up." if gateway else "RTNETLINK answers: No such device", 2)
    if not host.nics[dev].admin_up:
        return fail("Error: Nexthop device is not up.", 2)
    if existing and cmd == "add":
        return fail(EEXIST, 2)
    if not existing and cmd == "change":
        return fail("RTNETLINK answers: No such file or directory", 2)
    for r in existing:
        host.routes.remove(r)
    host.routes.append(Route(table=table, dst=str(dst), gateway=gateway, dev=dev, metric=metric,
                             proto=opts.get("proto", "boot"), src=opts.get("src")))
    return Result()


def _rule_change(sh: Shell, cmd: str, words: list[str]) -> Result:
    host = sh.state.host
    _, opts, _ = _kv(words)
    src: str | None = None
    if opts.get("from", "all") != "all":
        iface = _iface(opts["from"])
        if iface is None:
            return fail(f'Error: inet prefix is expected rather than "{opts["from"]}".', 1)
        src = str(iface.network)
    table = parse_table(opts["table"]) if "table" in opts else None
    if "table" in opts and table is None:
        return fail(f'Error: argument "{opts["table"]}" is wrong: invalid table ID', 1)
    prio = int(opts["priority"]) if opts.get("priority", "").isdigit() else None
    if cmd == "flush":
        host.rules.clear()
        return Result()
    if cmd in ("del", "delete"):
        for r in host.rules:
            if (prio is None or r.priority == prio) and ("from" not in opts or r.src == src) \
                    and (table is None or r.table == table):
                host.rules.remove(r)
                return Result()
        return fail("RTNETLINK answers: No such file or directory", 2)
    if table is None:
        table = 254
    if prio is None:
        ordered = _rules(sh)
        prio = ordered[1].priority - 1 if len(ordered) > 1 and ordered[1].priority else 0
    rule = Rule(priority=prio, src=src, table=table)
    if rule in host.rules or rule in DEFAULT_RULES:
        return fail(EEXIST, 2)
    host.rules.append(rule)
    return Result()


PROGRAMS: dict[str, Program] = {
    "ip": ip,
}
