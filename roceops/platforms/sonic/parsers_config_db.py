"""CONFIG_DB (``sonic-cfggen -d --print-data``) -> the DeviceIntent JSON shape (pure).

What SONiC shows of a SwitchIntent, table by table:

=====================  ===============================================================================
DeviceIntent           CONFIG_DB
=====================  ===============================================================================
name, role             ``DEVICE_METADATA|localhost`` ``hostname``, ``type`` (LeafRouter -> leaf, ...)
loopback               ``LOOPBACK_INTERFACE|Loopback0|<prefix>``
qos maps               the map a port binds in ``PORT_QOS_MAP`` (``dscp_to_tc_map``, ``tc_to_queue_map``,
                       ``tc_to_pg_map``, ``pfc_to_queue_map``; the ``global`` entry for DSCP), by plain
                       name or ABNF reference ``[DSCP_TO_TC_MAP|name]``
qos.queues             ``QUEUE|<port>|<q>`` -> ``SCHEDULER`` (type/weight) and ``WRED_PROFILE`` (ECN
                       thresholds = the green ones); ``lossless`` from the queue's ``BUFFER_QUEUE`` profile
qos.pools / profiles   ``BUFFER_POOL`` / ``BUFFER_PROFILE`` (lists sorted by name)
qos.pfc_watchdog       ``PFC_WD`` (``GLOBAL.POLL_INTERVAL`` and the port entries)
ports[p]               ``PORT`` (speed, mtu, admin_status, description), ``INTERFACE|<p>|<prefix>``,
                       ``PORT_QOS_MAP.pfc_enable``, ``PFC_WD|<p>``, ``CABLE_LENGTH``, and headroom =
                       ``BUFFER_PG`` entries whose ``BUFFER_PROFILE`` has an ``xoff``
bgp                    ``BGP_GLOBALS|default`` ``local_asn``/``router_id`` (else ``DEVICE_METADATA``
                       ``bgp_asn``/``bgp_router_id``), ``BGP_NEIGHBOR`` (``<ip>`` or ``<vrf>|<ip>``),
                       networks = ``BGP_GLOBALS_AF_NETWORK|default|ipv4_unicast|<prefix>`` (sorted)
=====================  ===============================================================================

Keys may name several ports (``Ethernet0,Ethernet4``) and id ranges or lists (``Ethernet0|0-2``,
``Ethernet0|3,4``). Where ports disagree (a QUEUE changed on one port only) and an intent is given, the
value that departs from the intent is reported, so audit sees the drift; otherwise the most common one.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, TypedDict

from roceops.plan.model import SwitchIntent
from roceops.platforms.sonic.render import DEVICE_TYPES
from roceops.util.sorting import natural_key

ConfigDb = Mapping[str, Mapping[str, Mapping[str, str]]]

_ROLE_OF_TYPE = {v: k for k, v in DEVICE_TYPES.items()}
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # 0..255 without leading zeros, as ipaddress wants
_DOTTED_QUAD = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}")
_SCHEDULERS = {"STRICT": "strict", "DWRR": "dwrr", "WRR": "dwrr"}
_MAP_FIELDS = {
    "dscp_to_tc": ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
    "tc_to_queue": ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
    "tc_to_pg": ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
    "pfc_priority_to_queue": ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
}


def unref(value: str | None) -> str | None:
    """A plain object name from a plain name or an ABNF reference.

    >>> unref("[SCHEDULER|scheduler.1]"), unref("AZURE"), unref(None)
    ('scheduler.1', 'AZURE', None)
    """
    if value is None:
        return None
    v = value.strip()
    if v.startswith("[") and v.endswith("]"):
        inner = v[1:-1]
        for sep in ("|", ":"):
            if sep in inner:
                return inner.split(sep, 1)[1]
        return inner
    return v


def id_set(spec: str) -> list[int]:
    """``0-2`` -> [0, 1, 2]; ``3,4`` -> [3, 4]; ``3`` -> [3].

    >>> id_set("0-2"), id_set("3,4"), id_set("5")
    ([0, 1, 2], [3, 4], [5])
    """
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


def priorities(value: str | None) -> list[int]:
    """``pfc_enable`` -> sorted priorities (absent or empty = [])."""
    if not value:
        return []
    return sorted({int(p) for p in value.split(",") if p.strip().isdigit()})


def _priority_tuple(value: str | None) -> tuple[int, ...]:
    return tuple(priorities(value))


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def port_keyed(table: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """Entries keyed by one port or a comma list of ports, exploded per port (later keys win)."""
    out: dict[str, dict[str, str]] = {}
    for key, fields in table.items():
        for port in key.split(","):
            out.setdefault(port.strip(), {}).update(fields)
    return out


def port_id_keyed(table: Mapping[str, Mapping[str, str]], copy: bool = True) -> dict[tuple[str, int], dict[str, str]]:
    """``<ports>|<ids>`` entries (QUEUE, BUFFER_PG, BUFFER_QUEUE) exploded per (port, id).

    Each (port, id) gets its own copy of the fields; with ``copy=False`` they share the table's own
    mapping (for readers that do not modify it).
    """
    out: dict[tuple[str, int], dict[str, str]] = {}
    for key, fields in table.items():
        ports, sep, ids = key.rpartition("|")
        if not sep:
            continue
        try:
            numbers = _id_tuple(ids)
        except ValueError:
            continue
        for port in ports.split(","):
            port = port.strip()
            for i in numbers:
                out[(port, i)] = dict(fields) if copy else fields  # type: ignore[assignment]
    return out


@lru_cache(maxsize=1024)  # every port repeats the same few id specs ("0-2", "3")
def _id_tuple(spec: str) -> tuple[int, ...]:
    return tuple(id_set(spec))


@lru_cache(maxsize=4096)  # the same port names on every switch
def _port_order(name: str) -> tuple[Any, ...]:
    return natural_key(name)


def _memo(cache: dict[Any, Any], read: Callable[[Any], Any], value: Any) -> Any:
    """``read(value)``, remembered in ``cache`` for a string or None ``value`` (CONFIG_DB names; anything else is
    read every time, so it fails as it always did)."""
    if value is not None and type(value) is not str:
        return read(value)
    try:
        return cache[value]
    except KeyError:
        result = cache[value] = read(value)
        return result


def _pick(values: Mapping[str, Any], expected: Any = None, has_expected: bool = False) -> Any:
    """One value for something every port carries: the first (port order) that departs from ``expected``,
    else the common one; without an expectation the most common (ties: first port)."""
    if not values:
        return None
    if has_expected:
        same = None  # the last value found equal to expected (ports share the map they bind)
        for v in values.values():
            if v is same:
                continue
            if v != expected:
                return v
            same = v
        return expected
    counts = Counter(_freeze(v) for v in values.values())
    best = max(counts.values())
    return next(v for v in values.values() if counts[_freeze(v)] == best)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _int_map(table: Mapping[str, Mapping[str, str]], name: str | None) -> dict[int, int]:
    if name is None or name not in table:
        return {}
    out: dict[int, int] = {}
    for k, v in table[name].items():
        ki, vi = _int(k), _int(v)
        if ki is not None and vi is not None:
            out[ki] = vi
    return dict(sorted(out.items()))


class _Reader:
    def __init__(self, db: ConfigDb, intent: SwitchIntent | None, ports: Iterable[str] | None) -> None:
        self.db = db
        self.intent = intent
        self.t: Callable[[str], Mapping[str, Mapping[str, str]]] = lambda name: db.get(name) or {}
        self.qos_map = port_keyed(self.t("PORT_QOS_MAP"))
        self.queue = port_id_keyed(self.t("QUEUE"), copy=False)  # read only
        self.buffer_pg = port_id_keyed(self.t("BUFFER_PG"), copy=False)
        self.buffer_queue = port_id_keyed(self.t("BUFFER_QUEUE"), copy=False)
        self.pgs_of_port: dict[str, list[tuple[int, dict[str, str]]]] = {}  # BUFFER_PG per port, by PG id
        for (p, pg), entry in sorted(self.buffer_pg.items()):
            self.pgs_of_port.setdefault(p, []).append((pg, entry))
        known = set(self.t("PORT")) or ({p for p in self.qos_map if p != "global"}
                                         | {p for p, _ in self.queue} | {p for p, _ in self.buffer_pg})
        wanted = list(ports) if ports is not None else (list(intent.ports) if intent is not None else sorted(known))
        self.ports = sorted((p for p in wanted if p in known), key=_port_order)
        self._cache: dict[str, dict[Any, Any]] = {"scheduler": {}, "ecn": {}, "lossless": {}, "priorities": {},
                                                  "headroom": {}, "unref": {}}
        self.tables = {name: self.t(name) for name in ("PORT", "CABLE_LENGTH", "PFC_WD", "BUFFER_PROFILE")}

    # ---------------------------------------------------------------- qos

    def _expect(self, getter: Callable[[SwitchIntent], Any]) -> tuple[Any, bool]:
        if self.intent is None:
            return None, False
        return getter(self.intent), True

    def maps(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        glob = self.qos_map.get("global", {})
        for field, (binding, table) in _MAP_FIELDS.items():
            bound = {p: _memo(self._cache["unref"], unref, self.qos_map.get(p, {}).get(binding)) for p in self.ports}
            if field == "dscp_to_tc":
                bound = {p: name or unref(glob.get(binding)) for p, name in bound.items()}
            read: dict[str | None, dict[int, int]] = {}  # ports bind the same few maps: read each once
            values = {p: read[name] if name in read else read.setdefault(name, _int_map(self.t(table), name))
                      for p, name in bound.items()}
            if not values and field == "dscp_to_tc" and glob.get(binding):
                values = {"global": _int_map(self.t(table), unref(glob.get(binding)))}
            exp, has = self._expect(_intent_map(field))
            picked = _pick(values, exp, has)
            out[field] = picked if picked is not None else {}
        any_dscp = bool(glob.get("dscp_to_tc_map")) or any(self.qos_map.get(p, {}).get("dscp_to_tc_map")
                                                            for p in self.ports)
        out["trust"] = "dscp" if any_dscp else None
        return out

    def _scheduler(self, name: str | None) -> tuple[str | None, int | None]:
        sched = self.t("SCHEDULER").get(unref(name) or "", {})
        kind = _SCHEDULERS.get(str(sched.get("type", "")).upper())
        weight = _int(sched.get("weight")) if kind == "dwrr" else None
        return kind, weight

    def _ecn(self, name: str | None) -> dict[str, int] | None:
        wred = self.t("WRED_PROFILE").get(unref(name) or "")
        if not wred or wred.get("ecn", "ecn_none") == "ecn_none":
            return None
        lo, hi, prob = (_int(wred.get(f"green_{f}")) for f in ("min_threshold", "max_threshold", "drop_probability"))
        if lo is None or hi is None:
            return None
        return {"min_bytes": lo, "max_bytes": hi, "probability": prob if prob is not None else 0}

    def _lossless(self, port: str, qid: int) -> bool:
        entry = self.buffer_queue.get((port, qid))
        if entry is not None:
            return _memo(self._cache["lossless"], self._lossless_profile, entry.get("profile"))  # type: ignore[no-any-return]
        pfc_map = _int_map(self.t("MAP_PFC_PRIORITY_TO_QUEUE"),
                           unref(self.qos_map.get(port, {}).get("pfc_to_queue_map")))
        return qid in {pfc_map.get(p, p) for p in priorities(self.qos_map.get(port, {}).get("pfc_enable"))}

    def _lossless_profile(self, name: str | None) -> bool:
        profile = unref(name) or ""
        if "lossless" in profile:
            return True
        if "lossy" in profile:
            return False
        pool = unref(self.t("BUFFER_PROFILE").get(profile, {}).get("pool")) or ""
        return "lossless" in pool

    def queues(self) -> dict[int, dict[str, Any]]:
        ports = set(self.ports)
        ids = sorted({q for (p, q) in self.queue if p in ports})
        pfc_ports = [p for p in self.ports if self.intent is None or (
            p in self.intent.ports and self.intent.ports[p].pfc_priorities)] or self.ports
        out: dict[int, dict[str, Any]] = {}
        for qid in ids:
            per_port: dict[str, dict[str, Any]] = {}
            for p in self.ports:
                entry = self.queue.get((p, qid), {})
                kind, weight = _memo(self._cache["scheduler"], self._scheduler, entry.get("scheduler"))
                per_port[p] = {"scheduler": kind, "weight": weight,
                               "ecn": _memo(self._cache["ecn"], self._ecn, entry.get("wred_profile"))}
            want = self.intent.qos.queues.get(qid) if self.intent is not None else None
            obs: dict[str, Any] = {}
            want_json = want.model_dump(mode="json") if want is not None else None
            for field in ("scheduler", "weight", "ecn"):
                exp = want_json[field] if want_json is not None else None
                obs[field] = _pick({p: v[field] for p, v in per_port.items()}, exp, want is not None)
            if isinstance(obs["ecn"], dict):
                obs["ecn"] = dict(obs["ecn"])  # ports share the ECN dict of a profile: each queue gets its own
            lossless = {p: self._lossless(p, qid) for p in pfc_ports}
            obs["lossless"] = _pick(lossless, want.lossless if want is not None else None, want is not None)
            out[qid] = obs
        return out

    def buffers(self) -> dict[str, Any]:
        pools = []
        for name in sorted(self.t("BUFFER_POOL")):
            f = self.t("BUFFER_POOL")[name]
            pools.append({"name": name, "type": f.get("type"), "mode": f.get("mode"), "size": _int(f.get("size")),
                          "xoff": _int(f.get("xoff"))})
        profiles = []
        for name in sorted(self.t("BUFFER_PROFILE")):
            f = self.t("BUFFER_PROFILE")[name]
            profiles.append({"name": name, "pool": unref(f.get("pool")), "size": _int(f.get("size")),
                             "xon": _int(f.get("xon")), "xoff": _int(f.get("xoff")),
                             "dynamic_th": _int(f.get("dynamic_th")), "static_th": _int(f.get("static_th"))})
        return {"pools": pools, "profiles": profiles}

    def watchdog(self) -> dict[str, Any]:
        wd = self.t("PFC_WD")
        ports = {p: wd[p] for p in self.ports if p in wd}
        out: dict[str, Any] = {"enabled": bool(ports)}
        poll = _int(wd.get("GLOBAL", {}).get("POLL_INTERVAL"))
        if poll is not None:
            out["poll_ms"] = poll
        if ports:
            want = self.intent.qos.pfc_watchdog if self.intent is not None else None
            for field, key, conv in (("detect_ms", "detection_time", _int), ("restore_ms", "restoration_time", _int),
                                     ("action", "action", lambda v: v)):
                values = {p: conv(f.get(key)) for p, f in ports.items()}
                out[field] = _pick(values, getattr(want, field) if want else None, want is not None)
        return out

    # ---------------------------------------------------------------- ports, bgp

    def addresses(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for key in self.t("INTERFACE"):
            port, sep, prefix = key.partition("|")
            if sep and "." in prefix and port not in out:
                out[port] = prefix
        return out

    def port(self, name: str, addresses: Mapping[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {"name": name}
        port = self.tables["PORT"].get(name)
        if port is not None:
            speed = _int(port.get("speed"))
            if speed is not None:
                out["speed"] = speed
            out["mtu"] = _int(port.get("mtu")) or 9100  # orchagent's default when the field is absent
            out["admin_up"] = port.get("admin_status", "down") == "up"
            out["description"] = port.get("description", "")
            out["address"] = addresses.get(name)
        for cable in self.tables["CABLE_LENGTH"].values():
            if name in cable:
                out["cable_length"] = _int(cable[name].rstrip("m"))
                break
        out["pfc_priorities"] = list(_memo(self._cache["priorities"], _priority_tuple,
                                           self.qos_map.get(name, {}).get("pfc_enable")))
        out["pfc_watchdog"] = name in self.tables["PFC_WD"]
        headroom: dict[int, dict[str, Any]] = {}
        for pg, entry in self.pgs_of_port.get(name, []):
            values = _memo(self._cache["headroom"], self._headroom, entry.get("profile"))
            if values is not None:
                prof_name, xon, xoff, size = values
                headroom[pg] = {"profile": prof_name, "xon": xon, "xoff": xoff, "size": size}
        out["headroom"] = headroom
        return out

    def _headroom(self, profile: str | None) -> tuple[str | None, int | None, int | None, int | None] | None:
        """(profile, xon, xoff, size) of a BUFFER_PG profile with an ``xoff`` (a lossless PG's headroom), else None."""
        prof_name = unref(profile)
        prof = self.tables["BUFFER_PROFILE"].get(prof_name or "")
        if prof and prof.get("xoff") is not None:
            return prof_name, _int(prof.get("xon")), _int(prof.get("xoff")), _int(prof.get("size"))
        return None

    def bgp(self, addresses: Mapping[str, str]) -> dict[str, Any] | None:
        meta = self.t("DEVICE_METADATA").get("localhost", {})
        table = self.t("BGP_NEIGHBOR")
        if not table and "bgp_asn" not in meta and not self.t("BGP_GLOBALS"):
            return None
        local_port = {prefix.split("/")[0]: port for port, prefix in addresses.items()}
        neighbors: list[_Neighbor] = []
        for key, f in table.items():
            ip = key.rsplit("|", 1)[-1]
            neighbors.append({"ip": ip, "remote_asn": _int(f.get("asn")),
                              "port": local_port.get(f.get("local_addr", ""), ""), "description": f.get("name", "")})
        neighbors.sort(key=lambda n: _ip_key(n["ip"]))
        out: dict[str, Any] = {"neighbors": neighbors}
        # frrcfgd's BGP_GLOBALS|default wins over the bgpcfgd-era DEVICE_METADATA fields (it is what FRR runs)
        instance = self.t("BGP_GLOBALS").get("default", {})
        asn = instance.get("local_asn", meta.get("bgp_asn"))
        router_id = instance.get("router_id", meta.get("bgp_router_id"))
        if asn is not None:
            out["asn"] = _int(asn)
        if router_id is not None:
            out["router_id"] = router_id
        if self.t("BGP_GLOBALS") or self.t("BGP_GLOBALS_AF_NETWORK"):
            # BGP_GLOBALS_AF_NETWORK|<vrf>|<afi_safi>|<prefix>: only the default VRF's IPv4 unicast is ours
            ours = "default|ipv4_unicast|"
            nets = [k.removeprefix(ours) for k in self.t("BGP_GLOBALS_AF_NETWORK") if k.startswith(ours)]
            out["networks"] = sorted(set(nets), key=_prefix_key)
        return out


class _Neighbor(TypedDict):
    ip: str
    remote_asn: int | None
    port: str
    description: str


def _intent_map(field: str) -> Callable[[SwitchIntent], dict[int, int]]:
    """Reads the intent's QoS map ``field`` (dscp_to_tc, ...) with integer keys and values."""
    def read(intent: SwitchIntent) -> dict[int, int]:
        return {int(k): int(v) for k, v in getattr(intent.qos, field).items()}
    return read


def _prefix_key(prefix: str) -> tuple[int, int, int]:
    """Sort key of an ``address/len`` prefix: (version, address, length), without ``ip_network`` (whose /31
    objects hold a reference cycle, which the render's GC-off section must not leave behind).

    >>> _prefix_key("10.128.0.2/31"), _prefix_key("10.0.0.1/32") < _prefix_key("10.128.0.0/31")
    ((4, 176160770, 31), True)
    """
    address, _, length = prefix.partition("/")
    ip = ipaddress.ip_address(address)
    return ip.version, int(ip), int(length) if length else ip.max_prefixlen


def _ip_key(ip: str) -> tuple[int, int, str]:
    if _DOTTED_QUAD.fullmatch(ip):  # what ipaddress.ip_address reads as IPv4 (the usual case), without its checks
        a, b, c, d = map(int, ip.split("."))
        return 4, (a << 24) | (b << 16) | (c << 8) | d, ip
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return (9, 0, ip)
    return addr.version, int(addr), ip


def parse_config_db(db: ConfigDb, intent: SwitchIntent | None = None,
                    ports: Iterable[str] | None = None) -> dict[str, Any]:
    """The DeviceIntent-shaped view of a CONFIG_DB document (partial: only what CONFIG_DB holds).

    ``ports`` (default: the intent's ports, else every port found) limits the ``ports`` map; ports the
    device does not have are left out (audit reports them missing).
    """
    r = _Reader(db, intent, ports)
    out: dict[str, Any] = {}
    meta = r.t("DEVICE_METADATA").get("localhost")
    if meta is not None:
        if "hostname" in meta:
            out["name"] = meta["hostname"]
        if meta.get("type") in _ROLE_OF_TYPE:
            out["role"] = _ROLE_OF_TYPE[meta["type"]]
    loopbacks = [k.split("|", 1)[1] for k in r.t("LOOPBACK_INTERFACE") if k.startswith("Loopback0|")]
    if loopbacks:
        out["loopback"] = sorted(loopbacks, key=lambda p: "." not in p)[0]
    qos: dict[str, Any] = r.maps()
    qos["lossless_priorities"] = sorted({p for name in r.ports for p in priorities(r.qos_map.get(name, {}).get(
        "pfc_enable"))})
    qos["queues"] = r.queues()
    if meta is not None:
        qos["buffer_model"] = meta.get("buffer_model", "traditional")
    if "BUFFER_POOL" in db or "BUFFER_PROFILE" in db:
        qos.update(r.buffers())
    qos["pfc_watchdog"] = r.watchdog()
    out["qos"] = qos
    addresses = r.addresses()
    out["ports"] = {name: r.port(name, addresses) for name in r.ports}
    bgp = r.bgp(addresses)
    if bgp is not None:
        out["bgp"] = bgp
    return out
