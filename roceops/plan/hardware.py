"""What a switch's hardware profile adds to its plan: SKU port facts, breakouts and the vendor's buffers.

A switch whose model names a catalogue hwsku (``switch_models.<m>.hwsku``) gets, per port, the lanes,
alias and index of the SKU port behind it (:mod:`roceops.hardware.front_panel`), and the buffer pools,
profiles and per-port profile lists of the SKU's ``buffers_defaults_<topo>.j2`` instead of roceops'
generic ones, and lossless PG headroom from the vendor (:class:`VendorHeadroom`). A SKU whose files set no
buffers is vendor-managed: no pools, profiles or headroom are planned. Topology by role as
sonic-buildimage's buffers_config.j2 picks the template (@ 02aaf5c36e97231dd0be28245269a0c17431fe9f:
ToRRouter -> t0, LeafRouter -> t1, SpineRouter -> t2): leaf t0, spine t1, core t2 (t1 if the SKU has no t2).
"""

from __future__ import annotations

from collections.abc import Iterable

from roceops.device.intent import BufferPool, BufferProfile, Headroom, SwitchPort
from roceops.hardware import UnknownSwitchProfile, switch_profile
from roceops.hardware.dynamic_headroom import asic_of, mellanox_headroom
from roceops.hardware.front_panel import FrontPanelPort, front_panel_of
from roceops.hardware.models import BufferSpec, LosslessPgEntry, SwitchProfile
from roceops.topology.fabric import Switch
from roceops.util.picklable import PicklableError

# sonic-swss cfgmgr/buffermgr.cpp @ e6b0c5b5d2ab52354c4ec941f7c9005aeec3f779 (doSpeedUpdateTask): the traditional
# model's lossless profile is pg_lossless_<speed>_<cable>_profile in ingress_lossless_pool with the lookup row's xon,
# xon_offset (when the row has one), xoff, size and "<pool mode>_th" = the row's threshold.
LOSSLESS_PG_POOL = "ingress_lossless_pool"


TOPOLOGY_OF_ROLE = {"leaf": "t0", "spine": "t1", "core": "t2"}


class NoVendorHeadroom(PicklableError, ValueError):
    """The SKU's vendor data gives no headroom for a port's speed and cable length (lint HDRM003 names it)."""

    def __init__(self, message: str, *, hwsku: str, speed: int, cable_m: int, supported: tuple[str, ...]) -> None:
        super().__init__(message)
        self.hwsku, self.speed, self.cable_m, self.supported = hwsku, speed, cable_m, supported


def profile_of(sw: Switch) -> SwitchProfile | None:
    if sw.hwsku is None:
        return None
    try:
        return switch_profile(sw.hwsku)
    except UnknownSwitchProfile:
        return None  # lint HW001 reports it


def vendor_managed_reason(sw: Switch) -> str | None:
    """Why a switch gets no BUFFER_* tables (its SKU leaves buffers to the ASIC configuration), else None."""
    from roceops.platforms.base import get_platform  # here: platforms.base imports the plan models

    profile = profile_of(sw)
    if profile is None or profile.vendor_managed_buffers is None or not get_platform(sw.platform).sku_built:
        return None
    return f"{profile.name}: {profile.vendor_managed_buffers.reason}"


def buffer_spec_of(sw: Switch, profile: SwitchProfile) -> BufferSpec | None:
    return profile.buffer_spec(TOPOLOGY_OF_ROLE[sw.role]) or profile.buffer_spec("t1")


class PortHardware:
    """What a switch's SKU adds to each of its ports: the lanes/alias/index of the SKU port behind it (host-facing
    ports of a leaf whose model breaks cages out for hosts (``host_breakout``) are child ports of those cages,
    every other port a port at ``port_speed``), the buffer profile lists and the vendor's headroom."""

    def __init__(self, sw: Switch, spec: BufferSpec | None, host_breakout: str | None = None,
                 headroom: VendorHeadroom | None = None) -> None:
        self.spec, self.headroom = spec, headroom
        self.whole = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed) or ()}
        self.children: dict[str, FrontPanelPort] = {}
        if host_breakout is not None and sw.role == "leaf":
            self.children = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed, host_breakout)
                             or ()}
        self.adds = bool(self.whole or self.children or spec is not None or headroom is not None)  # anything at all

    def facts(self, name: str, role: str) -> FrontPanelPort | None:
        return (self.children if role == "host" and self.children else self.whole).get(name)

    def fields(self, name: str, role: str, speed: int, cable: int, mtu: int,
               headroom: dict[int, Headroom]) -> dict[str, object]:
        """The SwitchPort fields the SKU sets for port ``name`` (the planned ``headroom`` replaced by the
        vendor's where it has one); none without a SKU."""
        hw = self.facts(name, role)
        out: dict[str, object] = {}
        if hw is not None:
            out.update(lanes=list(hw.lanes), alias=hw.alias, index=hw.index)
        if self.spec is not None:
            out.update(ingress_profiles=list(self.spec.ingress_profile_list),
                       egress_profiles=list(self.spec.egress_profile_list))
        if self.headroom is not None and headroom:
            pgs = self.headroom.of(speed, cable, mtu, headroom, len(hw.lanes) if hw is not None else 0)
            if pgs is not None:
                out["headroom"] = pgs
        return out

    def breakouts(self, ports: dict[str, SwitchPort]) -> dict[str, int]:
        """Cage -> split count for the cages the used ports sit in, where the SKU (or ``host_breakout``) splits
        them."""
        if not (self.whole or self.children):
            return {}
        return {hw.cage: hw.breakout for name in sorted(ports)
                if (hw := self.facts(name, ports[name].role)) and hw.breakout > 1}


