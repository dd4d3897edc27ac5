"""Addressing and ASN rules: pools large enough and disjoint, RFC 7938 ASN plan (domain §8)."""

from __future__ import annotations

import ipaddress
import math
from collections import defaultdict
from collections.abc import Iterator

from roceops.lint.common import some
from roceops.lint.model import Hit, LintContext, rule
from roceops.topology.addressing import PoolExhausted
from roceops.topology.fabric import Fabric, Switch
from roceops.topology.sizing import TopologyError, size_fabric

POOLS = ("loopbacks", "p2p", "hosts", "management")
PRIVATE_ASNS = ((64_512, 65_534), (4_200_000_000, 4_294_967_294))  # RFC 6996
MAX_ASN = 4_294_967_294


@rule("ADDR001", "error", "an address pool is too small for the fabric (expansion PoolExhausted)",
      "use a shorter prefix (bigger pool) for the pool named in the path")
def pool_exhausted(ctx: LintContext) -> Iterator[Hit]:
    if isinstance(ctx.expansion_error, PoolExhausted):
        yield Hit(ctx.expansion_error.path, str(ctx.expansion_error))


@rule("ADDR002", "error", "two address pools overlap (loopbacks, p2p, hosts, management)",
      "give every pool its own, disjoint prefix")
def pools_overlap(ctx: LintContext) -> Iterator[Hit]:
    a = ctx.intent.addressing
    nets = [(name, ipaddress.IPv4Network(getattr(a, name))) for name in POOLS]
    for i, (name, net) in enumerate(nets):
        for other, other_net in nets[:i]:
            if net.overlaps(other_net):
                yield Hit(f"addressing.{name}", f"{name} {net} overlaps {other} {other_net}")


def _owner(sw: Switch) -> tuple[object, ...]:
    """Who may hold an ASN: each leaf alone, each spine group (plane, pod), each plane's core tier."""
    if sw.role == "leaf":
        return ("leaf", sw.name)
    if sw.role == "spine":
        return ("spine", sw.plane, sw.pod)
    return ("core", sw.plane)


def _collisions(fabric: Fabric) -> dict[int, set[tuple[object, ...]]]:
    owners: dict[int, set[tuple[object, ...]]] = defaultdict(set)
    for sw in fabric.switches:
        owners[sw.asn].add(_owner(sw))
    return {asn: o for asn, o in owners.items() if len(o) > 1}


@rule("ASN001", "error", "two leaves, or a leaf and a spine/core group, share an ASN",
      "move asn.leaf_base / spine_base / core_base apart so the ranges do not meet", needs_fabric=True)
def asn_unique(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    clashes = _collisions(ctx.fabric)
    if clashes:
        roles = {str(o[0]) for owners in clashes.values() for o in owners}
        path = "asn.leaf_base" if "leaf" in roles else f"asn.{sorted(roles)[0]}_base"
        shown = [f"{asn} ({', '.join(sorted(str(o[1]) if o[0] == 'leaf' else str(o[0]) for o in owners))})"
                 for asn, owners in sorted(clashes.items())]
        yield Hit(path, f"{len(clashes)} ASN(s) used by more than one leaf or group: {some(shown)}")


@rule("ASN002", "error", "spines of one group (plane, pod) do not share one ASN",
      "an expansion bug: RFC 7938 gives every spine of a group the same ASN", needs_fabric=True)
def spine_group_asn(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    groups: dict[tuple[int, int | None], set[int]] = defaultdict(set)
    for sw in ctx.fabric.switches:
        if sw.role == "spine":
            groups[(sw.plane, sw.pod)].add(sw.asn)
    for (plane, pod), asns in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        if len(asns) > 1:
            where = f"plane {plane}" + (f" pod {pod}" if pod else "")
            yield Hit("asn.spine_base", f"spines of {where} use {len(asns)} ASNs: {some(sorted(map(str, asns)))}")


def _target_ranges(ctx: LintContext) -> dict[str, tuple[int, int]]:
    """ASN range (first, last) per role once the fabric has grown to target_count SUs."""
    intent = ctx.intent
    s = size_fabric(intent)
    su = intent.scalable_units
    planes = intent.planes
    out = {"leaf": (intent.asn.leaf_base, intent.asn.leaf_base + s.leaves_per_su * su.sized_for * planes - 1)}
    if s.tiers >= 2:
        pods = math.ceil(su.sized_for / s.sus_per_pod) if s.tiers == 3 else 1
        out["spine"] = (intent.asn.spine_base, intent.asn.spine_base + planes * pods - 1)
    if s.tiers == 3:
        out["core"] = (intent.asn.core_base, intent.asn.core_base + planes - 1)
    return out


@rule("ASN003", "error", "ASN ranges collide (or pass 4294967294) once the fabric grows to target_count",
      "space asn.leaf_base / spine_base / core_base by more than the device counts at target size",
      needs_fabric=True)
def asn_ranges(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    if _collisions(ctx.fabric):
        return  # ASN001 already reports today's clashes
    try:
        ranges = _target_ranges(ctx)
    except TopologyError:
        return  # cannot be sized for target_count: TOPO001/TOPO005 say so

    size = ctx.intent.scalable_units.sized_for
    items = list(ranges.items())
    for i, (role, (lo, hi)) in enumerate(items):
        if hi > MAX_ASN:
            yield Hit(f"asn.{role}_base", f"{role} ASNs reach {hi} at {size} SUs, past the largest ASN {MAX_ASN}")
        for other, (olo, ohi) in items[:i]:
            if lo <= ohi and olo <= hi:
                yield Hit(f"asn.{role}_base", f"at {size} SUs {role} ASNs {_span(lo, hi)} overlap {other} ASNs "
                                              f"{_span(olo, ohi)}")


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


@rule("ASN004", "warning", "ASNs outside the private ranges 64512-65534 / 4200000000-4294967294",
      "use private ASNs (RFC 6996) for a backend fabric", needs_fabric=True)
def asn_private(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    by_role: dict[str, list[int]] = defaultdict(list)
    for sw in ctx.fabric.switches:
        by_role[sw.role].append(sw.asn)
    for role, asns in by_role.items():
        public = sorted({a for a in asns if not any(lo <= a <= hi for lo, hi in PRIVATE_ASNS)})
        if public:
            shown = some([str(a) for a in public])
            yield Hit(f"asn.{role}_base", f"{len(public)} {role} ASN(s) are not private: {shown}")
