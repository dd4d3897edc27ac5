"""plan() for switches: one small function per feature, assembled by plan_switch."""

from __future__ import annotations

import ipaddress

from roceops.device.intent import (
    Bgp,
    BgpNeighbor,
    BufferPool,
    BufferProfile,
    EcnProfile,
    Headroom,
    LoadBalancingIntent,
    PfcWatchdogIntent,
    QueueIntent,
    SwitchIntent,
    SwitchPort,
    SwitchQos,
)
from roceops.hardware import switch_profile
from roceops.hardware.models import BufferSpec
from roceops.model.intent import FabricIntent
from roceops.model.load_balancing import canonical_fields
from roceops.plan import hardware, qos_maps
from roceops.plan.headroom import compute_headroom, profile_name
from roceops.plan.trusted import trusted
from roceops.topology.fabric import Fabric, Link, Switch
from roceops.topology.settings import override_chain


def plan_queues(intent: FabricIntent, sw: Switch) -> dict[int, QueueIntent]:
    queues: dict[int, QueueIntent] = {}
    for c in intent.qos.traffic_classes:
        ecn_policy = sw.settings.ecn.get(c.name) if c.ecn is not None or c.name in sw.settings.ecn else None
        ecn = None
        if ecn_policy is not None:
            ecn = EcnProfile(min_bytes=ecn_policy.min.to_bytes(sw.port_speed),
                             max_bytes=ecn_policy.max.to_bytes(sw.port_speed),
                             probability=ecn_policy.probability)
        queues[c.queue_id] = QueueIntent(scheduler=c.scheduling.mode, weight=c.scheduling.weight,
                                         lossless=c.lossless, ecn=ecn, traffic_class=c.name)
    return dict(sorted(queues.items()))


