"""Arista EOS parsers (pure: text in, data out).

* ``show running-config`` -> the observed SwitchIntent dict (:func:`observe_config`), read as the tree
  hier_config would build (:func:`config_tree`: a light reader, hier_config itself for unusual text).
* Text tables: ``show interfaces status`` (both layouts: without and with the Flags column, including lines
  whose whitespace was collapsed) and ``show interfaces counters queue detail`` (egress part).
* ``| json`` outputs in the shapes ANTA's tests use (platforms.md section 3.6): ``show interfaces``,
  ``show interfaces status``, ``show priority-flow-control counters [detail]`` and ``... counters watchdog``,
  ``show qos interfaces ecn counters queue``, ``show lldp neighbors``, ``show ip bgp summary``, ``show version``,
  ``show configuration sessions``.

Units: ECN thresholds ``kbytes`` x 1024 (also ``bytes``/``mbytes``); watchdog timers are seconds -> ms;
``speed`` keywords -> Mb/s through :data:`roceops.platforms.eos.render.SPEED_KEYWORDS`. Defaults EOS does not
print are filled in: MTU 1500, admin up, strict-priority queues, the DSCP->TC table DSCP/8 (unconfirmed; the
rendered config sets all 64 DSCPs explicitly, so it never matters for roceops-managed switches).
"""

from __future__ import annotations

import ipaddress
import json
import re
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel

from roceops.plan.model import SwitchIntent
from roceops.platforms.eos.config_tree import (
    Line,
    config_tree,
    line_children,
    line_text,
)
from roceops.platforms.eos.parsers_addresses import SubnetIndex, address_key, network_key
from roceops.platforms.eos.render import SPEED_KEYWORDS, WATCHDOG_ACTIONS, eos_mtu, kbytes, natural_key

CMD_RUNNING = "show running-config"
CMD_INTERFACES = "show interfaces | json"
CMD_PFC = "show priority-flow-control counters detail | json"
CMD_PFC_WATCHDOG = "show priority-flow-control counters watchdog | json"
CMD_ECN = "show qos interfaces ecn counters queue | json"
CMD_LLDP = "show lldp neighbors | json"
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


_Model = TypeVar("_Model", bound=BaseModel)


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


def _ecn(line: str) -> dict[str, Any] | None:
    m = _ECN.match(line)
    if m is None:
        return None
    lo, lo_unit, hi, hi_unit, prob = m.groups()
    return {"min_bytes": int(lo) * UNIT_BYTES[lo_unit] if lo_unit in UNIT_BYTES else None,
            "max_bytes": int(hi) * UNIT_BYTES[hi_unit] if hi_unit in UNIT_BYTES else None,
            "probability": int(prob) if prob else DEFAULT_MARK_PROBABILITY}


def parse_tx_queues(intf: Line) -> dict[int, dict[str, Any]]:
    """``tx-queue N`` / ``uc-tx-queue N`` sections of one interface: scheduler (strict unless ``no priority``),
    weight, ECN."""
    out: dict[int, dict[str, Any]] = {}
    for q in line_children(intf):
        text = line_text(q)
        if not text.startswith(("tx-queue ", "uc-tx-queue ")) or not (m := _TX_QUEUE.fullmatch(text)):
            continue
        scheduler, weight, ecn = _tx_queue(tuple(map(line_text, line_children(q))))
        out[int(m.group(1))] = {"scheduler": scheduler, "weight": weight, "ecn": None if ecn is None else dict(ecn)}
    return out


@lru_cache(maxsize=256)  # every interface has the same few tx-queue sections
def _tx_queue(lines: tuple[str, ...]) -> tuple[str, int | None, tuple[tuple[str, Any], ...] | None]:
    """(scheduler, weight, ECN items) of a ``tx-queue`` section's lines."""
    dwrr = False
    weight_line = ecn_line = None  # the first line of each kind
    for t in lines:
        if t == "no priority":
            dwrr = True
        elif weight_line is None and t.startswith("bandwidth percent "):
            weight_line = t
        elif ecn_line is None and t.startswith("random-detect ecn minimum-threshold"):
            ecn_line = t
    weight = int(weight_line.split()[-1]) if weight_line is not None else None
    ecn = _ecn(ecn_line) if ecn_line is not None else None
    return "dwrr" if dwrr else "strict", weight if dwrr else None, None if ecn is None else tuple(ecn.items())


