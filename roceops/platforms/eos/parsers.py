"""Arista EOS parsers (pure: device output in, data out; they never see the intent).

* ``show running-config`` -> :class:`roceops.device.observed.ObservedSwitch` (:func:`observe_config`), read as the
  tree hier_config would build (:func:`config_tree`: a light reader, hier_config itself for unusual text):

  ==========================  ===================================================================================
  ObservedSwitch              from
  ==========================  ===================================================================================
  ``name``, ``loopback``      ``hostname``; ``interface Loopback0`` ``ip address`` (unset when it has none)
  ``ports[<Ethernet...>]``    every front-panel interface: speed, MTU, shutdown, description, ``ip address``,
                              PFC no-drop priorities, per-port watchdog, and per port ``trust`` (``qos trust``)
                              and ``queues`` (its ``[uc-]tx-queue`` sections)
  ``qos``                     ``qos map dscp ... to traffic-class``, ``qos map traffic-class ... to tx-queue``,
                              ``priority-flow-control pause watchdog ...`` (``trust``/``queues``/
                              ``lossless_priorities`` unset: EOS holds them per port)
  ``bgp``                     ``router bgp``: neighbours by address (port: the interface whose subnet holds
                              them), networks by prefix
  ==========================  ===================================================================================

* Text tables: ``show interfaces status`` (both layouts: without and with the Flags column, including lines
  whose whitespace was collapsed) and ``show interfaces counters queue detail`` (egress part).
* ``| json`` outputs in the shapes ANTA's tests use (platforms.md section 3.6): ``show interfaces``,
  ``show interfaces status``, ``show priority-flow-control counters [detail]`` and ``... counters watchdog``,
  ``show qos interfaces ecn counters queue``, ``show lldp neighbors``, ``show ip bgp summary``, ``show version``,
  ``show configuration sessions``.

Units: ECN thresholds ``kbytes`` x 1024 (also ``bytes``/``mbytes``); watchdog timers are seconds -> ms;
``speed`` keywords -> Mb/s through :data:`roceops.platforms.eos.render.SPEED_KEYWORDS`. Defaults EOS does not
print are filled in: MTU 1500, admin up, ``qos trust`` ``none``, strict-priority queues without ECN (every queue
of the TC->queue map that an interface does not configure), the TC->queue identity, the DSCP->TC table DSCP/8
(unconfirmed; the rendered config sets all 64 DSCPs explicitly, so it never matters for roceops-managed switches).
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import itemgetter
from typing import Any

from roceops.device.observed import (
    ObservedBgp,
    ObservedBgpNeighbor,
    ObservedEcn,
    ObservedPfcWatchdog,
    ObservedQos,
    ObservedQueue,
    ObservedSwitch,
    ObservedSwitchPort,
)
from roceops.platforms.eos.config_tree import (
    Line,
    config_tree,
    line_children,
    line_text,
)
from roceops.platforms.eos.parsers_addresses import SubnetIndex, network_key
from roceops.platforms.eos.render import SPEED_KEYWORDS
from roceops.util import json_text
from roceops.util.sorting import INVALID_IP_VERSION, ip_sort_key, port_key, prefix_key, quad_bytes

CMD_RUNNING = "show running-config"
CMD_INTERFACES = "show interfaces | json"
CMD_PFC = "show priority-flow-control counters detail | json"
CMD_PFC_WATCHDOG = "show priority-flow-control counters watchdog | json"
CMD_ECN = "show qos interfaces ecn counters queue | json"
CMD_LLDP = "show lldp neighbors | json"
# IPv6 neighbours per routed port: a host NIC's MAC where the host sends no LLDP. JSON keys ipV6Neighbors[].
# address/hwAddress/interface as in a capture from EOS (scottpeterman/fibtrace fibtrace/parsers.py @ 9bee2ab0,
# `parse_nd`; interface short `Et1`, MAC dotted), the same keys as `show arp | json` (napalm-automation/napalm
# test/eos/mocked_data/test_get_arp_table/normal/show_arp.json @ 0b05c2a0, interface long `Ethernet45`)
CMD_NDP = "show ipv6 neighbors | json"
CMD_BGP = "show ip bgp summary | json"
CMD_VERSION = "show version | json"
CMD_SESSIONS = "show configuration sessions | json"

SPEED_OF_KEYWORD: dict[str, int] = {kw: mbps for mbps, kw in SPEED_KEYWORDS.items()} | {
    "400g-4": 400_000, "100g-4": 100_000, "100g-2": 100_000, "100g-1": 100_000, "200g-2": 200_000,
    "800g-4": 800_000, "1gfull": 1000,
}
ACTION_OF_WATCHDOG = {"drop": "drop", "no-drop": "forward"}
UNIT_BYTES = {"bytes": 1, "kbytes": 1024, "mbytes": 1024 * 1024}
DEFAULT_MTU = 1500
DEFAULT_MARK_PROBABILITY = 100
# EOS's 8 traffic classes, each to its own tx-queue (unconfirmed, docs/platforms.md; the render maps every TC)
DEFAULT_TC_TO_QUEUE = {tc: tc for tc in range(8)}
DEFAULT_QUEUE = ObservedQueue(scheduler="strict", weight=None, ecn=None)  # a tx-queue the config says nothing of
FRONT_PANEL = re.compile(r"Ethernet\d+(?:/\d+)*")  # the interfaces reported as ports (not Management, Loopback...)


class ParseError(ValueError):
    """Output that is not what the command prints (an EOS error, truncated JSON...)."""


# --------------------------------------------------------------------------- running-config -> intent


_TX_QUEUE = re.compile(r"(?:uc-)?tx-queue (\d+)")  # uc-tx-queue: the unicast queue on split uc/mc platforms
_NO_DROP = re.compile(r"priority-flow-control priority (\d) no-drop")
_NEIGHBOR_AS = re.compile(r"neighbor (\S+) remote-as (\S+)")
_NEIGHBOR_DESCRIPTION = re.compile(r"neighbor (\S+) description (.+)")
_NETWORK = re.compile(r"network (\S+)(?: .*)?")
_ECN = re.compile(r"random-detect ecn minimum-threshold (\d+) (\S+) maximum-threshold (\d+) (\S+)"
                  r"(?: max-mark-probability (\d+))?")
_QOS_MAP_DSCP = re.compile(r"qos map dscp ([\d ]+) to traffic-class (\d+)(?: drop-precedence \d)?")
_QOS_MAP_TC = re.compile(r"qos map traffic-class (\d+) to tx-queue (\d+)")
_WATCHDOG_TIMER = re.compile(r"priority-flow-control pause watchdog default (timeout|recovery-time|polling-interval)"
                             r" ([\d.]+)")
_WATCHDOG_ACTION = re.compile(r"priority-flow-control pause watchdog action (\S+)")
_INTF_VALUE = re.compile(r"(speed|mtu|description|ip address|qos trust) (.*)", re.S)  # prefix, the rest


def default_dscp_to_tc() -> dict[int, int]:
    """EOS's built-in DSCP->TC table as assumed here: DSCP/8 (platforms.md: unconfirmed)."""
    return {d: d >> 3 for d in range(64)}


