"""Topology rules: expansion errors, radix, oversubscription, speeds, spines, rails (domain §1.4, §1.8, §9.1-9.2)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator

from roceops.hardware.nics import PROFILES as NIC_PROFILES
from roceops.lint.common import gbps, some
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.types import breakout_parts
from roceops.topology.addressing import PoolExhausted
from roceops.topology.fabric import Fabric, Switch
from roceops.topology.sizing import TopologyError

# --- expansion -----------------------------------------------------------------------------------------------------


@rule("TOPO000", "error", "expansion failed with an unexpected error (a bug, or an input no rule covers yet)",
      "report it with the fabric file; meanwhile check name patterns and overrides")
def expansion_crashed(ctx: LintContext) -> Iterator[Hit]:
    err = ctx.expansion_error
    if err is not None and not isinstance(err, TopologyError | PoolExhausted) and not any(name_patterns(ctx)):
        yield Hit("", f"expansion failed: {type(err).__name__}: {err}")


@rule("TOPO001", "error", "the intent cannot be built as a Clos fabric (expansion TopologyError)",
      "follow the message: change the switch models, counts or tiers it names")
def topology_error(ctx: LintContext) -> Iterator[Hit]:
    if isinstance(ctx.expansion_error, TopologyError):
        yield Hit(ctx.expansion_error.path, str(ctx.expansion_error))


# --- radix, bandwidth, speed ---------------------------------------------------------------------------------------


@rule("TOPO002", "error", "a switch uses more ports than its radix (or one port twice)",
      "use a larger switch model, fewer nodes per leaf, or more switches", needs_fabric=True)
def radix(ctx: LintContext) -> Iterator[Hit]:
    fabric = _fabric(ctx)
    over: dict[str, list[str]] = defaultdict(list)
    for sw in fabric.switches:
        links = fabric.links_of(sw.name)
        ports = {link.a.port if link.a.device == sw.name else link.b.port for link in links}
        if len(ports) > sw.radix or len(ports) != len(links):
            over[sw.model].append(f"{sw.name} ({len(links)} links on {len(ports)} ports)")
    for model, names in over.items():
        yield Hit(f"switch_models.{model}.radix", f"radix {ctx.intent.switch_models[model].radix} exceeded on "
                                                  f"{some(names)}")


@rule("TOPO003", "error", "a leaf (or 3-tier spine) carries more down than up bandwidth than its declared "
                          "oversubscription", "add spines/uplinks, use faster uplinks, or declare the ratio",
      needs_fabric=True)
def oversubscription(ctx: LintContext) -> Iterator[Hit]:
    fabric = _fabric(ctx)
    if fabric.tiers == 1:
        return
    down: dict[str, int] = defaultdict(int)
    up: dict[str, int] = defaultdict(int)
    for link in fabric.links:
        up[link.a.device] += link.speed
        down[link.b.device] += link.speed
    roles = ("leaf", "spine") if fabric.tiers == 3 else ("leaf",)
    for role in roles:
        declared = getattr(ctx.intent.tiers, role).oversubscription
        bad = [(down[sw.name] / up[sw.name] if up[sw.name] else math.inf, sw)
               for sw in fabric.switches if sw.role == role and down[sw.name] > declared * up[sw.name] * (1 + 1e-9)]
        if bad:
            ratio, worst = max(bad, key=lambda x: x[0])
            yield Hit(f"tiers.{role}.oversubscription",
                      f"{len(bad)} {role}(s) e.g. {worst.name} take {gbps(down[worst.name])} down but have "
                      f"{gbps(up[worst.name])} up ({ratio:.2f}:1), above the declared {declared:g}:1")


@rule("TOPO004", "error", "leaf host-port speed (port_speed, or the host_breakout's port speed) differs from the "
                          "NIC speed", "use a leaf model whose host ports run at node.nic_speed (port_speed, or "
                                       "host_breakout: 2x400G on an 800G SKU)")
def leaf_speed(ctx: LintContext) -> Iterator[Hit]:
    leaf = ctx.intent.switch_models[ctx.intent.tiers.leaf.model]
    nic = ctx.intent.node.nic_speed
    host = breakout_parts(leaf.host_breakout)[1] if leaf.host_breakout else leaf.port_speed
    if host != nic:
        what = f"host_breakout {leaf.host_breakout} ports" if leaf.host_breakout else "ports"
        yield Hit("node.nic_speed", f"NICs run at {gbps(nic)} but leaf model '{ctx.intent.tiers.leaf.model}' {what} "
                                    f"at {gbps(host)}")


@rule("TOPO005", "error", "spines cannot take the leaves of scalable_units.target_count SUs",
      "size tiers.spine.count (or the spine model) for target_count", needs_fabric=True)
def spines_for_target(ctx: LintContext) -> Iterator[Hit]:
    fabric = _fabric(ctx)
    su = ctx.intent.scalable_units
    if fabric.tiers != 2 or su.sized_for == su.count:
        return  # today's port use is TOPO002's
    leaves = [sw for sw in fabric.switches if sw.role == "leaf" and sw.plane == 1]
    spines = [sw for sw in fabric.switches if sw.role == "spine" and sw.plane == 1]
    if not leaves or not spines:
        return
    links_per_spine = sum(1 for link in fabric.links_of(spines[0].name) if link.tier == "leaf-spine")
    per_leaf = links_per_spine / len(leaves)
    needed = math.ceil(len(leaves) * su.sized_for / su.count * per_leaf)
    if needed > spines[0].radix:
        yield Hit("scalable_units.target_count",
                  f"{su.sized_for} SUs need {needed} leaf-facing ports per spine; {spines[0].name} has "
                  f"{spines[0].radix}")


@rule("TOPO006", "warning", "no target_count and the spines have no free port for another SU",
      "set scalable_units.target_count to the size the fabric must grow to (or to count if it will not grow)",
      needs_fabric=True)
def spines_full(ctx: LintContext) -> Iterator[Hit]:
    fabric = _fabric(ctx)
    if ctx.intent.scalable_units.target_count is not None or fabric.tiers != 2:
        return
    spine = next((sw for sw in fabric.switches if sw.role == "spine"), None)
    if spine is not None and len(fabric.links_of(spine.name)) >= spine.radix:
        yield Hit("scalable_units", f"spines are full ({spine.name}: {spine.radix}/{spine.radix} ports): adding an "
                                    "SU means re-cabling every leaf")


@rule("TOPO007", "warning", "rail_only fabric with spine/core settings that are ignored",
      "remove tiers.core and tiers.spine.count for a rail-only fabric (tiers.spine is still required by the schema)")
def rail_only_extras(ctx: LintContext) -> Iterator[Hit]:
    tiers = ctx.intent.tiers
    if not ctx.intent.rail_only:
        return
    if tiers.core is not None:
        yield Hit("tiers.core", "rail_only fabrics have no spine or core tier: tiers.core is ignored")
    if tiers.spine.count is not None or tiers.spine.oversubscription != 1.0:
        yield Hit("tiers.spine", "rail_only fabrics have no spine tier: tiers.spine count/oversubscription are ignored")


@rule("TOPO008", "error", "a NIC lands on a leaf of another rail, plane or SU",
      "an expansion bug: NIC (rail r, plane p) of a node in SU s must reach leaf(s, r, p)", needs_fabric=True)
def rail_alignment(ctx: LintContext) -> Iterator[Hit]:
    fabric = _fabric(ctx)
    wrong: list[str] = []
    for host in fabric.hosts:
        for nic in host.nics:
            leaf = fabric.by_name.get(nic.leaf)
            if not isinstance(leaf, Switch) or (leaf.rail, leaf.plane, leaf.su) != (nic.rail, nic.plane, host.su):
                wrong.append(f"{host.name}:{nic.netdev}->{nic.leaf}")
    if wrong:
        yield Hit("node.rails", f"{len(wrong)} NICs off their rail: {some(wrong)}")


@rule("TOPO009", "error", "a leaf does not reach every spine of its plane/pod (full mesh)",
      "an expansion bug or an uneven spine count: every leaf must reach every spine of its plane/pod",
      needs_fabric=True)
def full_mesh(ctx: LintContext) -> Iterator[Hit]:
    fabric = _fabric(ctx)
    if fabric.tiers == 1:
        return
    spines: dict[tuple[int, int | None], set[str]] = defaultdict(set)
    for sw in fabric.switches:
        if sw.role == "spine":
            spines[(sw.plane, sw.pod)].add(sw.name)
    reach: dict[str, set[str]] = defaultdict(set)
    for link in fabric.links:
        if link.tier == "leaf-spine":
            reach[link.a.device].add(link.b.device)
    bad = [sw.name for sw in fabric.switches
           if sw.role == "leaf" and reach[sw.name] != spines[(sw.plane, sw.pod if fabric.tiers == 3 else None)]]
    if bad:
        yield Hit("tiers.spine", f"{len(bad)} leaves miss spines of their plane/pod: {some(bad)}")


@rule("NAME001", "error", "a netdev or RDMA device pattern gives two NICs of a node the same name",
      "include {port} (or {nic}/{rail} with {plane} on two planes) so every NIC of a node gets its own name")
def name_patterns(ctx: LintContext) -> Iterator[Hit]:
    node, planes = ctx.intent.node, ctx.intent.planes
    yield from _pattern("node.name", node.name, [{"node": 1, "su": 1}], unique=False)
    combos = [{"rail": r, "nic": r - 1, "plane": p, "port": (r - 1) * planes + (p - 1)}
              for r in range(1, node.rails + 1) for p in range(1, planes + 1)]
    yield from _pattern("node.netdev", node.netdev, combos, unique=True)
    yield from _pattern("node.rdma_dev", node.rdma_dev, combos, unique=True)


def _pattern(path: str, pattern: str, samples: list[dict[str, int]], *, unique: bool) -> Iterator[Hit]:
    try:
        names = [pattern.format(**s) for s in samples]
    except (KeyError, IndexError, ValueError) as exc:
        yield Hit(path, f"pattern {pattern!r} cannot be filled: {type(exc).__name__} {exc} "
                        f"(known keys: {', '.join(samples[0])})")
        return
    if unique and len(set(names)) != len(names):
        yield Hit(path, f"pattern {pattern!r} gives two NICs of a node the same name ({some(sorted(names))})")


def _fabric(ctx: LintContext) -> Fabric:
    assert ctx.fabric is not None
    return ctx.fabric


# the catalogue's multi-plane NIC models, for TOPO010's hint
_MULTI_PLANE = ", ".join(f"{m}: up to {p.planes_max}" for m, p in sorted(NIC_PROFILES.items()) if p.planes_max > 1)


@rule("TOPO010", "error", "more planes than the NIC model can serve (planes_max of roceops.hardware.nics)",
      f"use a NIC model whose profile allows that many planes ({_MULTI_PLANE}) or fewer planes")
def planes_within_nic(ctx: LintContext) -> Iterator[Hit]:
    planes, model = ctx.intent.planes, ctx.intent.node.nic_model
    if planes == 1:
        return
    profile = NIC_PROFILES.get(model)
    if profile is None:
        known = ", ".join(f"{m} ({p.planes_max})" for m, p in sorted(NIC_PROFILES.items()))
        yield Hit("planes", f"planes: {planes} needs a NIC profile that allows it; node.nic_model {model!r} has "
                            f"none (known, with planes_max: {known})")
    elif planes > profile.planes_max:
        yield Hit("planes", f"planes: {planes} but {model} serves at most {profile.planes_max} plane(s) "
                            f"({profile.sources['planes_max']})")
