"""expand(intent) -> Fabric: every switch, host, NIC, cable, address and ASN. Pure and deterministic."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TypedDict, TypeGuard, Unpack

from roceops import registry
from roceops.hardware.front_panel import front_panel_of
from roceops.model.intent import FabricIntent, TierIntent, default_port_naming
from roceops.model.names import HOSTNAME, NETDEV, RDMA_DEV, SafeName
from roceops.model.types import SwitchPlatform, SwitchRole, breakout_parts
from roceops.topology.addressing import Pool, ip, split
from roceops.topology.fabric import (
    Endpoint,
    Fabric,
    Host,
    Link,
    LinkTier,
    Nic,
    ResolvedSettings,
    Switch,
    TierSummary,
)
from roceops.topology.settings import override_chain, platform_override, resolve
from roceops.topology.sizing import Sizing, TopologyError, size_fabric

DEFAULT_NAMES = {
    "leaf": "leaf-su{su}-r{rail}",
    "spine": "spine{n:02d}",
    "core": "core{n:02d}",
}


@dataclass
class _Build:
    intent: FabricIntent
    sizing: Sizing
    mgmt: Pool
    loopbacks: Pool
    p2p: Pool
    switches: list[Switch] = field(default_factory=list)
    hosts: list[Host] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    # (plane, su, rail, idx) -> leaf; (plane, pod, idx) -> spine; (plane, group, idx) -> core
    leaves: dict[tuple[int, int, int, int], Switch] = field(default_factory=dict)
    spines: dict[tuple[int, int, int], Switch] = field(default_factory=dict)
    cores: dict[tuple[int, int, int], Switch] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    port_names: dict[tuple[str, str, int, str | None], str] = field(default_factory=dict)


def expand(intent: FabricIntent) -> Fabric:
    """Expand the intent. Raises TopologyError / PoolExhausted with the offending field path."""
    sizing = size_fabric(intent)
    b = _Build(
        intent=intent,
        sizing=sizing,
        mgmt=Pool("management", intent.addressing.management, skip_first=1),
        loopbacks=Pool("loopbacks", intent.addressing.loopbacks, skip_first=1),
        p2p=Pool("p2p", intent.addressing.p2p),
    )
    for plane in range(1, intent.planes + 1):
        _make_leaves(b, plane)
    for plane in range(1, intent.planes + 1):
        _make_spines(b, plane)
    for plane in range(1, intent.planes + 1):
        _make_cores(b, plane)
    rail_subnets = _make_hosts(b)
    _link_fabric(b)
    return Fabric(
        intent=intent,
        tiers=sizing.tiers,
        switches=b.switches,
        hosts=b.hosts,
        links=b.links,
        rail_subnets=rail_subnets,
        summary=_summarize(b),
    )


def _name(b: _Build, tier: TierIntent, role: str, plane: int, **keys: int) -> str:
    template = tier.name or DEFAULT_NAMES[role]
    if role == "leaf" and tier.name is None and b.sizing.leaves_per_rail > 1:
        template += "-{idx}"
    if role == "spine" and tier.name is None and b.sizing.tiers == 3:
        template = "spine-pod{pod}-{n:02d}"
    if tier.name is None and b.intent.planes > 1:
        template = "p{plane}-" + template
    try:
        name = template.format(plane=plane, **keys)
    except (KeyError, IndexError, ValueError) as exc:
        raise TopologyError(f"name template {template!r} is not valid for {role}s: {exc}",
                            f"tiers.{role}.name") from exc
    if not HOSTNAME.pattern.fullmatch(name):  # checked at load for the largest values; this is the real name
        raise TopologyError(f"name template {template!r} gives {name!r}, not a safe {HOSTNAME.what}",
                            f"tiers.{role}.name")
    if name in b.names:
        raise TopologyError(f"name template {template!r} gives the same name {name!r} to two devices",
                            f"tiers.{role}.name")
    b.names.add(name)
    return name


class _Placement(TypedDict, total=False):
    """Where a switch sits, besides its plane and index (the fields of :class:`Switch` a role may leave unset)."""

    su: int | None
    rail: int | None
    pod: int | None
    group: int | None


def _is_switch_platform(platform: str) -> TypeGuard[SwitchPlatform]:
    return registry.kind_of(platform) == "switch"


def _switch(b: _Build, role: SwitchRole, plane: int, index: int, groups: list[str], name_keys: dict[str, int],
            **fields: Unpack[_Placement]) -> Switch:
    intent = b.intent
    tier: TierIntent = getattr(intent.tiers, role)
    name = _name(b, tier, role, plane, n=index, **name_keys)
    platform = platform_override(override_chain(intent, name, groups)) or tier.platform
    if not _is_switch_platform(platform):
        raise TopologyError(f"{name}: platform {platform!r} is not a switch platform", f"overrides.devices.{name}")
    # the platform is known now: platform groups ("sonic", ...) may override the other settings
    chain = override_chain(intent, name, [groups[0], platform, *groups[1:]])
    model = intent.switch_models[tier.model]
    radix = model.radix
    if role == "leaf" and model.host_breakout is not None:  # each broken-out cage is that many ports
        radix += b.sizing.leaf_down_cages * (breakout_parts(model.host_breakout)[0] - 1)
    sw = Switch(
        name=name, role=role, platform=platform, model=tier.model, hwsku=model.hwsku, plane=plane,
        index=index, radix=radix, port_speed=model.port_speed,
        asn=0, loopback=ip(b.loopbacks.take()) + "/32", mgmt_ip=ip(b.mgmt.take()),
        settings=resolve(intent, chain, tier.nos_version if platform == tier.platform else None), **fields,
    )
    b.switches.append(sw)
    return sw


def _make_leaves(b: _Build, plane: int) -> None:
    s = b.sizing
    n = 0
    for su in range(1, b.intent.scalable_units.count + 1):
        pod = (su - 1) // s.sus_per_pod + 1 if s.tiers == 3 else None
        for rail in range(1, b.intent.node.rails + 1):
            for idx in range(1, s.leaves_per_rail + 1):
                n += 1
                groups = ["leaf", f"plane{plane}"] + ([f"pod{pod}"] if pod else []) + [f"su{su}", f"rail{rail}"]
                sw = _switch(b, "leaf", plane, n, groups, {"su": su, "rail": rail, "idx": idx, "pod": pod or 1},
                             su=su, rail=rail, pod=pod)
                asn = b.intent.asn.leaf_base + len(b.leaves)
                sw = sw.model_copy(update={"asn": asn})
                b.switches[-1] = sw
                b.leaves[(plane, su, rail, idx)] = sw


def _make_spines(b: _Build, plane: int) -> None:
    s = b.sizing
    if s.tiers == 1:
        return
    n = 0
    for pod in range(1, s.pods + 1):
        asn = b.intent.asn.spine_base + (plane - 1) * max(s.pods, 1) + (pod - 1)
        for idx in range(1, s.spines_per_pod + 1):
            n += 1
            groups = ["spine", f"plane{plane}"] + ([f"pod{pod}"] if s.tiers == 3 else [])
            keys = {"pod": pod, "idx": idx}
            index = idx if s.tiers == 3 else n
            sw = _switch(b, "spine", plane, index, groups, keys, pod=pod if s.tiers == 3 else None, group=idx)
            b.switches[-1] = sw = sw.model_copy(update={"asn": asn})
            b.spines[(plane, pod, idx)] = sw


def _make_cores(b: _Build, plane: int) -> None:
    s = b.sizing
    if s.tiers != 3:
        return
    n = 0
    for group in range(1, s.spines_per_pod + 1):
        for idx in range(1, s.cores_per_group + 1):
            n += 1
            sw = _switch(b, "core", plane, n, ["core", f"plane{plane}"], {"group": group, "idx": idx}, group=group)
            b.switches[-1] = sw = sw.model_copy(update={"asn": b.intent.asn.core_base + plane - 1})
            b.cores[(plane, group, idx)] = sw


def _port(b: _Build, sw: Switch, index: int, host: bool = False) -> str:
    """The name of port ``index`` of ``sw``: a host-facing port of a leaf whose model breaks cages out for hosts
    (``host_breakout``) is the index-th child port, every other port the index-th at ``port_speed``."""
    breakout = b.intent.switch_models[sw.model].host_breakout if host else None
    key = (sw.role, sw.platform, index, breakout)
    name = b.port_names.get(key)
    if name is None:
        tier = getattr(b.intent.tiers, sw.role)
        naming = tier.port_naming if sw.platform == tier.platform else None
        sku_ports = front_panel_of(sw.hwsku, sw.platform, sw.port_speed, breakout) if naming is None else None
        if sku_ports is not None:
            if index >= len(sku_ports):
                what = f"in breakout {breakout}" if breakout else f"at {sw.port_speed // 1000}G"
                raise TopologyError(f"{sw.name} needs port {index + 1} {what} but hwsku "
                                    f"{sw.hwsku} has {len(sku_ports)} such ports", f"switch_models.{sw.model}.radix")
            name = b.port_names[key] = sku_ports[index].name
        elif breakout is not None:
            raise TopologyError(f"{sw.name}: host_breakout {breakout} needs the SKU's cages (a catalogue hwsku on a "
                                "platform that names SKU ports, no tier port_naming)", f"switch_models.{sw.model}")
        else:
            name = b.port_names[key] = (naming or default_port_naming(sw.platform)).name(index)
    return name


def _cable(b: _Build, tier: LinkTier, a: ResolvedSettings, z: ResolvedSettings) -> int:
    if a.cable_length is not None:
        return a.cable_length
    if z.cable_length is not None:
        return z.cable_length
    lengths = b.intent.cable_lengths
    return {"host-leaf": lengths.host_leaf, "leaf-spine": lengths.leaf_spine,
            "spine-core": lengths.spine_core}[tier]


def _format(template: str, path: str, kind: SafeName, **keys: int) -> str:
    try:
        value = template.format(**keys)
    except (KeyError, IndexError, ValueError) as exc:
        raise TopologyError(f"pattern {template!r} is not valid: {exc!r} (placeholders: {', '.join(sorted(keys))})",
                            path) from None
    if not kind.pattern.fullmatch(value):  # checked at load for the largest values; this is the real name
        raise TopologyError(f"pattern {template!r} gives {value!r}, not a safe {kind.what}", path)
    return value


def _make_hosts(b: _Build) -> dict[str, str]:
    intent, s = b.intent, b.sizing
    node_p = intent.node
    planes = intent.planes
    keys = [(rail, plane) for rail in range(1, node_p.rails + 1) for plane in range(1, planes + 1)]
    subnets = dict(zip(keys, split(intent.addressing.hosts, len(keys), "hosts"), strict=True))
    pools = {k: Pool("hosts", net) for k, net in subnets.items()}
    nic_names: dict[tuple[int, int], tuple[str, str]] = {}  # (rail, plane) -> (netdev, rdma_dev): alike on every host
    node = 0
    for su in range(1, intent.scalable_units.count + 1):
        for k in range(intent.scalable_units.nodes_per_su):
            node += 1
            name = _format(node_p.name, "node.name", HOSTNAME, node=node, su=su)
            if name in b.names:
                raise TopologyError(f"node name pattern gives {name!r} twice or clashes with a switch",
                                    "node.name")
            b.names.add(name)
            chain = override_chain(intent, name, ["host", node_p.platform, f"su{su}"])
            settings = resolve(intent, chain)
            if settings.mtu == intent.mtu.switch and not any(c.mtu for c in chain):
                settings = settings.model_copy(update={"mtu": intent.mtu.host})
            idx, slot = divmod(k, s.nodes_per_leaf)
            nics: list[Nic] = []
            for rail in range(1, node_p.rails + 1):
                for plane in range(1, planes + 1):
                    leaf = b.leaves[(plane, su, rail, idx + 1)]
                    port_no = (rail - 1) * planes + (plane - 1)
                    names = nic_names.get((rail, plane))
                    if names is None:
                        fmt = {"rail": rail, "nic": rail - 1, "plane": plane, "port": port_no}
                        names = nic_names[(rail, plane)] = (_format(node_p.netdev, "node.netdev", NETDEV, **fmt),
                                                            _format(node_p.rdma_dev, "node.rdma_dev", RDMA_DEV, **fmt))
                    block = pools[(rail, plane)].take(2)
                    leaf_port = _port(b, leaf, slot, host=True)
                    nic = Nic(
                        netdev=names[0],
                        rdma_dev=names[1],
                        rail=rail, plane=plane, speed=node_p.nic_speed, leaf=leaf.name, leaf_port=leaf_port,
                        address=f"{ip(block + 1)}/31", gateway=ip(block),
                        rail_subnet=subnets[(rail, plane)], table=100 + port_no,
                    )
                    nics.append(nic)
                    b.links.append(Link(
                        a=Endpoint(name, nic.netdev), b=Endpoint(leaf.name, leaf_port),
                        tier="host-leaf", plane=plane, speed=node_p.nic_speed,
                        cable_length=_cable(b, "host-leaf", settings, leaf.settings),
                        a_ip=nic.address, b_ip=f"{ip(block)}/31",
                    ))
            b.hosts.append(Host(name=name, platform=node_p.platform, model=node_p.model, su=su, node=node,
                                mgmt_ip=ip(b.mgmt.take()), nics=nics, settings=settings))
    return {f"rail{r}/plane{p}": net for (r, p), net in subnets.items()}


def _p2p(b: _Build, lower: Switch, lport: str, upper: Switch, uport: str, tier: LinkTier) -> None:
    block = b.p2p.take(2)
    b.links.append(Link(
        a=Endpoint(lower.name, lport), b=Endpoint(upper.name, uport), tier=tier,
        plane=lower.plane, speed=min(lower.port_speed, upper.port_speed),
        cable_length=_cable(b, tier, lower.settings, upper.settings),
        a_ip=f"{ip(block + 1)}/31", b_ip=f"{ip(block)}/31",
    ))


def _link_fabric(b: _Build) -> None:
    s = b.sizing
    if s.tiers == 1:
        return
    pos_in_pod: Counter[tuple[int, int | None]] = Counter()
    for (plane, _su, _rail, _idx), leaf in b.leaves.items():
        pod = leaf.pod or 1
        pos = pos_in_pod[(plane, pod)]
        pos_in_pod[(plane, pod)] += 1
        for u in range(s.leaf_up):
            spine = b.spines[(plane, pod, u // s.leaf_spine_links + 1)]
            _p2p(b, leaf, _port(b, leaf, s.leaf_down_cages + u), spine,
                 _port(b, spine, pos * s.leaf_spine_links + u % s.leaf_spine_links), "leaf-spine")
    if s.tiers != 3:
        return
    for (plane, pod, idx), spine in b.spines.items():
        for u in range(s.spine_up):
            core = b.cores[(plane, idx, u // s.spine_core_links + 1)]
            _p2p(b, spine, _port(b, spine, s.spine_down + u), core,
                 _port(b, core, (pod - 1) * s.spine_core_links + u % s.spine_core_links), "spine-core")


def _summarize(b: _Build) -> list[TierSummary]:
    used: Counter[str] = Counter()
    down: Counter[str] = Counter()
    up: Counter[str] = Counter()
    down_bw: Counter[str] = Counter()
    up_bw: Counter[str] = Counter()
    role_of = {sw.name: sw.role for sw in b.switches}
    # links counted by (lower role, upper role, speed) in one pass (C-level counting), then summed per role
    kinds = Counter((role_of.get(link.a.device, "host"), role_of[link.b.device], link.speed) for link in b.links)
    for (lower, upper, speed), n in kinds.items():
        used[lower] += n
        used[upper] += n
        up[lower] += n
        up_bw[lower] += n * speed
        down[upper] += n
        down_bw[upper] += n * speed
    out: list[TierSummary] = []
    for role in ("leaf", "spine", "core"):
        members = [sw for sw in b.switches if sw.role == role]
        if not members:
            continue
        radix = members[0].radix
        ratio = round(down_bw[role] / up_bw[role], 2) if up_bw[role] else None
        out.append(TierSummary(role=role, count=len(members), model=members[0].model, radix=radix,
                               ports_used=used[role], ports_free=radix * len(members) - used[role],
                               downlinks=down[role], uplinks=up[role], oversubscription=ratio))
    nics = sum(len(h.nics) for h in b.hosts)
    out.append(TierSummary(role="host", count=len(b.hosts), model=b.intent.node.model, radix=nics,
                           ports_used=nics, ports_free=0, downlinks=0, uplinks=nics, oversubscription=None))
    return out
