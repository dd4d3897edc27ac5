"""What a switch's hardware profile adds to its plan: SKU port facts, breakouts and the vendor's buffers.

A switch whose model names a catalogue hwsku (``switch_models.<m>.hwsku``) gets, per port, the lanes,
alias and index of the SKU port behind it (:mod:`roceops.hardware.front_panel`), and the buffer pools,
profiles and per-port profile lists of the SKU's ``buffers_defaults_<topo>.j2`` instead of roceops'
generic ones; roceops still computes the lossless PG headroom per port. Topology by role as
sonic-buildimage's buffers_config.j2 picks the template (@ 02aaf5c36e97231dd0be28245269a0c17431fe9f:
ToRRouter -> t0, LeafRouter -> t1, SpineRouter -> t2): leaf t0, spine t1, core t2 (t1 if the SKU has no t2).
"""

from __future__ import annotations

from roceops.device.intent import BufferPool, BufferProfile, SwitchPort
from roceops.hardware import UnknownSwitchProfile, switch_profile
from roceops.hardware.front_panel import FrontPanelPort, front_panel_of
from roceops.hardware.models import BufferSpec, SwitchProfile
from roceops.topology.fabric import Switch

TOPOLOGY_OF_ROLE = {"leaf": "t0", "spine": "t1", "core": "t2"}


def profile_of(sw: Switch) -> SwitchProfile | None:
    if sw.hwsku is None:
        return None
    try:
        return switch_profile(sw.hwsku)
    except UnknownSwitchProfile:
        return None  # lint HW001 reports it


def buffer_spec_of(sw: Switch, profile: SwitchProfile) -> BufferSpec | None:
    return profile.buffer_spec(TOPOLOGY_OF_ROLE[sw.role]) or profile.buffer_spec("t1")


def _port_facts(sw: Switch, ports: dict[str, SwitchPort], host_breakout: str | None) -> dict[str, FrontPanelPort]:
    """Used port name -> SKU facts: host-facing ports of a leaf whose model breaks cages out for hosts
    (``host_breakout``) are child ports of those cages, every other port a port at ``port_speed``."""
    whole = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed) or ()}
    children: dict[str, FrontPanelPort] = {}
    if host_breakout is not None and sw.role == "leaf":
        children = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed, host_breakout) or ()}
    out: dict[str, FrontPanelPort] = {}
    for name, port in ports.items():
        hw = (children if port.role == "host" and children else whole).get(name)
        if hw is not None:
            out[name] = hw
    return out


def with_port_hardware(sw: Switch, ports: dict[str, SwitchPort], spec: BufferSpec | None,
                       host_breakout: str | None = None) -> dict[str, SwitchPort]:
    """``ports`` with the SKU's lanes/alias/index and buffer profile lists filled in."""
    facts = _port_facts(sw, ports, host_breakout)
    out: dict[str, SwitchPort] = {}
    for name, port in ports.items():
        hw = facts.get(name)
        update: dict[str, object] = {}
        if hw is not None:
            update.update(lanes=list(hw.lanes), alias=hw.alias, index=hw.index)
        if spec is not None:
            update.update(ingress_profiles=list(spec.ingress_profile_list),
                          egress_profiles=list(spec.egress_profile_list))
        out[name] = port.model_copy(update=update) if update else port
    return out


def breakouts(sw: Switch, ports: dict[str, SwitchPort], host_breakout: str | None = None) -> dict[str, int]:
    """Cage -> split count for the cages the used ports sit in, where the SKU (or ``host_breakout``) splits them."""
    facts = _port_facts(sw, ports, host_breakout)
    return {hw.cage: hw.breakout for name in sorted(ports) if (hw := facts.get(name)) and hw.breakout > 1}


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
