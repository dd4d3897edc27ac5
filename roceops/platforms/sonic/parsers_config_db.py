"""CONFIG_DB (``sonic-cfggen -d --print-data``) -> :class:`~roceops.device.observed.ObservedSwitch` (pure).

The document alone is read: what is observed never depends on what was expected. What SONiC shows of a
switch, table by table:

=========================  ==========================================================================
ObservedSwitch             CONFIG_DB
=========================  ==========================================================================
name, role                 ``DEVICE_METADATA|localhost`` ``hostname``, ``type`` (LeafRouter -> spine, ...)
loopback                   ``LOOPBACK_INTERFACE|Loopback0|<prefix>``
qos.trust, qos.dscp_to_tc  the ``PORT_QOS_MAP|global`` DSCP binding (left unset when there is none)
qos.lossless_priorities    the union of every port's ``PORT_QOS_MAP.pfc_enable``
qos.buffer_model           ``DEVICE_METADATA|localhost`` ``buffer_model`` (absent: ``traditional``)
qos.pools / profiles       ``BUFFER_POOL`` / ``BUFFER_PROFILE`` (lists sorted by name)
qos.pfc_watchdog           ``enabled``: some port has a ``PFC_WD`` entry; ``poll_ms``: ``GLOBAL.POLL_INTERVAL``
ports[p]                   every port of ``PORT`` (speed, mtu, admin_status, description, lanes, alias,
                           index), ``BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST``, ``INTERFACE|<p>|<prefix>``,
                           ``PORT_QOS_MAP.pfc_enable``, ``PFC_WD|<p>`` (pfc_watchdog), ``CABLE_LENGTH``,
                           and headroom = ``BUFFER_PG`` entries whose ``BUFFER_PROFILE`` has an ``xoff``
ports[p] maps, trust       the maps ``PORT_QOS_MAP|<p>`` binds (``dscp_to_tc_map`` falling back to the
                           ``global`` one, ``tc_to_queue_map``, ``tc_to_pg_map``, ``pfc_to_queue_map``), by
                           plain name or ABNF reference ``[DSCP_TO_TC_MAP|name]``; None: none bound
ports[p].queues            ``QUEUE|<p>|<q>`` -> ``SCHEDULER`` (type/weight) and ``WRED_PROFILE`` (ECN
                           thresholds = the green ones); ``lossless`` from ``BUFFER_QUEUE|<p>|<q>``'s
                           profile, else from the port's ``pfc_enable`` through its PFC-to-queue map
ports[p].watchdog          ``PFC_WD|<p>`` detection/restoration time and action (unset without an entry:
                           ``pfc_watchdog`` says whether there is one)
bgp                        ``BGP_GLOBALS|default`` ``local_asn``/``router_id`` (else ``DEVICE_METADATA``
                           ``bgp_asn``/``bgp_router_id``), ``BGP_NEIGHBOR`` (``<ip>`` or ``<vrf>|<ip>``),
                           networks = ``BGP_GLOBALS_AF_NETWORK|default|ipv4_unicast|<prefix>`` (sorted)
=========================  ==========================================================================

Keys may name several ports (``Ethernet0,Ethernet4``) and id ranges or lists (``Ethernet0|0-2``,
``Ethernet0|3,4``). A port's copy of a setting SONiC binds per port is that port's own, so a queue changed on
one port shows on that port alone. Ports share the few maps, schedulers and profiles they bind: each is read,
and its Observed model built, once per document, and ports that bind the same map or queues hold the same object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import Any

from roceops.device.observed import (
    ObservedBgp,
    ObservedBufferPool,
    ObservedBufferProfile,
    ObservedEcn,
    ObservedHeadroom,
    ObservedPfcWatchdog,
    ObservedQos,
    ObservedQueue,
    ObservedSwitch,
    ObservedSwitchPort,
)
from roceops.platforms.sonic.render import DEVICE_TYPES
from roceops.util.sorting import id_set, ip_key, ip_sort_key, port_key

ConfigDb = Mapping[str, Mapping[str, Mapping[str, str]]]
Table = Mapping[str, Mapping[str, str]]

_ROLE_OF_TYPE = {v: k for k, v in DEVICE_TYPES.items()}
_SCHEDULERS = {"STRICT": "strict", "DWRR": "dwrr", "WRR": "dwrr"}
# ObservedSwitchPort field -> (PORT_QOS_MAP field binding it, the table of the maps)
_MAP_FIELDS = {
    "dscp_to_tc": ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
    "tc_to_queue": ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
    "tc_to_pg": ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
    "pfc_priority_to_queue": ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
}
_DSCP_BINDING = _MAP_FIELDS["dscp_to_tc"][0]
_PFC_BINDING = _MAP_FIELDS["pfc_priority_to_queue"][0]
_NO_ENTRY: Mapping[str, str] = {}


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


def priorities(value: str | None) -> list[int]:
    """``pfc_enable`` -> sorted priorities (absent or empty = []).

    >>> priorities("4,3"), priorities(None)
    ([3, 4], [])
    """
    if not value:
        return []
    return sorted({int(p) for p in value.split(",") if p.strip().isdigit()})


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def port_keyed(table: Table) -> dict[str, dict[str, str]]:
    """Entries keyed by one port or a comma list of ports, exploded per port (later keys win)."""
    out: dict[str, dict[str, str]] = {}
    for key, fields in table.items():
        for port in key.split(","):
            out.setdefault(port.strip(), {}).update(fields)
    return out


def port_id_keyed(table: Table, copy: bool = True) -> dict[tuple[str, int], dict[str, str]]:
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


def _by_port(entries: Mapping[tuple[str, int], Mapping[str, str]]) -> dict[str, list[tuple[int, Mapping[str, str]]]]:
    """(port, id) entries grouped per port, ids in order."""
    out: dict[str, list[tuple[int, Mapping[str, str]]]] = {}
    for (port, i), entry in sorted(entries.items()):
        out.setdefault(port, []).append((i, entry))
    return out


def _int_map(table: Table, name: str | None) -> dict[int, int] | None:
    """The map ``name`` of ``table`` with integer keys and values; None when it is not there."""
    if name is None or name not in table:
        return None
    out: dict[int, int] = {}
    for k, v in table[name].items():
        ki, vi = _int(k), _int(v)
        if ki is not None and vi is not None:
            out[ki] = vi
    return dict(sorted(out.items()))


class _Reader:
    """One CONFIG_DB document; its cached readers build the objects ports share once."""

    def __init__(self, db: ConfigDb) -> None:
        self.db = db
        self.qos_map = port_keyed(self.t("PORT_QOS_MAP"))
        self.glob = self.qos_map.get("global", {})
        queue = port_id_keyed(self.t("QUEUE"), copy=False)  # read only
        buffer_pg = port_id_keyed(self.t("BUFFER_PG"), copy=False)
        self.buffer_queue = port_id_keyed(self.t("BUFFER_QUEUE"), copy=False)
        self.queues_of_port = _by_port(queue)
        self.pgs_of_port = _by_port(buffer_pg)
        known = set(self.t("PORT")) or ({p for p in self.qos_map if p != "global"}
                                         | set(self.queues_of_port) | set(self.pgs_of_port))
        self.ports = sorted(known, key=port_key)
        self.tables = {name: self.t(name) for name in ("PORT", "CABLE_LENGTH", "PFC_WD", "BUFFER_PROFILE")}
        self.unref = cache(unref)
        self.priorities = cache(priorities)
        self.maps = {field: self._map_reader(table) for field, (_, table) in _MAP_FIELDS.items()}
        self.scheduler = cache(self._scheduler)
        self.ecn = cache(self._ecn)
        self.lossless_profile = cache(self._lossless_profile)
        self.pfc_queues = cache(self._pfc_queues)
        self.queue = cache(self._queue)
        self.queues = cache(self._queues)
        self.headroom = cache(self._headroom)
        self.watchdog = cache(self._watchdog)

    def close(self) -> None:
        """Drop the cached readers. Each caches a bound method of this reader, which holds the cache: a reference
        cycle per reader (~1,200 objects a switch) that only the cyclic GC would free, at the cost of a collection
        (bench/RESULTS.md, "Ninth round: issue 32 audit"). The objects already returned stay as they are."""
        self.__dict__.clear()

    def t(self, name: str) -> Table:
        return self.db.get(name) or {}

    def _map_reader(self, table: str) -> Callable[[str | None], dict[int, int] | None]:
        maps = self.t(table)
        return cache(lambda name: _int_map(maps, name))

    # ---------------------------------------------------------------- device-wide qos

    def qos(self) -> ObservedQos:
        out: dict[str, Any] = {}
        glob = self.unref(self.glob.get(_DSCP_BINDING))
        if glob:
            out["trust"] = "dscp"
            out["dscp_to_tc"] = self.maps["dscp_to_tc"](glob)
        out["lossless_priorities"] = sorted({p for name in self.ports
                                             for p in self.priorities(self.qos_map.get(name, _NO_ENTRY).get(
                                                 "pfc_enable"))})
        meta = self.t("DEVICE_METADATA").get("localhost")
        if meta is not None:
            out["buffer_model"] = meta.get("buffer_model", "traditional")
        if "BUFFER_POOL" in self.db or "BUFFER_PROFILE" in self.db:
            out["pools"] = self.pools()
            out["profiles"] = self.profiles()
        wd = self.tables["PFC_WD"]
        watchdog: dict[str, Any] = {"enabled": any(p in wd for p in self.ports)}
        poll = _int(wd.get("GLOBAL", _NO_ENTRY).get("POLL_INTERVAL"))
        if poll is not None:
            watchdog["poll_ms"] = poll
        out["pfc_watchdog"] = ObservedPfcWatchdog(**watchdog)
        return ObservedQos(**out)

    def pools(self) -> list[ObservedBufferPool]:
        table = self.t("BUFFER_POOL")
        return [ObservedBufferPool(name=name, type=f.get("type"), mode=f.get("mode"), size=_int(f.get("size")),
                                   xoff=_int(f.get("xoff")))
                for name, f in sorted(table.items())]

    def profiles(self) -> list[ObservedBufferProfile]:
        return [ObservedBufferProfile(name=name, pool=unref(f.get("pool")), size=_int(f.get("size")),
                                      xon=_int(f.get("xon")), xoff=_int(f.get("xoff")),
                                      xon_offset=_int(f.get("xon_offset")), dynamic_th=_int(f.get("dynamic_th")),
                                      static_th=_int(f.get("static_th")))
                for name, f in sorted(self.tables["BUFFER_PROFILE"].items())]

    # ---------------------------------------------------------------- per-port qos: shared objects

    def _scheduler(self, name: str | None) -> tuple[str | None, int | None]:
        sched = self.t("SCHEDULER").get(unref(name) or "", _NO_ENTRY)
        kind = _SCHEDULERS.get(str(sched.get("type", "")).upper())
        weight = _int(sched.get("weight")) if kind == "dwrr" else None
        return kind, weight

    def _ecn(self, name: str | None) -> ObservedEcn | None:
        wred = self.t("WRED_PROFILE").get(unref(name) or "")
        if not wred or wred.get("ecn", "ecn_none") == "ecn_none":
            return None
        lo, hi, prob = (_int(wred.get(f"green_{f}")) for f in ("min_threshold", "max_threshold", "drop_probability"))
        if lo is None or hi is None:
            return None
        return ObservedEcn(min_bytes=lo, max_bytes=hi, probability=prob if prob is not None else 0)

    def _lossless_profile(self, name: str | None) -> bool:
        profile = unref(name) or ""
        if "lossless" in profile:
            return True
        if "lossy" in profile:
            return False
        pool = unref(self.tables["BUFFER_PROFILE"].get(profile, _NO_ENTRY).get("pool")) or ""
        return "lossless" in pool

    def _pfc_queues(self, key: tuple[str | None, str | None]) -> frozenset[int]:
        """The queues a port's PFC priorities map to: (its ``pfc_to_queue_map``, its ``pfc_enable``)."""
        pfc_map = self.maps["pfc_priority_to_queue"](self.unref(key[0])) or {}
        return frozenset(pfc_map.get(p, p) for p in self.priorities(key[1]))

    def _queue(self, key: tuple[str | None, str | None, bool]) -> ObservedQueue:
        """A queue from its (scheduler, WRED profile, lossless): ports with the same three share the model."""
        kind, weight = self.scheduler(key[0])
        return ObservedQueue(scheduler=kind, weight=weight, lossless=key[2], ecn=self.ecn(key[1]))

    def _queues(self, keys: tuple[tuple[int, str | None, str | None, bool], ...]) -> dict[int, ObservedQueue]:
        """A port's queues from their (id, scheduler, WRED profile, lossless)."""
        return {qid: self.queue((sched, wred, lossless)) for qid, sched, wred, lossless in keys}

    def _headroom(self, profile: str | None) -> ObservedHeadroom | None:
        """A BUFFER_PG profile with an ``xoff`` (a lossless PG's headroom), else None."""
        prof_name = unref(profile)
        prof = self.tables["BUFFER_PROFILE"].get(prof_name or "")
        if prof and prof.get("xoff") is not None:
            return ObservedHeadroom(profile=prof_name, xon=_int(prof.get("xon")), xoff=_int(prof.get("xoff")),
                                    size=_int(prof.get("size")))
        return None

    def _watchdog(self, key: tuple[str | None, str | None, str | None]) -> ObservedPfcWatchdog:
        """A port's watchdog from its PFC_WD (detection_time, restoration_time, action)."""
        return ObservedPfcWatchdog(detect_ms=_int(key[0]), restore_ms=_int(key[1]), action=key[2])

    # ---------------------------------------------------------------- per port

    def port_queues(self, name: str, qos: Mapping[str, str]) -> dict[int, ObservedQueue]:
        pfc_queues: frozenset[int] | None = None
        keys: list[tuple[int, str | None, str | None, bool]] = []
        for qid, entry in self.queues_of_port.get(name, ()):
            buffer_queue = self.buffer_queue.get((name, qid))
            if buffer_queue is not None:
                lossless = self.lossless_profile(buffer_queue.get("profile"))
            else:
                if pfc_queues is None:
                    pfc_queues = self.pfc_queues((qos.get(_PFC_BINDING), qos.get("pfc_enable")))
                lossless = qid in pfc_queues
            keys.append((qid, entry.get("scheduler"), entry.get("wred_profile"), lossless))
        return self.queues(tuple(keys))

    def port_maps(self, qos: Mapping[str, str]) -> dict[str, Any]:
        """trust and the four maps the port binds (DSCP: its own, else the ``global`` one)."""
        out: dict[str, Any] = {field: self.maps[field](self.unref(qos.get(binding)))
                               for field, (binding, _) in _MAP_FIELDS.items()}
        dscp = self.unref(qos.get(_DSCP_BINDING)) or self.unref(self.glob.get(_DSCP_BINDING))
        out["trust"] = "dscp" if dscp else None
        out["dscp_to_tc"] = self.maps["dscp_to_tc"](dscp)
        return out

    def port(self, name: str, addresses: Mapping[str, str]) -> ObservedSwitchPort:
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
            if "lanes" in port:  # the SKU facts PORT carries (port_config.ini's lanes, alias, index)
                out["lanes"] = [int(x) for x in port["lanes"].split(",") if x.strip().isdigit()]
            if "alias" in port:
                out["alias"] = port["alias"]
            index = _int(port.get("index"))
            if index is not None:
                out["index"] = index
        for field, table in (("ingress_profiles", "BUFFER_PORT_INGRESS_PROFILE_LIST"),
                             ("egress_profiles", "BUFFER_PORT_EGRESS_PROFILE_LIST")):
            entry = self.t(table).get(name)
            out[field] = [unref(p) or p for p in entry.get("profile_list", "").split(",") if p] if entry else []
        for cable in self.tables["CABLE_LENGTH"].values():
            if name in cable:
                out["cable_length"] = _int(cable[name].rstrip("m"))
                break
        qos = self.qos_map.get(name, _NO_ENTRY)
        out["pfc_priorities"] = self.priorities(qos.get("pfc_enable"))
        wd = self.tables["PFC_WD"].get(name)
        out["pfc_watchdog"] = wd is not None
        if wd is not None:
            out["watchdog"] = self.watchdog((wd.get("detection_time"), wd.get("restoration_time"), wd.get("action")))
        headroom = {}
        for pg, entry in self.pgs_of_port.get(name, ()):
            h = self.headroom(entry.get("profile"))
            if h is not None:
                headroom[pg] = h
        out["headroom"] = headroom
        # the maps and queues the reader built once per document, held as they are (int maps, ObservedQueue
        # models: what validation would copy): ports that bind the same share them, as expected()'s ports do, so the
        # drift walk compares each pair once (tests/platforms/sonic/test_sonic_audit_fast_paths.py)
        shared = self.port_maps(qos)
        shared["queues"] = self.port_queues(name, qos)
        return ObservedSwitchPort.model_validate(out).model_copy(update=shared)

    # ---------------------------------------------------------------- addresses, bgp

    def addresses(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for key in self.t("INTERFACE"):
            port, sep, prefix = key.partition("|")
            if sep and "." in prefix and port not in out:
                out[port] = prefix
        return out

    def bgp(self, addresses: Mapping[str, str]) -> ObservedBgp | None:
        meta = self.t("DEVICE_METADATA").get("localhost", _NO_ENTRY)
        table = self.t("BGP_NEIGHBOR")
        if not table and "bgp_asn" not in meta and not self.t("BGP_GLOBALS"):
            return None
        local_port = {prefix.split("/")[0]: port for port, prefix in addresses.items()}
        # plain data, validated with the rest of ObservedBgp below (one call instead of one model per neighbour)
        neighbors: list[dict[str, Any]] = [
            {"ip": key.rsplit("|", 1)[-1], "remote_asn": _int(f.get("asn")),
             "port": local_port.get(f.get("local_addr", ""), ""), "description": f.get("name", "")}
            for key, f in table.items()]
        neighbors.sort(key=lambda n: ip_sort_key(n["ip"]))
        out: dict[str, Any] = {"neighbors": neighbors}
        # frrcfgd's BGP_GLOBALS|default wins over the bgpcfgd-era DEVICE_METADATA fields (it is what FRR runs)
        instance = self.t("BGP_GLOBALS").get("default", _NO_ENTRY)
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
        return ObservedBgp.model_validate(out)


def _prefix_key(prefix: str) -> tuple[int, int, int]:
    """Sort key of an address/len prefix; no ip_network object (Python 3.11's /31 and /32 ones are self-cycles)."""
    address, _, length = prefix.partition("/")
    return (*ip_key(address), int(length or 32))


def parse_config_db(db: ConfigDb) -> ObservedSwitch:
    """What a CONFIG_DB document shows of a switch (only what CONFIG_DB holds is set; see the module docstring).

    Every port of ``PORT`` is reported (without a PORT table: every port the QoS tables name).
    """
    r = _Reader(db)
    try:
        return _observed_switch(r)
    finally:
        r.close()


def _observed_switch(r: _Reader) -> ObservedSwitch:
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
    out["qos"] = r.qos()
    addresses = r.addresses()
    out["ports"] = {name: r.port(name, addresses) for name in r.ports}
    bgp = r.bgp(addresses)
    if bgp is not None:
        out["bgp"] = bgp
    return ObservedSwitch.model_validate(out)