def _ecn(line: str) -> ObservedEcn | None:
    m = _ECN.match(line)
    if m is None:
        return None
    lo, lo_unit, hi, hi_unit, prob = m.groups()
    return ObservedEcn(min_bytes=int(lo) * UNIT_BYTES[lo_unit] if lo_unit in UNIT_BYTES else None,
                       max_bytes=int(hi) * UNIT_BYTES[hi_unit] if hi_unit in UNIT_BYTES else None,
                       probability=int(prob) if prob else DEFAULT_MARK_PROBABILITY)


def parse_tx_queues(intf: Line) -> dict[int, ObservedQueue]:
    """``tx-queue N`` / ``uc-tx-queue N`` sections of one interface: scheduler (strict unless ``no priority``),
    weight, ECN."""
    out: dict[int, ObservedQueue] = {}
    for q in line_children(intf):
        _read_tx_queue(q, q if isinstance(q, str) else q.text, out)
    return out


def _read_tx_queue(q: Line, text: str, out: dict[int, ObservedQueue]) -> None:
    """``out[N]`` for a ``[uc-]tx-queue N`` line ``q`` (whose text is ``text``): the queue its lines describe."""
    if text.startswith(("tx-queue ", "uc-tx-queue ")) and (m := _TX_QUEUE.fullmatch(text)):
        lines = () if isinstance(q, str) else tuple([c if isinstance(c, str) else c.text for c in q.children])
        out[int(m.group(1))] = _tx_queue(lines)


