"""SONiC rendering: the render context for ``templates/sonic/`` and the CONFIG_DB canonicaliser.

The output is one ``config_db.json``. Every SONiC-specific naming or unit decision lives here, not
in the templates (which only lay out ``"TABLE": {...}`` fragments):

* All CONFIG_DB values are strings (leaf-lists: lists of strings); the context hands the templates
  strings only and :func:`~roceops.platforms.sonic.config_db_text.canonical_config_db` rejects anything else.
* QoS maps (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP, MAP_PFC_PRIORITY_TO_QUEUE) are
  all named ``ROCEOPS`` (:data:`MAP_NAME`), so they never collide with the image's ``AZURE`` defaults.
  CABLE_LENGTH is keyed ``AZURE`` (:data:`CABLE_LENGTH_KEY`): ``config interface cable-length`` and
  the buffer managers look it up under that name.
* Schedulers are one per queue intent: ``scheduler.q<N>`` (:func:`scheduler_name`). ECN marking lives in
  the image's own ``AZURE_LOSSLESS`` WRED profile (:data:`VENDOR_WRED`, created by sonic-buildimage
  files/build_templates/qos_config.j2) for the lossless ECN queues: `config apply-patch` on 202305-202411
  accepts no new WRED profile and only ``replace`` of AZURE_LOSSLESS's ``green_min_threshold``,
  ``green_max_threshold`` and ``green_drop_probability`` (sonic-utilities generic_config_updater
  gcu_field_operation_validators.conf.json, "ECN tuning"; ``gcu_rules.json``). roceops sets ``ecn``
  ``ecn_all``, ``wred_green_enable`` and those three green fields only (RoCE traffic is not coloured; the
  vendor's yellow/red fields are left as the image wrote them). An ECN queue whose thresholds differ from
  the first lossless one's, or a lossy ECN queue, gets its own ``ROCEOPS_Q<N>_ECN`` (:func:`wred_name`),
  which such releases only take through the bring-up path.
* PORT: ``lanes``, ``alias`` and ``index`` are the SKU's (``port_config.ini`` of the switch model's
  hwsku, carried per port by the plan from the hardware profile); a port without them is an error,
  never lanes guessed from a speed. ``fec`` ``rs`` from 25G up (``none`` below).
* Buffers: ``traditional`` writes every profile of SwitchQos.profiles, one lossless profile per
  distinct SwitchPort.headroom profile, ``BUFFER_PG <port>|<pg>`` -> that profile, and the ingress
  lossy profile for PG 0 and any other lossy PG of tc_to_pg. ``dynamic`` leaves the lossless profiles
  out and writes ``"profile": "NULL"`` for lossless PGs (buffermgrd computes the headroom).
  BUFFER_QUEUE covers the 8 unicast queues of every port: the queues the port's PFC priorities map
  to get the egress lossless profile, the rest the SKU's lossy queue profile (``q_lossy_profile`` on
  Mellanox); PG and queue ids with the same profile are compressed into ranges (``Ethernet0|0-2``).
  Pools, profiles and ``BUFFER_PORT_INGRESS_PROFILE_LIST``/``BUFFER_PORT_EGRESS_PROFILE_LIST`` are the
  SKU's own (rendered from its ``buffers_defaults_<topo>.j2`` by the hardware importer): Mellanox dynamic
  pools with ``dynamic_th`` and ``ingress_zero_pool``, Broadcom (Dell Z9864F) static egress pools.
  Lossless profiles are the SKU's ``pg_profile_lookup.ini`` rows as buffermgrd writes them (xon_offset
  included). A vendor-managed SKU (plan with no pools) gets no BUFFER_* table at all, only CABLE_LENGTH.
* PFC: ``pfc_enable`` = the port's PFC priorities; ``pfcwd_sw_enable`` the same when the watchdog is
  on for the port; PFC_WD per such port plus ``GLOBAL`` ``POLL_INTERVAL``.
* DEVICE_METADATA: ``type`` from the role (:data:`DEVICE_TYPES`: a leaf with hosts is ``ToRRouter``, a
  spine ``LeafRouter``, a core ``SpineRouter``: SONiC's T0/T1/T2 names, the ones buffers_config.j2 maps to
  buffers_defaults_t0/t1/t2 and bgpd.main.conf.j2's ToRRouter blocks key on); ``hwsku`` is the switch
  model's catalogue SKU (a switch without one is an error: no Generic-<model> SKU exists on a real box).
* Routing is in the frrcfgd (sonic-frr-mgmt-framework) tables, so that host subnets are advertised:
  the classic bgpcfgd templates only announce Loopback0 and VLAN_INTERFACE prefixes, never routed-port
  /31s (sonic-buildimage dockers/docker-fpm-frr/frr/bgpd/bgpd.main.conf.j2 lines 159-209 @086b03bd).
  DEVICE_METADATA ``docker_routing_config_mode`` = ``unified`` (:data:`ROUTING_CONFIG_MODE`) and
  ``frr_mgmt_framework_config`` = ``true``: docker_init.sh then renders frr.conf through frrcfgd's
  templates, and frrcfgd applies later CONFIG_DB changes (``split*`` modes would ignore CONFIG_DB).
  BGP_GLOBALS|default (``local_asn``, ``router_id``, ``load_balance_mp_relax``), BGP_GLOBALS_AF
  |default|ipv4_unicast ``max_ebgp_paths`` (:data:`MAX_EBGP_PATHS`, the classic template's
  default(64)), one BGP_GLOBALS_AF_NETWORK|default|ipv4_unicast|<prefix> per planned network (loopback
  and host subnets), BGP_NEIGHBOR|default|<ip> and BGP_NEIGHBOR_AF|default|<ip>|ipv4_unicast
  (``admin_status`` up = ``activate``). frrcfgd's templates do not write ``no bgp ebgp-requires-policy``
  (the classic template does, bgpd.main.conf.j2:109), so each neighbour gets the permit-all route-map
  :data:`ROUTE_MAP` in and out (ROUTE_MAP_SET / ROUTE_MAP|<name>|10 ``route_operation`` permit), without
  which FRR's RFC 8212 default would exchange no routes. Keys and fields: sonic-bgp-global.yang,
  sonic-bgp-neighbor.yang, sonic-route-map.yang, frrcfgd templates bgpd.conf.db*.j2 (see
  docs/platforms.md, "SONiC routing").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import jinja2

from roceops.device.intent import SwitchIntent, SwitchPort
from roceops.platforms.sonic.breakout_hash import BreakoutError, breakout_cfg, switch_hash
from roceops.platforms.sonic.config_db_text import MARKER, SonicRenderError
from roceops.util.sorting import id_ranges, ip_key, port_key, prefix_key

BufferModel = Literal["traditional", "dynamic"]

MAP_NAME = "ROCEOPS"
CABLE_LENGTH_KEY = "AZURE"
LOOPBACK = "Loopback0"
ROUTING_CONFIG_MODE = "unified"
FRR_MGMT_FRAMEWORK = "true"
BGP_VRF = "default"
BGP_AFI_SAFI = "ipv4_unicast"
MAX_EBGP_PATHS = 64
ROUTE_MAP = "ROCEOPS_ALLOW"
VENDOR_WRED = "AZURE_LOSSLESS"  # sonic-buildimage files/build_templates/qos_config.j2 @ 086b03bd
# sonic-buildimage files/build_templates/buffers_config.j2 @ 02aaf5c36e97231dd0be28245269a0c17431fe9f maps
# ToRRouter/LeafRouter/SpineRouter to t0/t1/t2; sonic-device_metadata.yang lists all three types.
DEVICE_TYPES: dict[str, str] = {"leaf": "ToRRouter", "spine": "LeafRouter", "core": "SpineRouter"}
UNICAST_QUEUES = 8
INGRESS_LOSSY_PROFILE = "ingress_lossy_profile"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
SCHEDULER_TYPES: dict[str, str] = {"strict": "STRICT", "dwrr": "DWRR"}
FLEX_COUNTERS_ALWAYS = ("QUEUE", "PG_WATERMARK")

_PORT_RE = re.compile(r"Ethernet(\d+)")


# --------------------------------------------------------------------------- naming and small helpers


def scheduler_name(queue: int) -> str:
    """QUEUE/SCHEDULER name of a queue's scheduler.

    >>> scheduler_name(3)
    'scheduler.q3'
    """
    return f"scheduler.q{queue}"


def wred_name(queue: int) -> str:
    """WRED_PROFILE name of an ECN queue (pattern ``[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}``).

    >>> wred_name(3)
    'ROCEOPS_Q3_ECN'
    """
    return f"{MAP_NAME}_Q{queue}_ECN"


def wred_profile_names(device: SwitchIntent) -> dict[int, str]:
    """Queue id -> WRED_PROFILE name for every ECN queue (see the module docstring)."""
    out: dict[int, str] = {}
    vendor: tuple[int, int, int] | None = None
    for qid, q in sorted(device.qos.queues.items()):
        if q.ecn is None:
            continue
        params = (q.ecn.min_bytes, q.ecn.max_bytes, q.ecn.probability)
        if q.lossless and vendor in (None, params):
            vendor = params
            out[qid] = VENDOR_WRED
        else:
            out[qid] = wred_name(qid)
    return out


def grouped_ranges(profile_of: Mapping[int, str]) -> list[tuple[str, str]]:
    """``[(range, profile), ...]``: runs of consecutive ids sharing a profile, in id order.

    >>> grouped_ranges({0: "lossy", 1: "lossy", 2: "lossy", 3: "lossless", 4: "lossy", 5: "lossy"})
    [('0-2', 'lossy'), ('3', 'lossless'), ('4-5', 'lossy')]
    """
    out: list[tuple[str, str]] = []
    run: list[int] = []
    for i in sorted(profile_of):
        if run and (i != run[-1] + 1 or profile_of[i] != profile_of[run[-1]]):
            out.append((id_ranges(run)[0], profile_of[run[-1]]))
            run = []
        run.append(i)
    if run:
        out.append((id_ranges(run)[0], profile_of[run[-1]]))
    return out


def port_number(name: str) -> int:
    """The ``N`` of ``Ethernet<N>`` (SONiC names a port after its first lane).

    >>> port_number("Ethernet264")
    264
    """
    m = _PORT_RE.fullmatch(name)
    if m is None:
        raise SonicRenderError(f"SONiC port names are Ethernet<first lane>, got {name!r}")
    return int(m.group(1))




def _s(value: int | str) -> str:
    return str(value)


# --------------------------------------------------------------------------- per-table context


def _ports(device: SwitchIntent, ports: list[SwitchPort]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    owner: dict[int, str] = {}
    for p in ports:
        if not p.lanes or p.alias is None or p.index is None:
            raise SonicRenderError(f"{device.name}: {p.name} has no SKU lanes/alias/index: set the switch model's "
                                   "hwsku to a hardware catalogue entry (roceops hardware list)")
        for lane in p.lanes:
            if lane in owner:
                raise SonicRenderError(f"{device.name}: {p.name} and {owner[lane]} both claim lane {lane}")
            owner[lane] = p.name
        out.append({
            "name": p.name,
            "admin_status": "up" if p.admin_up else "down",
            "alias": p.alias,
            "description": p.description,
            "fec": "rs" if p.speed >= 25_000 else "none",
            "index": _s(p.index),
            "lanes": ",".join(str(lane) for lane in p.lanes),
            "mtu": _s(p.mtu),
            "speed": _s(p.speed),
        })
    return out


def _pairs(mapping: Mapping[int, int]) -> list[tuple[str, str]]:
    return [(_s(k), _s(v)) for k, v in sorted(mapping.items())]


def _lossless_queues(device: SwitchIntent, port: SwitchPort) -> set[int]:
    try:
        return {device.qos.pfc_priority_to_queue[p] for p in port.pfc_priorities}
    except KeyError as exc:
        raise SonicRenderError(f"{device.name}: {port.name}: PFC priority {exc} has no queue "
                               "in pfc_priority_to_queue") from None


def _schedulers(device: SwitchIntent) -> list[dict[str, str | None]]:
    out: list[dict[str, str | None]] = []
    for qid, q in sorted(device.qos.queues.items()):
        if q.scheduler == "dwrr" and q.weight is None:
            raise SonicRenderError(f"{device.name}: queue {qid} is DWRR without a weight")
        out.append({"name": scheduler_name(qid), "type": SCHEDULER_TYPES[q.scheduler],
                    "weight": _s(q.weight) if q.scheduler == "dwrr" and q.weight is not None else None})
    return out


def _wred_profiles(device: SwitchIntent) -> list[dict[str, str]]:
    names = wred_profile_names(device)
    profiles: dict[str, dict[str, str]] = {}
    for qid, q in sorted(device.qos.queues.items()):
        if q.ecn is not None:
            profiles.setdefault(names[qid], {"name": names[qid], "min": _s(q.ecn.min_bytes),
                                             "max": _s(q.ecn.max_bytes), "probability": _s(q.ecn.probability)})
    return sorted(profiles.values(), key=lambda w: w["name"])


def _queues(device: SwitchIntent, ports: list[SwitchPort]) -> list[dict[str, str | None]]:
    names = wred_profile_names(device)
    return [
        {"key": f"{p.name}|{qid}", "scheduler": scheduler_name(qid), "wred_profile": names.get(qid)}
        for p in ports for qid in sorted(device.qos.queues)
    ]


def _port_qos(device: SwitchIntent, ports: list[SwitchPort]) -> list[dict[str, str | None]]:
    out: list[dict[str, str | None]] = []
    for p in ports:
        pfc = ",".join(str(i) for i in sorted(p.pfc_priorities)) or None
        wd = pfc if (pfc and p.pfc_watchdog and device.qos.pfc_watchdog.enabled) else None
        out.append({"name": p.name, "pfc_enable": pfc, "pfcwd_sw_enable": wd})
    return out


def _pfc_wd(device: SwitchIntent, ports: list[SwitchPort]) -> dict[str, Any] | None:
    wd = device.qos.pfc_watchdog
    if not wd.enabled:
        return None
    watched = [p.name for p in ports if p.pfc_watchdog and p.pfc_priorities]
    return {
        "poll_interval": _s(wd.poll_ms),
        "ports": [{"name": name, "action": wd.action, "detection_time": _s(wd.detect_ms),
                   "restoration_time": _s(wd.restore_ms)} for name in watched],
    }


def _headroom_profiles(device: SwitchIntent, ports: list[SwitchPort]) -> set[str]:
    """Names of the lossless (headroom) profiles, checked against SwitchQos.profiles."""
    declared = {b.name: b for b in device.qos.profiles}
    names: set[str] = set()
    for p in ports:
        for pg, h in p.headroom.items():
            b = declared.get(h.profile)
            if b is None:
                raise SonicRenderError(f"{device.name}: {p.name} PG {pg} uses buffer profile {h.profile!r}, "
                                       "which SwitchQos.profiles does not declare")
            if (b.size, b.xon, b.xoff) != (h.size, h.xon, h.xoff):
                raise SonicRenderError(f"{device.name}: {p.name} PG {pg}: headroom of {h.profile!r} "
                                       f"(size/xon/xoff {h.size}/{h.xon}/{h.xoff}) differs from the declared "
                                       f"profile ({b.size}/{b.xon}/{b.xoff})")
            names.add(h.profile)
    return names


def _buffers(device: SwitchIntent, ports: list[SwitchPort], model: BufferModel) -> dict[str, Any]:
    qos = device.qos
    cable_length = {"name": CABLE_LENGTH_KEY, "ports": [(p.name, f"{p.cable_length}m") for p in ports]}
    if not qos.pools:  # vendor-managed SKU: no BUFFER_* tables; buffers_config.j2 still writes CABLE_LENGTH
        return {"model": model, "vendor_managed": True, "cable_length": cable_length}
    headroom = _headroom_profiles(device, ports)
    declared = {b.name for b in qos.profiles}
    for needed in (INGRESS_LOSSY_PROFILE, EGRESS_LOSSLESS_PROFILE, qos.lossy_queue_profile):
        if needed not in declared:
            raise SonicRenderError(f"{device.name}: SwitchQos.profiles has no {needed!r}")
    pools = [{"name": b.name, "type": b.type, "mode": b.mode, "size": _s(b.size),
              "xoff": _s(b.xoff) if b.xoff is not None else None} for b in qos.pools]
    profiles = [
        {"name": b.name, "pool": b.pool, "size": _s(b.size),
         "optional": {k: _s(v) for k, v in (("dynamic_th", b.dynamic_th), ("static_th", b.static_th),
                                            ("xoff", b.xoff), ("xon", b.xon), ("xon_offset", b.xon_offset))
                      if v is not None}}
        for b in sorted(qos.profiles, key=lambda b: b.name)
        if not (model == "dynamic" and b.name in headroom)
    ]
    pgs: list[dict[str, str]] = []
    buffer_queues: list[dict[str, str]] = []
    used_pgs = set(qos.tc_to_pg.values()) | {0}
    # a port's PG and queue ranges follow from its headroom profiles and PFC priorities alone: worked out once
    # per distinct set of them (most ports of a switch share one), not once per port
    pg_ranges: dict[tuple[tuple[int, str], ...], list[tuple[str, str]]] = {}
    queue_ranges: dict[tuple[int, ...], list[tuple[str, str]]] = {}
    for p in ports:
        shape = tuple((pg, h.profile) for pg, h in p.headroom.items())
        if (by_pg_ranges := pg_ranges.get(shape)) is None:
            by_pg = {pg: INGRESS_LOSSY_PROFILE for pg in used_pgs - set(p.headroom)}
            by_pg.update({pg: "NULL" if model == "dynamic" else profile for pg, profile in shape})
            by_pg_ranges = pg_ranges[shape] = grouped_ranges(by_pg)
        pgs += [{"key": f"{p.name}|{r}", "profile": prof} for r, prof in by_pg_ranges]
        priorities = tuple(p.pfc_priorities)
        if (by_queue_ranges := queue_ranges.get(priorities)) is None:
            lossless = _lossless_queues(device, p)
            by_queue = {q: EGRESS_LOSSLESS_PROFILE if q in lossless else qos.lossy_queue_profile
                        for q in range(UNICAST_QUEUES)}
            by_queue_ranges = queue_ranges[priorities] = grouped_ranges(by_queue)
        buffer_queues += [{"key": f"{p.name}|{r}", "profile": prof} for r, prof in by_queue_ranges]
    profile_lists = {
        "ingress": [(p.name, ",".join(p.ingress_profiles)) for p in ports if p.ingress_profiles],
        "egress": [(p.name, ",".join(p.egress_profiles)) for p in ports if p.egress_profiles],
    }
    return {"model": model, "vendor_managed": False, "pools": pools, "profiles": profiles, "pgs": pgs,
            "queues": buffer_queues, "profile_lists": profile_lists, "cable_length": cable_length}


def _bgp_neighbors(device: SwitchIntent) -> list[dict[str, str | None]]:
    out: list[dict[str, str | None]] = []
    for n in sorted(device.bgp.neighbors, key=lambda n: ip_key(n.ip)):
        port = device.ports.get(n.port)
        local = port.address.split("/")[0] if port is not None and port.address else None
        out.append({"ip": n.ip, "asn": _s(n.remote_asn), "name": n.description or n.ip, "local_addr": local})
    return out


def _bgp_globals(device: SwitchIntent) -> dict[str, Any]:
    """BGP_GLOBALS / BGP_GLOBALS_AF / BGP_GLOBALS_AF_NETWORK / route-map context (frrcfgd tables)."""
    return {"vrf": BGP_VRF, "afi_safi": BGP_AFI_SAFI, "asn": _s(device.bgp.asn), "router_id": device.bgp.router_id,
            "max_ebgp_paths": _s(MAX_EBGP_PATHS), "route_map": ROUTE_MAP,
            "networks": sorted(set(device.bgp.networks), key=prefix_key)}


def _metadata(device: SwitchIntent, model: BufferModel) -> dict[str, str]:
    try:
        device_type = DEVICE_TYPES[device.role]
    except KeyError:
        raise SonicRenderError(f"{device.name}: no SONiC DEVICE_METADATA type for role {device.role!r}") from None
    if device.hwsku is None:
        raise SonicRenderError(f"{device.name}: switch model {device.model!r} names no hwsku; SONiC needs the SKU "
                               "(its port map and buffers): set switch_models.<model>.hwsku (roceops hardware list)")
    return {
        "hostname": device.name,
        "hwsku": device.hwsku,
        "bgp_asn": _s(device.bgp.asn),
        "bgp_router_id": device.bgp.router_id,
        "buffer_model": model,
        "type": device_type,
        "docker_routing_config_mode": ROUTING_CONFIG_MODE,
        "frr_mgmt_framework_config": FRR_MGMT_FRAMEWORK,
    }


def buffer_model_of(device: SwitchIntent, override: BufferModel | None = None) -> BufferModel:
    """``override`` (a caller's, e.g. a test rendering the dynamic model), else the plan's
    ``SwitchQos.buffer_model`` (the fabric's ``qos.buffers.model``)."""
    return override or device.qos.buffer_model


# --------------------------------------------------------------------------- context


@jinja2.pass_context
def _section_marker(ctx: jinja2.runtime.Context) -> str:
    """First line of every section template: names the template and device for error messages."""
    return f"{MARKER}{ctx.name} {ctx['hostname']}"


def render_context(device: Any, *, buffer_model: BufferModel | None = None) -> dict[str, Any]:
    """Template variables for one SONiC switch (see the module docstring for every naming decision)."""
    if not isinstance(device, SwitchIntent):
        raise TypeError(f"SONiC renders switches only, got {type(device).__name__}")
    model = buffer_model_of(device, buffer_model)
    ports = sorted(device.ports.values(), key=lambda p: port_key(p.name))
    qos = device.qos
    ecn_queues = any(q.ecn is not None for q in qos.queues.values())
    flex = [*FLEX_COUNTERS_ALWAYS, *(["PFCWD"] if qos.pfc_watchdog.enabled else []),
            *(["WRED_ECN_QUEUE"] if ecn_queues else [])]
    return {
        "section": _section_marker,
        "hostname": device.name,
        "nos_version": device.nos_version,  # the fabric's release (None: not pinned); deploy checks the device's
        "metadata": _metadata(device, model),
        "ports": _ports(device, ports),
        "loopback": {"name": LOOPBACK, "prefix": device.loopback},
        "interfaces": [{"name": p.name, "prefix": p.address} for p in ports if p.address],
        "map_name": MAP_NAME,
        "dscp_to_tc": _pairs(qos.dscp_to_tc),
        "tc_to_queue": _pairs(qos.tc_to_queue),
        "tc_to_pg": _pairs(qos.tc_to_pg),
        "pfc_to_queue": _pairs(qos.pfc_priority_to_queue),
        "port_qos": _port_qos(device, ports),
        "wred_profiles": _wred_profiles(device),
        "schedulers": _schedulers(device),
        "queues": _queues(device, ports),
        "buffers": _buffers(device, ports, model),
        "pfc_wd": _pfc_wd(device, ports),
        "flex_counters": sorted(flex),
        "bgp_neighbors": _bgp_neighbors(device),
        "bgp": _bgp_globals(device),
        "breakout_cfg": _breakouts(device),
        "switch_hash": switch_hash(device),
    }


def _breakouts(device: SwitchIntent) -> list[dict[str, str]]:
    try:
        return breakout_cfg(device)
    except BreakoutError as exc:
        raise SonicRenderError(f"{device.name}: {exc}") from None
