"""Cumulus NVUE outputs -> :class:`~roceops.device.observed.ObservedSwitch` (pure: device output only).

What comes from where (``collect``'s outputs, see :mod:`roceops.platforms.cumulus.commands`):

========================  =============================================================================
ObservedSwitch            read from
========================  =============================================================================
``name``, ``loopback``    applied config (``nv config show -o commands``): ``system hostname``, ``interface lo``
``qos``                   global: ``nv show qos roce`` (trust, DSCP -> switch priority, ETS per traffic class),
                          ``egress-queue-mapping`` (switch priority -> traffic class), ``pfc`` (lossless
                          priorities), ``congestion-control`` (ECN per traffic class); ``queues`` are the
                          traffic classes the applied config schedules or marks (``qos egress-scheduler`` /
                          ``qos congestion-control`` of ``default-global``), as the ETS table shows them;
                          ``pfc_watchdog``: on when a port has it on, timers from the applied config
``ports``                 every front-panel port of ``nv show interface -o json`` (type ``swp``): speed, MTU,
                          state, description and address from the applied config (the JSON when not set),
                          ``pfc_priorities`` from its ``qos roce status`` and ``pfc_watchdog`` from its
                          ``qos pfc-watchdog`` when those outputs were read; ``adaptive_routing`` from its
                          ``interface <port> router adaptive-routing enable`` (no line: NVUE's default, off)
``bgp``                   applied config; neighbours in address order, networks deduplicated in address order
``breakouts``             every cage with an ``interface <cage> link breakout <n>x`` line
``load_balancing``        applied config: ``system forwarding ecmp-hash``, ``system forwarding hash-seed``
                          (no line: None, the seed switchd picks at random), ``router adaptive-routing enable``
========================  =============================================================================

NVUE QoS is global (one RoCE profile, one PFC list), so ``qos`` is device-wide and ports carry no per-port
copies of it; PFC priorities and the watchdog state are per interface and are read per port.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from roceops.device.observed import ObservedSwitch
from roceops.platforms.cumulus import parsers as p
from roceops.platforms.cumulus import parsers_ports as pp
from roceops.platforms.cumulus.commands import (
    CONFIG,
    INTERFACES_JSON,
    QOS_ECN,
    QOS_EGRESS_MAP,
    QOS_PFC,
    QOS_ROCE,
    optional_output,
    output,
    port_cmd,
)
from roceops.platforms.cumulus.releases import canonical_paths
from roceops.platforms.cumulus.render import ECMP_HASH_FIELD, PROFILE
from roceops.util.sorting import ip_key

__all__ = ["address_key", "front_panel_ports", "observe", "observed_breakouts"]

Config = dict[tuple[str, ...], set[str]]
NVUE_WD_DEFAULTS = (100, 3)  # polling-interval ms, robustness
_QUEUE_ROOTS = ("egress-scheduler", "congestion-control")  # qos <root> <profile> traffic-class <tc> ...


def observe(outputs: dict[str, str]) -> ObservedSwitch:
    """Everything :func:`collect`'s outputs show of the switch's configuration (see the module docstring)."""
    cfg = canonical_paths(p.config_paths(output(outputs, CONFIG)))  # 5.15+ spellings read as <= 5.14's
    links = p.interfaces_json(output(outputs, INTERFACES_JSON))
    ports = {name: _observe_port(outputs, cfg, name, links[name]) for name in front_panel_ports(links)}
    out: dict[str, Any] = {}
    hostname = _one(cfg, "system", "hostname")
    if hostname:
        out["name"] = hostname
    lo = sorted(a for a in cfg.get(("interface", "lo", "ip", "address"), set()) if not a.startswith("127."))
    out["loopback"] = lo[0] if lo else None
    out["qos"] = _observe_qos(outputs, cfg, ports)
    out["ports"] = ports
    out["bgp"] = _observe_bgp(cfg)
    out["breakouts"] = observed_breakouts(cfg)
    out["load_balancing"] = _observe_load_balancing(cfg)
    return ObservedSwitch.model_validate(out)


def front_panel_ports(links: Mapping[str, dict[str, Any]]) -> list[str]:
    """The switch ports of ``nv show interface -o json`` (type ``swp``; by name where no type is given)."""
    return [name for name, link in links.items()
            if link.get("type") == "swp" or (link.get("type") is None and name.startswith("swp"))]


def _one(cfg: Config, *path: str) -> str | None:
    values = cfg.get(path)
    return min(values) if values else None  # the first in sorted order


def _number(text: str | None) -> int | None:
    """A number of the applied config (an ASN, ``remote-as``); None for a word (``external``) or nothing."""
    return int(text) if text and text.isdecimal() else None


def address_key(text: str) -> tuple[int, int, int, int, str]:
    """Sort key of an address or prefix: numeric order, IPv4 first, then anything else (an unnumbered
    neighbour's interface) by name. ``expected()`` orders the intent's BGP lists with the same key.

    >>> sorted(["10.0.0.10/32", "swp1", "10.0.0.9", "10.0.0.9/31"], key=address_key)
    ['10.0.0.9', '10.0.0.9/31', '10.0.0.10/32', 'swp1']
    """
    addr, _, length = text.partition("/")
    try:
        version, value = ip_key(addr)
    except ValueError:
        return 1, 0, 0, 0, text
    return 0, version, value, int(length) if length.isdecimal() else -1, text


def observed_breakouts(cfg: Config) -> dict[str, int]:
    """``interface <cage> link breakout <n>x`` of every cage that has one -> n."""
    out: dict[str, int] = {}
    for path, values in cfg.items():
        if len(path) == 4 and path[0] == "interface" and path[2:] == ("link", "breakout"):
            mode = min(values).rstrip("x")
            if mode.isdecimal():
                out[path[1]] = int(mode)
    return out


def _observe_load_balancing(cfg: Config) -> dict[str, Any]:
    """Mode and ECMP hash fields from the applied config; no ecmp-hash line at all = the switch default (None)."""
    state = {key: _one(cfg, "system", "forwarding", "ecmp-hash", key) for key in ECMP_HASH_FIELD.values()}
    fields = None
    if any(v is not None for v in state.values()):
        fields = [name for name, key in ECMP_HASH_FIELD.items() if state[key] == "on"]
    mode = "adaptive" if _one(cfg, "router", "adaptive-routing", "enable") == "on" else "ecmp"
    return {"mode": mode, "hash_fields": fields, "hash_seed": _number(_one(cfg, "system", "forwarding", "hash-seed"))}


def _configured_queues(cfg: Config) -> set[int]:
    """Traffic classes the applied config schedules or marks in the global profile."""
    out: set[int] = set()
    for path, values in cfg.items():
        if len(path) >= 4 and path[0] == "qos" and path[1] in _QUEUE_ROOTS and path[2:4] == (PROFILE, "traffic-class"):
            # `... traffic-class 3 mode dwrr`, or a bare `... traffic-class 3` (the class's name is the value)
            out.update(int(tc) for tc in (path[4:5] or values) if tc.isdecimal())
    return out


def _observe_qos(outputs: dict[str, str], cfg: Config, ports: dict[str, dict[str, Any]]) -> dict[str, Any]:
    roce = p.parse_qos_roce(output(outputs, QOS_ROCE))
    sp_to_tc = p.parse_qos_egress_queue_mapping(output(outputs, QOS_EGRESS_MAP))
    output(outputs, QOS_PFC)
    pfc_text = optional_output(outputs, QOS_PFC)  # no profile at all: PFC is off
    pfc = p.parse_qos_pfc(pfc_text) if pfc_text else {"switch-priority": []}
    ecn = p.parse_qos_congestion_control(output(outputs, QOS_ECN))
    lossless = sorted(set(pfc["switch-priority"]))
    lossless_q = {sp_to_tc.get(sp, sp) for sp in lossless}
    queues: dict[int, Any] = {}
    for q in sorted(_configured_queues(cfg)):
        sched = roce["scheduler"].get(q)
        if sched is None:
            continue  # no switch priority reaches this traffic class: it is not a queue of the switch
        e = ecn.get(q)
        queues[q] = {"scheduler": sched["mode"], "weight": sched["weight"], "lossless": q in lossless_q,
                     "ecn": {"min_bytes": e["min"], "max_bytes": e["max"], "probability": e["probability"]}
                     if e and e["ecn"] else None}
    out = {"trust": roce["trust-mode"], "dscp_to_tc": roce["dscp_to_sp"], "tc_to_queue": sp_to_tc,
           "lossless_priorities": lossless, "queues": queues}
    read = [port["pfc_watchdog"] for port in ports.values() if "pfc_watchdog" in port]
    if read:  # the watchdog is on where a port has it; its timers are global
        watchdog: dict[str, Any] = {"enabled": any(read)}
        if any(read):
            poll = int(_one(cfg, "qos", "pfc-watchdog", "polling-interval") or NVUE_WD_DEFAULTS[0])
            robust = int(_one(cfg, "qos", "pfc-watchdog", "robustness") or NVUE_WD_DEFAULTS[1])
            watchdog.update(poll_ms=poll, detect_ms=poll * robust)
        out["pfc_watchdog"] = watchdog
    return out


def _observe_port(outputs: dict[str, str], cfg: Config, name: str, link: dict[str, Any]) -> dict[str, Any]:
    """One port from the applied config (the JSON where not set) and, when read, its per-port QoS outputs."""
    speed = p.speed_mbps(_one(cfg, "interface", name, "link", "speed") or "") or link.get("speed")
    mtu = _one(cfg, "interface", name, "link", "mtu")
    state = _one(cfg, "interface", name, "link", "state")
    addresses = sorted(a for a in cfg.get(("interface", name, "ip", "address"), set()) if a != "dhcp")
    out = {"name": name, "speed": speed, "mtu": int(mtu) if mtu else link.get("mtu"),
           "admin_up": state == "up" if state else bool(link.get("admin_up")),
           "description": _one(cfg, "interface", name, "description") or "",
           "address": addresses[0] if addresses else None,
           # `nv config show -o commands` lists what was set: no line is the default, off (NVUE reference)
           "adaptive_routing": _one(cfg, "interface", name, "router", "adaptive-routing", "enable") == "on"}
    status = port_cmd(name, "qos roce status")
    if status in outputs:  # a port the collect did not read shows no PFC state (unset, not compared)
        text = optional_output(outputs, status)
        out["pfc_priorities"] = sorted(pp.pfc_priorities(text)) if text else []
    watchdog = port_cmd(name, "qos pfc-watchdog")
    if watchdog in outputs:
        text = optional_output(outputs, watchdog)
        out["pfc_watchdog"] = text is not None and pp.watchdog_state(text) == "enabled"
    return out


def _observe_bgp(cfg: Config) -> dict[str, Any]:
    base = ("vrf", "default", "router", "bgp")
    neighbor = (*base, "neighbor")
    ips = {path[5] for path in cfg if path[:5] == neighbor and len(path) > 5}
    subnets = []
    for path, values in cfg.items():
        if len(path) == 4 and path[0] == "interface" and path[2:] == ("ip", "address"):
            subnets += [(path[1], v) for v in values if v != "dhcp"]
    port_of = _Subnets(subnets)
    neighbors = [{"ip": ip, "remote_asn": _number(_one(cfg, *neighbor, ip, "remote-as")),
                  "port": port_of.find(ip) or "", "description": _one(cfg, *neighbor, ip, "description") or ""}
                 for ip in sorted(ips, key=address_key)]
    networks = sorted(cfg.get((*base, "address-family", "ipv4-unicast", "network"), set()), key=address_key)
    return {"asn": _number(_one(cfg, "router", "bgp", "autonomous-system")),
            "router_id": _one(cfg, "router", "bgp", "router-id"), "neighbors": neighbors, "networks": networks}


class _Subnets:
    """The interface whose address's network holds a neighbour address: the first such (port, prefix) in the given
    order, an unnumbered neighbour's own name, None; by one dict lookup per distinct (IP version, netmask) instead
    of a containment test per interface."""

    def __init__(self, subnets: list[tuple[str, str]]) -> None:
        self.groups: dict[tuple[int, int], dict[int, tuple[int, str]]] = {}
        for i, (port, prefix) in enumerate(subnets):
            network = p.interface_network(prefix)  # None for a prefix that does not parse
            if network is not None:
                group = self.groups.setdefault((network.version, int(network.netmask)), {})
                group.setdefault(int(network.network_address), (i, port))

    def find(self, ip: str) -> str | None:
        try:
            addr = ipaddress.ip_address(ip)
        except ValueError:
            return ip  # an unnumbered neighbour is named by its interface
        best: tuple[int, str] | None = None
        for (version, mask), group in self.groups.items():
            if version == addr.version:
                hit = group.get(int(addr) & mask)
                if hit is not None and (best is None or hit[0] < best[0]):
                    best = hit
        return best[1] if best is not None else None