@lru_cache(maxsize=256)  # every interface has the same few tx-queue sections; the models are frozen, so shared
def _tx_queue(lines: tuple[str, ...]) -> ObservedQueue:
    """Scheduler, weight and ECN of a ``tx-queue`` section's lines."""
    dwrr = False
    weight_line = ecn_line = None  # the first line of each kind
    for t in lines:
        if t == "no priority":
            dwrr = True
        elif weight_line is None and t.startswith("bandwidth percent "):
            weight_line = t
        elif ecn_line is None and t.startswith("random-detect ecn minimum-threshold"):
            ecn_line = t
    weight = int(weight_line.split()[-1]) if weight_line is not None and dwrr else None
    ecn = _ecn(ecn_line) if ecn_line is not None else None
    return ObservedQueue(scheduler="dwrr" if dwrr else "strict", weight=weight, ecn=ecn)


_Leaf = tuple[str, str] | int | bool | None  # what a line of an interface section says (_interface_leaf)


def parse_interface(intf: Line, leaf_memo: dict[str, _Leaf] | None = None) -> dict[str, Any]:
    """One ``interface`` section -> ObservedSwitchPort fields: name, speed (Mb/s, None for a keyword not in
    :data:`SPEED_OF_KEYWORD`), MTU, admin state, description, address, PFC, watchdog, ``trust`` (``none``
    when not configured) and the ``queues`` it configures.

    ``leaf_memo`` (one per running-config: interfaces repeat most of their lines) remembers what each line
    says (:func:`_interface_leaf`)."""
    values: dict[str, str] = {}  # the first line with each _INTF_VALUE prefix: the rest of it, stripped
    leaves: list[str] = []  # the lines without lines under them
    no_drop: list[int] = []
    queues: dict[int, ObservedQueue] = {}  # parse_tx_queues(intf), read in the same pass
    memo = {} if leaf_memo is None else leaf_memo
    for c in line_children(intf):
        if not isinstance(c, str):
            _read_tx_queue(c, c.text, queues)
            continue
        leaves.append(c)
        said = memo[c] if c in memo else memo.setdefault(c, _interface_leaf(c))
        if said is None:
            continue
        if said is True:
            _read_tx_queue(c, c, queues)  # a tx-queue line without lines under it is one too
        elif isinstance(said, int):
            no_drop.append(said)
        elif said[0] not in values:
            values[said[0]] = said[1]
    speed = values.get("speed")
    mtu = values.get("mtu")
    out: dict[str, Any] = {
        "name": line_text(intf).split(" ", 1)[1],
        "mtu": int(mtu) if mtu else DEFAULT_MTU,
        "admin_up": "shutdown" not in leaves,
        "description": values.get("description") or "",
        "address": values.get("ip address"),
        "pfc_priorities": sorted(no_drop) if "priority-flow-control on" in leaves else [],
        "pfc_watchdog": "priority-flow-control pause watchdog" in leaves,
        "trust": values.get("qos trust") or "none",
        "queues": queues,
    }
    if speed is not None:
        out["speed"] = SPEED_OF_KEYWORD.get(speed.removeprefix("forced "))
    return out


def _interface_leaf(t: str) -> _Leaf:
    """What one line of an interface section says: (:data:`_INTF_VALUE` prefix, the rest stripped), a no-drop
    PFC priority, True for a line that may be a tx-queue, or None (nothing :func:`parse_interface` reads)."""
    if m := _INTF_VALUE.match(t):
        return m.group(1), m.group(2).strip()
    if t.startswith("priority-flow-control priority ") and (m := _NO_DROP.fullmatch(t)):
        return int(m.group(1))
    return True if t.startswith(("tx-queue ", "uc-tx-queue ")) else None