def sku_pools(spec: BufferSpec) -> list[BufferPool]:
    pools: list[BufferPool] = []
    for p in spec.pools:
        if p.size is None:
            raise ValueError(f"{spec.template}: pool {p.name} has no size in the traditional buffer model")
        pools.append(BufferPool(name=p.name, type=p.type, mode=p.mode, size=p.size, xoff=p.xoff))
    return pools


def sku_profiles(spec: BufferSpec) -> list[BufferProfile]:
    return [BufferProfile(name=p.name, pool=p.pool, size=p.size, dynamic_th=p.dynamic_th, static_th=p.static_th)
            for p in spec.profiles]


def headroom_pool(spec: BufferSpec | None) -> str:
    """The pool lossless PG headroom profiles draw from: the SKU's ingress lossless profile's pool."""
    if spec is not None and (prof := spec.profile("ingress_lossless_profile")) is not None:
        return prof.pool
    return "ingress_lossless_pool"


def row_profile_name(row: LosslessPgEntry) -> str:
    """buffermgrd's name for a lookup row: ``pg_lossless_<speed>_<cable>_profile`` (cable as the row spells it)."""
    return f"pg_lossless_{row.speed}_{row.cable}_profile"


def vendor_headroom(profile: SwitchProfile, spec: BufferSpec, model: str, speed: int, cable: int, mtu: int,
                    lanes: int) -> Headroom | None:
    """The vendor's headroom for one port, None when the SKU ships no lookup table (roceops' formula applies).

    Traditional model: the ``pg_profile_lookup.ini`` row buffermgrd reads (``-l``), refused when there is none.
    Dynamic model: buffermgrd (``-a asic_table.json``) reads no table and runs buffer_headroom_<vendor>.lua for
    every port (sonic-buildimage dockers/docker-orchagent/buffermgrd.sh @ 086b03bd), ported in
    :mod:`roceops.hardware.dynamic_headroom` for Mellanox; other SKUs have no dynamic calculation to use.
    """
    if model == "dynamic":
        asic = asic_of(profile.platform)
        if not spec.dynamic_calculation or asic is None:
            raise NoVendorHeadroom(f"{profile.name} has no dynamic buffer calculation (no buffers_dynamic.json.j2 "
                                   "or no Mellanox ASIC_TABLE entry): use qos.buffers.model traditional",
                                   hwsku=profile.name, speed=speed, cable_m=cable, supported=())
        h = mellanox_headroom(asic=asic, speed_mbps=speed, cable_m=cable, port_mtu=mtu, lanes=lanes,
                              shared_headroom=bool((pool := spec.pool(LOSSLESS_PG_POOL)) and pool.xoff))
        return Headroom(profile=f"pg_lossless_{speed}_{cable}m_profile", xon=h.xon, xoff=h.xoff, size=h.size)
    if not spec.pg_lossless:
        return None
    row = spec.pg_row(speed, cable)
    if row is None:
        lengths = spec.cable_lengths(speed)
        raise NoVendorHeadroom(f"{profile.name}'s pg_profile_lookup.ini has no row for {speed} Mb/s at {cable} m; "
                               f"its rows at that speed: {', '.join(lengths) or 'none'}",
                               hwsku=profile.name, speed=speed, cable_m=cable, supported=lengths)
    return Headroom(profile=row_profile_name(row), xon=row.xon, xoff=row.xoff, size=row.size)


class VendorHeadroom:
    """The vendor's headroom for one switch's ports: :func:`vendor_headroom` per (speed, cable, MTU, lanes), cached;
    a vendor-managed SKU (``spec`` None) gets none at all (no BUFFER_PG: the ASIC configuration holds it)."""

    def __init__(self, profile: SwitchProfile, spec: BufferSpec | None, model: str) -> None:
        self.profile, self.spec, self.model = profile, spec, model
        self._cache: dict[tuple[int, int, int, int], Headroom | None] = {}

    def of(self, speed: int, cable: int, mtu: int, pgs: Iterable[int], lanes: int) -> dict[int, Headroom] | None:
        """PG -> headroom for a port's lossless PGs ``pgs``; None where roceops' formula stays (no vendor table)."""
        if self.spec is None:
            return {}
        key = (speed, cable, mtu, lanes)
        if key not in self._cache:
            self._cache[key] = vendor_headroom(self.profile, self.spec, self.model, *key)
        h = self._cache[key]
        return None if h is None else dict.fromkeys(pgs, h)


def vendor_profile(spec: BufferSpec | None, name: str) -> BufferProfile | None:
    """The BUFFER_PROFILE buffermgrd writes for lookup-table profile ``name``; None when it is not a table row."""
    if spec is None:
        return None
    row = next((r for r in spec.pg_lossless if row_profile_name(r) == name), None)
    if row is None:
        return None
    pool = spec.pool(LOSSLESS_PG_POOL)
    static = pool is not None and pool.mode == "static"
    return BufferProfile(name=name, pool=LOSSLESS_PG_POOL, size=row.size, xon=row.xon, xoff=row.xoff,
                         xon_offset=row.xon_offset, dynamic_th=None if static else row.threshold,
                         static_th=row.threshold if static else None)