def parse_interface(intf: Line) -> dict[str, Any]:
    """One ``interface`` section -> SwitchPort-shaped dict (+ ``trust`` and ``queues`` for the QoS view)."""
    values: dict[str, str] = {}  # the first line with each _INTF_VALUE prefix: the rest of it, stripped
    leaves = [c for c in line_children(intf) if isinstance(c, str)]  # the lines without lines under them
    no_drop: list[int] = []
    for t in leaves:
        if m := _INTF_VALUE.match(t):
            if m.group(1) not in values:
                values[m.group(1)] = m.group(2).strip()
        elif t.startswith("priority-flow-control priority ") and (m := _NO_DROP.fullmatch(t)):
            no_drop.append(int(m.group(1)))
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
        "queues": parse_tx_queues(intf),
    }
    if speed is not None:
        out["speed"] = SPEED_OF_KEYWORD.get(speed, speed)
    return out


def parse_running_config(text: str) -> dict[str, Any]:
    """Everything roceops reads from an EOS running-config, platform-neutral but not yet intent-shaped."""
    hc = config_tree(text)
    top = [c for c in hc.children if isinstance(c, str)]
    interfaces = {line_text(c).split(" ", 1)[1]: parse_interface(c) for c in hc.children
                  if line_text(c).startswith("interface ")}
    dscp_to_tc = default_dscp_to_tc()
    tc_to_queue = {tc: tc for tc in range(8)}
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


def _parse_bgp(sec: Line) -> dict[str, Any]:
    asn = line_text(sec).split()[-1]
    out: dict[str, Any] = {"asn": int(asn) if asn.isdigit() else asn, "neighbors": {}, "networks": []}
    for t in map(line_text, line_children(sec)):
        if t.startswith("router-id "):
            out["router_id"] = t.split()[1]
        elif m := _NEIGHBOR_AS.fullmatch(t):
            out["neighbors"].setdefault(m.group(1), {})["remote_asn"] = int(m.group(2)) if m.group(2).isdigit() \
                else m.group(2)
        elif m := _NEIGHBOR_DESCRIPTION.fullmatch(t):
            out["neighbors"].setdefault(m.group(1), {})["description"] = m.group(2)
        elif m := _NETWORK.fullmatch(t):
            out["networks"].append(m.group(1))
    return out


def expected_queue(q: Any) -> dict[str, Any]:
    """A QueueIntent as EOS can hold it (ECN thresholds in whole kbytes)."""
    ecn = None
    if q.ecn is not None:
        ecn = {"min_bytes": kbytes(q.ecn.min_bytes) * 1024, "max_bytes": kbytes(q.ecn.max_bytes) * 1024,
               "probability": q.ecn.probability}
    return {"scheduler": q.scheduler, "weight": q.weight if q.scheduler == "dwrr" else None, "ecn": ecn}


def _updated(model: _Model, update: dict[str, Any]) -> _Model:
    """``model.model_copy(update=update)``, or ``model`` itself where that copy would equal it in every field
    and in ``model_fields_set`` (most ports and queues are already as EOS holds them)."""
    fields = model.model_fields_set
    for key, value in update.items():
        old = getattr(model, key)
        if key not in fields or type(old) is not type(value) or old != value:
            return model.model_copy(update=update)
    return model


def expected_intent(intent: SwitchIntent) -> SwitchIntent:
    """The intent as EOS represents it: MTU at most 9214, kbytes ECN thresholds, ``alert`` watchdog as ``forward`` (EOS
    ``no-drop``), per-port watchdog only where PFC is on and the watchdog is enabled, networks de-duplicated."""
    qos = intent.qos
    wd = qos.pfc_watchdog
    action = ACTION_OF_WATCHDOG[WATCHDOG_ACTIONS[wd.action]]
    queues = {qid: _updated(q, {"ecn": None if q.ecn is None else _updated(q.ecn, {
        "min_bytes": kbytes(q.ecn.min_bytes) * 1024, "max_bytes": kbytes(q.ecn.max_bytes) * 1024})})
        for qid, q in qos.queues.items()}
    ports = {name: _updated(p, {"pfc_watchdog": p.pfc_watchdog and wd.enabled and bool(p.pfc_priorities),
                                "mtu": eos_mtu(p.mtu)})
             for name, p in intent.ports.items()}
    new_qos = qos.model_copy(update={"queues": queues, "pfc_watchdog": wd.model_copy(update={"action": action})})
    bgp = intent.bgp.model_copy(update={"networks": list(dict.fromkeys(intent.bgp.networks))})
    return intent.model_copy(update={"qos": new_qos, "ports": ports, "bgp": bgp})