def parse_running_config(text: str) -> dict[str, Any]:
    """Everything roceops reads from an EOS running-config, as plain data (:func:`observe_config` shapes it)."""
    hc = config_tree(text)
    top = [c for c in hc.children if isinstance(c, str)]
    leaf_memo: dict[str, _Leaf] = {}
    interfaces = {text.split(" ", 1)[1]: parse_interface(c, leaf_memo) for c in hc.children
                  if (text := c if isinstance(c, str) else c.text).startswith("interface ")}
    dscp_to_tc = default_dscp_to_tc()
    tc_to_queue = dict(DEFAULT_TC_TO_QUEUE)
    watchdog: dict[str, Any] = {}
    for t in top:
        if m := _QOS_MAP_DSCP.fullmatch(t):
            dscp_to_tc.update(dict.fromkeys((int(d) for d in m.group(1).split()), int(m.group(2))))
        elif m := _QOS_MAP_TC.fullmatch(t):
            tc_to_queue[int(m.group(1))] = int(m.group(2))
        elif m := _WATCHDOG_TIMER.fullmatch(t):
            field = {"timeout": "detect_ms", "recovery-time": "restore_ms", "polling-interval": "poll_ms"}[m.group(1)]
            watchdog[field] = round(float(m.group(2)) * 1000)
        elif m := _WATCHDOG_ACTION.fullmatch(t):
            watchdog["action"] = ACTION_OF_WATCHDOG.get(m.group(1), m.group(1))
    watchdog["enabled"] = any(k in watchdog for k in ("detect_ms", "restore_ms", "poll_ms"))
    bgp: dict[str, Any] = {}
    for sec in hc.children:
        if line_text(sec).startswith("router bgp "):
            bgp = _parse_bgp(sec)
    hostname = next((t.split(" ", 1)[1] for t in top if t.startswith("hostname ")), "localhost")
    loopback = interfaces.get("Loopback0", {}).get("address")
    return {"hostname": hostname, "interfaces": interfaces, "dscp_to_tc": dscp_to_tc, "tc_to_queue": tc_to_queue,
            "pfc_watchdog": watchdog, "bgp": bgp, "loopback": loopback}


def asn_value(text: str) -> int | None:
    """An AS number as EOS prints it, plain (``4200100000``) or asdot (``64088.28832``); None if neither.

    >>> asn_value("4200100000"), asn_value("64088.28832"), asn_value("PEERS")
    (4200100000, 4200100000, None)
    """
    high, dot, low = text.partition(".")
    if dot and high.isdigit() and low.isdigit():
        return (int(high) << 16) + int(low)
    return int(text) if text.isdigit() else None


def _parse_bgp(sec: Line) -> dict[str, Any]:
    out: dict[str, Any] = {"asn": asn_value(line_text(sec).split()[-1]), "neighbors": {}, "networks": []}
    for t in map(line_text, line_children(sec)):
        if t.startswith("router-id "):
            out["router_id"] = t.split()[1]
        elif not t.startswith(("neighbor ", "network ")):  # no pattern below matches it
            continue
        elif m := _NEIGHBOR_AS.fullmatch(t):
            out["neighbors"].setdefault(m.group(1), {})["remote_asn"] = asn_value(m.group(2))
        elif m := _NEIGHBOR_DESCRIPTION.fullmatch(t):
            out["neighbors"].setdefault(m.group(1), {})["description"] = m.group(2)
        elif m := _NETWORK.fullmatch(t):
            out["networks"].append(m.group(1))
    return out