def plan_pools(intent: FabricIntent) -> list[BufferPool]:
    b = intent.qos.buffers
    return [
        BufferPool(name="ingress_lossless_pool", type="ingress", mode="dynamic",
                   size=b.ingress_lossless_pool_bytes,
                   xoff=(b.ingress_lossless_pool_bytes // 8) if b.shared_headroom else None),
        BufferPool(name="egress_lossless_pool", type="egress", mode="static", size=b.egress_lossless_pool_bytes),
        BufferPool(name="egress_lossy_pool", type="egress", mode="dynamic", size=b.egress_lossy_pool_bytes),
    ]


def plan_port_headroom(intent: FabricIntent, speed: int, cable: int, mtu: int) -> Headroom:
    b = intent.qos.buffers
    h = compute_headroom(
        speed_mbps=speed, cable_m=cable, mtu=mtu, small_packet_percent=b.small_packet_percent,
        cell_size=b.cell_size, mac_phy_delay=b.mac_phy_delay_bytes, pipeline_latency=b.pipeline_latency_bytes,
        gearbox_delay=b.gearbox_delay_bytes, shared_headroom=b.shared_headroom,
    )
    return Headroom(profile=profile_name(speed, cable), xon=h.xon, xoff=h.xoff, size=h.size)


def plan_profiles(intent: FabricIntent, ports: dict[str, SwitchPort],
                  spec: BufferSpec | None = None) -> list[BufferProfile]:
    """The SKU's profiles (or roceops' generic three) plus one lossless headroom profile per (speed, cable)."""
    b = intent.qos.buffers
    out = hardware.sku_profiles(spec) if spec is not None else [
        BufferProfile(name="ingress_lossy_profile", pool="ingress_lossless_pool", size=0,
                      dynamic_th=b.lossy_dynamic_th),
        BufferProfile(name="egress_lossless_profile", pool="egress_lossless_pool", size=0,
                      static_th=b.egress_lossless_pool_bytes),
        BufferProfile(name="egress_lossy_profile", pool="egress_lossy_pool", size=1792,
                      dynamic_th=b.lossy_dynamic_th),
    ]
    seen: dict[str, Headroom] = {}
    for port in ports.values():
        for h in port.headroom.values():
            seen.setdefault(h.profile, h)
    for name in sorted(seen):
        h = seen[name]  # traditional model: the vendor's lookup-table profile where the SKU has one
        vendor = hardware.vendor_profile(spec, name) if b.model == "traditional" else None
        out.append(vendor or BufferProfile(
            name=name, pool=hardware.headroom_pool(spec), size=h.size, xon=h.xon, xoff=h.xoff,
            dynamic_th=b.lossless_dynamic_th))
    return out


def plan_watchdog(sw: Switch) -> PfcWatchdogIntent:
    wd = sw.settings.pfc_watchdog
    return PfcWatchdogIntent(enabled=wd.enabled, detect_ms=wd.detect_ms, restore_ms=wd.restore_ms,
                             poll_ms=wd.poll_ms, action=wd.action)


def _local(link: Link, name: str) -> tuple[str, str | None, str, str, str | None]:
    """(local port, local ip, peer device, peer port, peer ip) of a link seen from ``name``."""
    if link.a.device == name:
        return link.a.port, link.a_ip, link.b.device, link.b.port, link.b_ip
    return link.b.port, link.b_ip, link.a.device, link.a.port, link.a_ip


def plan_ports(intent: FabricIntent, fabric: Fabric, sw: Switch,
               hw: hardware.PortHardware | None = None) -> dict[str, SwitchPort]:
    """Each used port with its link, PFC and headroom, and what its SKU adds to it (``hw``)."""
    lossless = qos_maps.lossless_priorities(intent.qos)
    pgs = qos_maps.lossless_pgs(intent.qos)
    mtu = sw.settings.mtu
    wd = sw.settings.pfc_watchdog.enabled and bool(lossless)
    hw = hw if hw is not None and hw.adds else None
    ports: dict[str, SwitchPort] = {}
    cache: dict[tuple[int, int, int], Headroom] = {}
    for link in fabric.links_of(sw.name):
        port, addr, peer, peer_port, _ = _local(link, sw.name)
        key = (link.speed, link.cable_length, mtu)
        if key not in cache:
            cache[key] = plan_port_headroom(intent, *key)
        role = "host" if link.tier == "host-leaf" else "fabric"
        headroom = {pg: cache[key] for pg in pgs}
        sku = hw.fields(port, role, link.speed, link.cable_length, mtu, headroom) if hw is not None else {}
        ports[port] = trusted(  # values from the validated fabric and the plan (roceops/plan/trusted.py)
            SwitchPort, name=port, speed=link.speed, mtu=mtu, description=f"{peer}:{peer_port}",
            role=role, address=addr, peer_device=peer, peer_port=peer_port, cable_length=link.cable_length,
            pfc_priorities=list(lossless), pfc_watchdog=wd, headroom=sku.pop("headroom", headroom), **sku,
        )
    return ports


def plan_bgp(fabric: Fabric, sw: Switch) -> Bgp:
    neighbors: list[BgpNeighbor] = []
    networks = [sw.loopback]
    for link in fabric.links_of(sw.name):
        port, addr, peer, _peer_port, peer_ip = _local(link, sw.name)
        if link.tier == "host-leaf":
            if addr:
                networks.append(_network_of(addr))
            continue
        peer_sw = fabric.device(peer)
        assert peer_ip is not None
        neighbors.append(trusted(BgpNeighbor, ip=peer_ip.split("/")[0], remote_asn=getattr(peer_sw, "asn", 0),
                                 port=port, description=peer))  # as SwitchPort above
    return Bgp(asn=sw.asn, router_id=sw.loopback.split("/")[0], neighbors=neighbors, networks=networks)


def _network_of(address: str) -> str:
    """The network an interface address is in. Addresses, not ``IPv4Network``: a network object is a reference
    cycle, and planning runs with the cyclic GC off (tests/render/test_render_properties.py). A prefix of /24 or
    longer (every host link's /31) clears bits of the last octet only: done on the text, as ipaddress would.

    >>> _network_of("10.128.1.1/31"), _network_of("10.128.1.7/22")
    ('10.128.1.0/31', '10.128.0.0/22')
    """
    ip, plen = address.split("/")
    host_bits = 32 - int(plen)
    if host_bits <= 8:  # expand writes canonical dotted quads (ipaddress's own text)
        head, _, last = ip.rpartition(".")
        return f"{head}.{int(last) >> host_bits << host_bits}/{plen}"
    return f"{ipaddress.IPv4Address(int(ipaddress.IPv4Address(ip)) >> host_bits << host_bits)}/{plen}"


def plan_qos(intent: FabricIntent, sw: Switch, ports: dict[str, SwitchPort],
             spec: BufferSpec | None = None, vendor_managed: bool = False) -> SwitchQos:
    """QoS maps and queues from the policy; buffer pools/profiles from the SKU's templates when it has them
    (``vendor_managed``: none at all, the SKU leaves buffers to its ASIC configuration)."""
    policy = intent.qos
    return SwitchQos(
        trust=policy.trust,
        dscp_to_tc=qos_maps.dscp_to_tc(policy),
        tc_to_queue=qos_maps.tc_to_queue(policy),
        tc_to_pg=qos_maps.tc_to_pg(policy),
        pfc_priority_to_queue=qos_maps.pfc_priority_to_queue(policy),
        lossless_priorities=qos_maps.lossless_priorities(policy),
        cnp_priority=policy.cnp.priority,
        queues=plan_queues(intent, sw),
        buffer_model=intent.qos.buffers.model,
        pools=[] if vendor_managed else hardware.sku_pools(spec) if spec is not None else plan_pools(intent),
        profiles=[] if vendor_managed else plan_profiles(intent, ports, spec),
        lossy_queue_profile=spec.lossy_queue_profile if spec is not None else "egress_lossy_profile",
        pfc_watchdog=plan_watchdog(sw),
    )


def plan_load_balancing(intent: FabricIntent, sw: Switch) -> LoadBalancingIntent:
    """The fabric's load-balancing settings for this tier, then group and device overrides in order."""
    lb = intent.load_balancing
    mode, fields, seed = lb.mode, lb.hash_fields, lb.seed_for(sw.role)
    for settings in override_chain(intent, sw.name, sw.groups):
        o = settings.load_balancing
        if o is not None:
            mode = o.mode or mode
            fields = o.hash_fields if o.hash_fields is not None else fields
            seed = o.hash_seed if o.hash_seed is not None else seed
    return LoadBalancingIntent(mode=mode, hash_fields=canonical_fields(fields) if fields is not None else None,
                               hash_seed=seed)


def plan_switch(fabric: Fabric, sw: Switch) -> SwitchIntent:
    intent = fabric.intent
    profile = hardware.profile_of(sw)
    from roceops.platforms.base import get_platform  # here: platforms.base imports the plan models

    sku_built = get_platform(sw.platform).sku_built  # the room builds its buffers from the SKU's files
    if sku_built and sw.hwsku is not None and profile is None:
        switch_profile(sw.hwsku)  # raises UnknownSwitchProfile (lint HW001): never generic buffers for a SKU
    spec = hardware.buffer_spec_of(sw, profile) if profile is not None and sku_built else None
    vendor_managed = sku_built and profile is not None and profile.vendor_managed_buffers is not None
    host_breakout = intent.switch_models[sw.model].host_breakout
    headroom = (hardware.VendorHeadroom(profile, spec, intent.qos.buffers.model)
                if profile is not None and (spec is not None or vendor_managed) else None)
    hw = hardware.PortHardware(sw, spec, host_breakout, headroom)
    ports = plan_ports(intent, fabric, sw, hw)
    return SwitchIntent(
        name=sw.name, platform=sw.platform, role=sw.role, model=sw.model, hwsku=sw.hwsku,
        nos_version=sw.settings.nos_version, mgmt_ip=sw.mgmt_ip, loopback=sw.loopback,
        qos=plan_qos(intent, sw, ports, spec, vendor_managed), ports=ports, bgp=plan_bgp(fabric, sw),
        load_balancing=plan_load_balancing(intent, sw), breakouts=hw.breakouts(ports),
    )