_port_order = lru_cache(maxsize=4096)(natural_key)  # the same port names on every switch


def observe_config(text: str, intent: SwitchIntent) -> dict[str, Any]:
    """``show running-config`` -> the DeviceIntent-shaped observed dict (only what EOS config shows).

    Ports: every intent port the config has. Queues are per interface on EOS but device-wide in the intent:
    the first intent port whose queues differ from the expected ones is reported (so drift on any port shows),
    else the first port's.
    """
    cfg = parse_running_config(text)
    ports_cfg = {n: cfg["interfaces"][n] for n in sorted(intent.ports, key=_port_order) if n in cfg["interfaces"]}
    want_queues = {str(qid): expected_queue(q) for qid, q in intent.qos.queues.items()}
    queues: dict[str, Any] = {}
    last: dict[int, Any] | None = None  # the queues of the last port looked at, which are as expected
    for p in ports_cfg.values():
        if p["queues"] == last:
            continue  # the same queues as a port already found as expected
        seen = {str(qid): p["queues"].get(qid, {"scheduler": "strict", "weight": None, "ecn": None})
                for qid in intent.qos.queues}
        seen.update({str(qid): v for qid, v in p["queues"].items() if qid not in intent.qos.queues})
        if not queues or seen != want_queues:
            queues = seen
        if seen != want_queues:
            break
        last = p["queues"]
    trusts = [p["trust"] for p in ports_cfg.values()]
    lossless = sorted({prio for p in ports_cfg.values() for prio in p["pfc_priorities"]})
    qos: dict[str, Any] = {"dscp_to_tc": cfg["dscp_to_tc"], "tc_to_queue": cfg["tc_to_queue"],
                           "pfc_watchdog": cfg["pfc_watchdog"]}
    if ports_cfg:
        qos.update({"trust": next((t for t in trusts if t != "dscp"), "dscp"), "queues": queues,
                    "lossless_priorities": lossless})
    ports = {n: {k: v for k, v in p.items() if k not in ("trust", "queues")} for n, p in ports_cfg.items()}
    out: dict[str, Any] = {"name": cfg["hostname"], "qos": qos, "ports": ports}
    if cfg["loopback"]:
        out["loopback"] = cfg["loopback"]
    out["bgp"] = _observed_bgp(cfg, intent)
    return out


def _observed_bgp(cfg: dict[str, Any], intent: SwitchIntent) -> dict[str, Any]:
    bgp = cfg["bgp"]
    if not bgp:
        return {"asn": None, "router_id": None, "neighbors": [], "networks": []}
    port_of = SubnetIndex((network_key(p["address"]), n) for n, p in cfg["interfaces"].items() if p.get("address"))
    order = {nb.ip: i for i, nb in enumerate(intent.bgp.neighbors)}
    keys = {ip: address_key(ip) for ip in bgp["neighbors"]}
    if all(version == 4 for version, _ in keys.values()):  # ipaddress objects of one version order by integer
        rank: dict[str, Any] = {ip: number for ip, (_, number) in keys.items()}
    else:  # as ipaddress orders them (mixed versions do not compare)
        rank = {ip: ipaddress.ip_address(ip) for ip in bgp["neighbors"]}
    neighbors = []
    for ip, attrs in sorted(bgp["neighbors"].items(), key=lambda kv: (order.get(kv[0], len(order)), rank[kv[0]])):
        neighbors.append({"ip": ip, "remote_asn": attrs.get("remote_asn"), "port": port_of.find(keys[ip]) or "",
                          "description": attrs.get("description", "")})
    net_order = {n: i for i, n in enumerate(intent.bgp.networks)}
    networks = sorted(dict.fromkeys(bgp["networks"]), key=lambda n: (net_order.get(n, len(net_order)), n))
    return {"asn": bgp["asn"], "router_id": bgp.get("router_id"), "neighbors": neighbors, "networks": networks}


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
        data = json.loads(body)
    except ValueError:
        first = body.splitlines()[-1] if body else "(no output)"
        raise ParseError(f"{command}: not JSON: {first[:200]}") from None
    if not isinstance(data, dict):
        raise ParseError(f"{command}: JSON is not an object")
    return data


def parse_interfaces_json(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces | json`` -> name: oper_up, mtu, speed (Mb/s), counters (neutral names)."""
    out = {}
    for name, d in load_json(text, "show interfaces")["interfaces"].items():
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