def observe_config(text: str) -> ObservedSwitch:
    """``show running-config`` -> :class:`ObservedSwitch` (only what an EOS config shows).

    Ports: every front-panel (``Ethernet...``) interface of the config, each with its own ``trust`` and
    ``queues`` (EOS configures both per interface). Device-wide in ``qos``: the DSCP->TC and TC->queue maps
    and the watchdog timers/action. ``qos.trust``, ``qos.queues`` and ``qos.lossless_priorities`` are left unset:
    EOS holds them per port only (``ports[..].trust``, ``.queues``, ``.pfc_priorities``). BGP neighbours are
    sorted by address and networks by prefix (:func:`bgp_order`), whatever order the config lists them in.
    """
    cfg = parse_running_config(text)
    ports = _observed_ports(cfg)
    qos = ObservedQos(dscp_to_tc=cfg["dscp_to_tc"], tc_to_queue=cfg["tc_to_queue"],
                      pfc_watchdog=ObservedPfcWatchdog.model_validate(cfg["pfc_watchdog"]))
    out: dict[str, Any] = {"name": cfg["hostname"], "qos": qos, "ports": ports, "bgp": _observed_bgp(cfg)}
    if cfg["loopback"]:
        out["loopback"] = cfg["loopback"]
    return ObservedSwitch.model_validate(out)


def _observed_ports(cfg: dict[str, Any]) -> dict[str, ObservedSwitchPort]:
    """The front-panel interfaces (:func:`parse_interface` dicts) as ObservedSwitchPorts in port order; each
    port's queues are those the interface configures plus, as EOS's default (strict, no weight, no ECN), every
    other queue of the device's TC->queue map.

    Interfaces that configure the same queue objects (``_tx_queue`` is cached) share one queue map: worked out
    once and, after validation (which copies the dict per port), set again as the port's value (equal; the model
    is frozen; set where pydantic keeps the field, ``__dict__``, as ``model_copy(update=...)`` does). With one
    map per kind of port on each side, the drift walk (:func:`roceops.device.compare.compare`, whose ``same``
    pairs are found by identity) walks each (expected, observed) pair of maps once, not once per port.
    Equal results: tests/platforms/eos/test_eos_observe_fast_paths.py."""
    device_queues = frozenset(cfg["tc_to_queue"].values())
    maps: dict[tuple[tuple[int, int], ...], dict[int, ObservedQueue]] = {}  # by (queue, id of its object)
    ports = {}
    for name, intf in sorted(cfg["interfaces"].items(), key=lambda kv: port_key(kv[0])):
        if not FRONT_PANEL.fullmatch(name):
            continue
        queues: dict[int, ObservedQueue] = intf["queues"]
        key = tuple([(qid, id(q)) for qid, q in queues.items()])
        if (shared := maps.get(key)) is None:
            if not device_queues <= queues.keys():
                queues = {qid: queues.get(qid, DEFAULT_QUEUE) for qid in sorted(device_queues | queues.keys())}
            shared = maps[key] = queues
        port = ObservedSwitchPort.model_validate({**intf, "queues": shared})
        port.__dict__["queues"] = shared
        ports[name] = port
    return ports


def bgp_order(neighbors: list[ObservedBgpNeighbor], networks: list[str]) -> tuple[list[ObservedBgpNeighbor], list[str]]:
    """BGP neighbours sorted by address (:func:`neighbor_sort_key`), networks de-duplicated and sorted by prefix
    (:func:`network_order`): the one order both :func:`observe_config` and the driver's ``expected`` use (lists
    are compared as a whole)."""
    return sorted(neighbors, key=lambda n: neighbor_sort_key(n.ip)), network_order(networks)


def neighbor_sort_key(ip: str | None) -> tuple[int, int, str]:
    """Where a BGP neighbour with address ``ip`` goes in :func:`bgp_order`: :func:`ip_sort_key`, a canonical
    dotted quad read by :func:`~roceops.util.sorting.quad_bytes` (as render.py's ``_neighbor_key``)."""
    text = ip or ""
    packed = quad_bytes(text)
    if packed is None:  # 1.2.3, 010.0.0.1, 0x1.2.3.4, IPv6...: ip_key's answer or error
        return ip_sort_key(text)
    return 4, int.from_bytes(packed, "big"), text


def network_order(networks: list[str]) -> list[str]:
    """BGP networks de-duplicated and sorted by prefix, as :func:`bgp_order` lists them."""
    return sorted(dict.fromkeys(networks), key=_prefix_sort_key)


def _prefix_sort_key(prefix: str) -> tuple[int, int, int, str]:
    """:func:`roceops.util.sorting.prefix_key`, with what is not a prefix after every prefix, by its text."""
    try:
        return (*prefix_key(prefix), prefix)
    except ValueError:
        return INVALID_IP_VERSION, 0, 0, prefix


def _observed_bgp(cfg: dict[str, Any]) -> ObservedBgp:
    bgp = cfg["bgp"]
    if not bgp:
        return ObservedBgp(asn=None, router_id=None, neighbors=[], networks=[])
    port_of = SubnetIndex((network_key(p["address"]), n) for n, p in cfg["interfaces"].items() if p.get("address"))
    keyed = []  # (neighbor_sort_key, neighbour): each address read once, for its port and its place
    for ip, attrs in bgp["neighbors"].items():
        key = neighbor_sort_key(ip)
        port = (port_of.find((key[0], key[1])) or "") if key[0] != INVALID_IP_VERSION else ""
        keyed.append((key, ObservedBgpNeighbor(ip=ip, remote_asn=attrs.get("remote_asn"), port=port,
                                               description=attrs.get("description", ""))))
    keyed.sort(key=itemgetter(0))  # bgp_order's order (a stable sort by the same keys)
    neighbors = [n for _, n in keyed]
    return ObservedBgp(asn=bgp["asn"], router_id=bgp.get("router_id"), neighbors=neighbors,
                       networks=network_order(bgp["networks"]))


# --------------------------------------------------------------------------- text tables

STATUSES = ("connected", "notconnect", "disabled", "errdisabled", "inactive", "sfp-ignore", "monitoring",
            "xcvr-unsupported", "noOperMem")
_STATUS_RE = re.compile(
    r"^(?P<port>\S+)\s+(?P<name>.*?)\s*\b(?P<status>" + "|".join(STATUSES) + r")\s+"
    r"(?P<vlan>in \S+|\S+)\s+(?P<duplex>\S+)\s+(?P<speed>\S+)\s*(?P<type>.*?)\s*$")


def parse_interfaces_status(text: str) -> list[dict[str, str]]:
    """``show interfaces status`` rows: port, name, status, vlan, duplex, speed, type, flags, encapsulation.

    Aligned rows are cut at the header's column positions (names may contain anything); rows whose spacing
    was collapsed (seen in captures) fall back to a pattern anchored on the status word.
    """
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    header_at = next((i for i, ln in enumerate(lines) if ln.startswith("Port") and " Status " in ln), None)
    if header_at is None:
        raise ParseError("no 'Port ... Status' header in show interfaces status output")
    header = lines[header_at]
    cols = {m.group(): m.start() for m in re.finditer(r"\S+", header)}
    rows = []
    for ln in lines[header_at + 1:]:
        row = _status_aligned(ln, cols) or _status_collapsed(ln)
        if row is None:
            raise ParseError(f"unparsable show interfaces status line: {ln!r}")
        rows.append(row)
    return rows


def _status_aligned(ln: str, cols: dict[str, int]) -> dict[str, str] | None:
    st, vl = cols["Status"], cols["Vlan"]
    status = ln[st:vl].strip()
    if status not in STATUSES or (st > 0 and ln[st - 1] != " "):
        return None
    # Duplex is left-aligned, Speed right-aligned to its header's end: cut between them at the first blank.
    dup_start = cols["Duplex"]
    rest = ln[dup_start:]
    duplex, _, tail = rest.partition(" ")
    tail = tail.lstrip()
    speed, _, media = tail.partition(" ")
    media_col = cols["Type"]
    flags = encapsulation = ""
    if "Flags" in cols and len(ln) > cols["Flags"]:
        # newer EOS adds Flags and then Encapsulation (ntc-templates arista_eos_show_interfaces_status_encap.raw)
        flags_end = cols.get("Encapsulation", len(ln))
        media, flags = ln[media_col:cols["Flags"]].strip(), ln[cols["Flags"]:flags_end].strip()
        encapsulation = ln[flags_end:].strip()
    else:
        media = ln[media_col:].strip() if len(ln) > media_col and ln[media_col - 1] == " " else media.strip()
    return {"port": ln[: cols["Name"]].strip(), "name": ln[cols["Name"]:st].strip(), "status": status,
            "vlan": ln[vl:dup_start].strip(), "duplex": duplex.strip(), "speed": speed.strip(), "type": media,
            "flags": flags, "encapsulation": encapsulation}


def _status_collapsed(ln: str) -> dict[str, str] | None:
    m = _STATUS_RE.match(ln)
    if m is None:
        return None
    row = {k: (v or "").strip() for k, v in m.groupdict().items()}
    row["flags"] = row["encapsulation"] = ""
    return row


def parse_queue_counters(text: str) -> list[dict[str, Any]]:
    """``show interfaces counters queue detail`` egress rows -> port, tc, drop_precedence, dest_type, counters."""
    rows = []
    for ln in text.splitlines():
        parts = ln.split()
        if len(parts) == 8 and re.fullmatch(r"TC\d+", parts[1]) and all(p.isdigit() for p in parts[4:]):
            rows.append({"port": parts[0], "tc": int(parts[1][2:]), "drop_precedence": parts[2],
                         "dest_type": parts[3], "out_enq_pkts": int(parts[4]), "out_enq_octets": int(parts[5]),
                         "out_drop_pkts": int(parts[6]), "out_drop_octets": int(parts[7])})
    return rows


# --------------------------------------------------------------------------- JSON outputs


def load_json(text: str, command: str) -> dict[str, Any]:
    body = text.strip()
    try:
        data = json_text.loads(body)
    except ValueError:
        first = body.splitlines()[-1] if body else "(no output)"
        raise ParseError(f"{command}: not JSON: {first[:200]}") from None
    if not isinstance(data, dict):
        raise ParseError(f"{command}: JSON is not an object")
    return data


# An audit's operational and facts both read CMD_INTERFACES's output: parsed once for the two, which only read it
# (tests/platforms/eos/test_eos_interfaces_parsed_once.py)
interfaces_document = json_text.LastParsed(lambda text: load_json(text, "show interfaces"))


def parse_interfaces_json(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces | json`` -> name: oper_up, mtu, speed (Mb/s), counters (neutral names)."""
    out = {}
    for name, d in interfaces_document(text)["interfaces"].items():
        c = d.get("interfaceCounters") or {}
        errs = c.get("inputErrorsDetail") or {}
        counters = {k: int(v) for k, v in (("rx_packets", c.get("inUcastPkts")), ("tx_packets", c.get("outUcastPkts")),
                                           ("crc_errors", errs.get("fcsErrors")),
                                           ("symbol_errors", errs.get("symbolErrors")),
                                           ("carrier_changes", c.get("linkStatusChanges"))) if v is not None}
        out[name] = {"oper_up": d.get("lineProtocolStatus") == "up", "mtu": d.get("mtu"),
                     "speed": int(d["bandwidth"]) // 1_000_000 if d.get("bandwidth") else None,
                     "status": d.get("interfaceStatus"), "description": d.get("description", ""),
                     "counters": counters}
    return out


def parse_interfaces_status_json(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces status | json`` -> name: link status, oper_up, speed (Mb/s), duplex, description."""
    return {name: {"status": d.get("linkStatus"), "oper_up": d.get("lineProtocolStatus") == "up",
                   "speed": int(d["bandwidth"]) // 1_000_000 if d.get("bandwidth") else None,
                   "duplex": d.get("duplex"), "description": d.get("description", ""), "type": d.get("interfaceType")}
            for name, d in load_json(text, "show interfaces status")["interfaceStatuses"].items()}


def parse_pfc_counters_json(text: str) -> dict[str, dict[str, Any]]:
    """``show priority-flow-control counters [detail] | json`` -> name: rx, tx, per-priority (when shown)."""
    out = {}
    for name, d in load_json(text, "show priority-flow-control counters")["interfaceCounters"].items():
        prios = {int(p): (int(v.get("rxFrames", 0)), int(v.get("txFrames", 0)))
                 for p, v in (d.get("priorities") or {}).items()}
        out[name] = {"rx": int(d.get("rxFrames", 0)), "tx": int(d.get("txFrames", 0)), "priorities": prios}
    return out


def parse_pfc_watchdog_json(text: str) -> dict[str, int]:
    """``show priority-flow-control counters watchdog | json`` -> name: stuck (storm) count over its queues."""
    data = load_json(text, "show priority-flow-control counters watchdog")
    return {name: sum(int(q.get("stuckCount", 0)) for q in (d.get("txQueues") or {}).values())
            for name, d in (data.get("interfaces") or {}).items()}


def parse_ecn_counters_json(text: str) -> dict[str, dict[int, int | None]]:
    """``show qos interfaces ecn counters queue | json`` -> name: queue -> marked packets (None: ECN off, ``-``)."""
    data = load_json(text, "show qos interfaces ecn counters queue")
    return {name: {int(q): (None if v in ("-", None) else int(v)) for q, v in (d.get("queueCounters") or {}).items()}
            for name, d in data["intfQueueCounters"].items()}


def parse_lldp_json(text: str) -> dict[str, tuple[str, str]]:
    """``show lldp neighbors | json`` -> local port: (neighbour device, neighbour port)."""
    return {n["port"]: (n["neighborDevice"], n["neighborPort"])
            for n in load_json(text, "show lldp neighbors").get("lldpNeighbors", [])}


_SHORT_IFNAME = re.compile(r"Et(\d[\d/]*)")


def _long_ifname(name: str) -> str:
    """EOS's short interface names (``Et1``, ``Et1/1``) in the long form the rest of the room uses."""
    m = _SHORT_IFNAME.fullmatch(name)
    return f"Ethernet{m.group(1)}" if m else name


_MAC_SEPARATORS = str.maketrans("", "", ".:-")
_MAC_DIGITS = re.compile(r"[0-9a-f]{12}")


def _mac(text: str) -> str | None:
    """:func:`roceops.device.oper.canonical_mac` (the same answer: tests/platforms/eos/test_eos_observe_fast_paths.py)
    with the separators dropped by ``str.translate`` and the pairs joined by one f-string: a neighbour table
    holds a MAC per entry."""
    digits = text.strip().lower().translate(_MAC_SEPARATORS)
    if not _MAC_DIGITS.fullmatch(digits) or digits == "000000000000":
        return None
    return f"{digits[:2]}:{digits[2:4]}:{digits[4:6]}:{digits[6:8]}:{digits[8:10]}:{digits[10:]}"


def parse_ipv6_neighbors_json(text: str) -> dict[str, list[str]]:
    """``show ipv6 neighbors | json`` -> {interface (long name): [MAC aa:bb:cc:dd:ee:ff, ...]}, each MAC once."""
    out: dict[str, list[str]] = {}
    for n in load_json(text, "show ipv6 neighbors").get("ipV6Neighbors") or []:
        mac = _mac(str(n.get("hwAddress", "")))
        iface = _long_ifname(str(n.get("interface", "")))
        if mac is not None and iface and mac not in out.setdefault(iface, []):
            out[iface].append(mac)
    return out


def parse_bgp_summary_json(text: str) -> dict[str, Any]:
    """``show ip bgp summary | json`` (default VRF) -> asn, router_id, peers: ip -> state, remote_asn."""
    vrf = (load_json(text, "show ip bgp summary").get("vrfs") or {}).get("default") or {}
    peers = {}
    for ip, p in (vrf.get("peers") or {}).items():
        asn = p.get("asn", p.get("peerAsn"))
        peers[ip] = {"state": p.get("peerState", "Unknown"),
                     "remote_asn": int(asn) if asn is not None and str(asn).isdigit() else None,
                     "description": p.get("description", "")}
    return {"asn": vrf.get("asn"), "router_id": vrf.get("routerId"), "peers": peers}


def parse_version_json(text: str) -> dict[str, Any]:
    data = load_json(text, "show version")
    return {"version": data.get("version"), "model": data.get("modelName"), "serial": data.get("serialNumber")}


def parse_sessions_json(text: str) -> dict[str, dict[str, Any]]:
    """``show configuration sessions | json`` -> name: state (pending, pendingCommitTimer, completed, ...)."""
    return {name: {"state": s.get("state", ""), **{k: v for k, v in s.items() if k != "state"}}
            for name, s in (load_json(text, "show configuration sessions").get("sessions") or {}).items()}
