"""Load-balancing rules: flow entropy on the leaf uplinks (docs/entropy.md), hashing that can use it, and what
each platform and SKU can render or run (docs/platforms.md, "Load balancing")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from roceops.device.intent import LoadBalancingIntent
from roceops.hardware.catalogue_store import UnknownSwitchProfile, switch_profile
from roceops.lint.model import Hit, LintContext, rule
from roceops.plan.entropy import collision_probability, recommend_qps, worst_leaf
from roceops.plan.switch import plan_load_balancing
from roceops.platforms.base import get_platform
from roceops.platforms.lb_support import LbSupport, no_support
from roceops.topology.fabric import Switch

LB = "load_balancing"


@rule("LB001", "warning", "static ECMP with too few QPs per connection: some leaf uplink likely carries two "
      "connections' worth (balls-into-bins over the entropy scenario)",
      "raise load_balancing.qps_per_connection to the recommended count (roceops plan entropy), or use mode "
      "dynamic/adaptive where the switches support it", needs_fabric=True)
def uplink_collisions(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    lb = ctx.intent.load_balancing
    if lb.mode != "ecmp":
        return  # flowlet/per-packet path selection moves colliding traffic; the static-hash odds do not apply
    qps = lb.qps_per_connection if lb.qp_entropy else 1
    nodes, _leaves, worst = worst_leaf(ctx.fabric, lb.entropy)
    limit = lb.entropy.max_collision_probability
    if worst is None or (p := collision_probability(worst, qps)) <= limit:
        return
    recommended = recommend_qps(worst, lb.entropy)  # only computed when there is something to report
    rec = (f"{recommended} QPs per connection keep it under {limit:g}" if recommended
           else "no QP count up to 128 gets under the limit")
    yield Hit(f"{LB}.qps_per_connection",
              f"{lb.entropy.algorithm} over {nodes} nodes ({lb.entropy.placement}): leaf {worst.leaf} sends "
              f"{worst.connections} connections x {qps} QP(s) over {worst.uplinks} uplinks; P(some uplink carries "
              f">= 2 connections' worth) = {p:.3g} > {limit:g}; {rec}")


@rule("LB002", "warning", "qps_per_connection > 1 but the hash fields see neither the UDP source port nor the "
      "RoCE destination QP, so every QP of a connection takes the same path",
      "add l4_src_port (or roce_dest_qp where the SKU supports it) to load_balancing.hash_fields")
def qps_without_entropy(ctx: LintContext) -> Iterator[Hit]:
    lb = ctx.intent.load_balancing
    if lb.qps_per_connection > 1 and not lb.qp_entropy:
        yield Hit(f"{LB}.hash_fields", f"hash fields {', '.join(lb.fields)} ignore the per-QP UDP source port and "
                                       f"destination QP: the {lb.qps_per_connection} QPs add no entropy")


def _lb_source(ctx: LintContext, sw: Switch, key: str) -> str:
    """Intent path that gave ``sw`` its load-balancing ``key`` (mode, hash_fields or hash_seed)."""
    device = ctx.intent.overrides.devices.get(sw.name)
    if device is not None and device.load_balancing is not None and getattr(device.load_balancing, key) is not None:
        return f"overrides.devices.{sw.name}.{LB}.{key}"
    for group in reversed(sw.groups):
        s = ctx.intent.overrides.groups.get(group)
        if s is not None and s.load_balancing is not None and getattr(s.load_balancing, key) is not None:
            return f"overrides.groups.{group}.{LB}.{key}"
    return f"{LB}.hash_seed.{sw.role}" if key == "hash_seed" else f"{LB}.{key}"


def _support(platform: str) -> LbSupport:
    room = get_platform(platform)
    support = room.lb_support
    return support if isinstance(support, LbSupport) else no_support(room.title)


def _unrenderable(platform: str, lb: LoadBalancingIntent) -> list[tuple[str, str]]:
    """(key, what) for each setting ``platform`` cannot render."""
    support = _support(platform)
    out: list[tuple[str, str]] = []
    if lb.mode not in support.modes:
        out.append(("mode", f"mode {lb.mode}"))
    if lb.hash_fields is not None and not set(lb.hash_fields) <= support.hash_fields:
        missing = [f for f in lb.hash_fields if f not in support.hash_fields]
        out.append(("hash_fields", f"hash fields {', '.join(missing)}"))
    if lb.hash_seed is not None and not support.hash_seed:
        out.append(("hash_seed", f"hash seed {lb.hash_seed}"))
    return out


@rule("LB003", "error", "a load-balancing mode, hash field or seed the switch's platform cannot render",
      "leave it unset (null) for that platform, or set it only for the groups that can render it "
      "(overrides.groups.<platform>.load_balancing)", needs_fabric=True)
def platform_cannot_render(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    found: dict[tuple[str, str, str], list[str]] = {}  # (path, platform, what) -> switches
    for sw in ctx.fabric.switches:
        for key, what in _unrenderable(sw.platform, plan_load_balancing(ctx.intent, sw)):
            found.setdefault((_lb_source(ctx, sw, key), sw.platform, what), []).append(sw.name)
    for (path, platform, what), names in found.items():
        yield Hit(path, f"{what} cannot be rendered on {_switches(names)} ({platform}): "
                        f"{_support(platform).why_not}")


def _needed_features(lb: LoadBalancingIntent) -> list[tuple[str, str, str]]:
    """(intent key, what, hardware feature flag) for each setting that needs an ASIC capability."""
    out = []
    if lb.mode == "adaptive":
        out.append(("mode", "mode adaptive", "adaptive_routing"))
    if lb.mode == "dynamic":
        out.append(("mode", "mode dynamic", "dynamic_load_balancing"))
    if lb.hash_fields is not None and "roce_dest_qp" in lb.hash_fields:
        out.append(("hash_fields", "hashing on roce_dest_qp", "udf_hash"))
    if lb.hash_seed is not None:
        out.append(("hash_seed", f"hash seed {lb.hash_seed}", "hash_seed"))
    return out


def _hardware_gaps(ctx: LintContext, sw: Switch) -> Iterator[tuple[str, str, str]]:
    """(key, what, why) for each setting ``sw`` renders but whose hardware feature its profile does not confirm;
    settings its platform cannot render at all are LB003's."""
    lb = plan_load_balancing(ctx.intent, sw)
    unrenderable = {key for key, _ in _unrenderable(sw.platform, lb)}
    hwsku = ctx.intent.switch_models[sw.model].hwsku
    for key, what, flag in _needed_features(lb):
        if key in unrenderable:
            continue
        if hwsku is None:
            yield key, what, f"switch model '{sw.model}' names no hardware profile (hwsku), so {flag} is unconfirmed"
            continue
        try:
            features = switch_profile(hwsku).features
        except UnknownSwitchProfile:
            continue  # HW001 reports the unknown hwsku
        if not getattr(features, flag):
            yield key, what, f"{hwsku} has no {flag} ({features.source_of(flag)})"


@rule("LB004", "error", "a load-balancing mode, destination-QP hash or seed the switch's hardware profile does not "
      "confirm (features adaptive_routing, dynamic_load_balancing, udf_hash, hash_seed)",
      "use a switch model whose hwsku has the feature (`roceops hardware show NAME`), or leave the setting unset",
      needs_fabric=True)
def hardware_cannot_do(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    found: dict[tuple[str, str, str], list[str]] = {}  # (path, what, why) -> switches
    for sw in ctx.fabric.switches:
        for key, what, why in _hardware_gaps(ctx, sw):
            found.setdefault((_lb_source(ctx, sw, key), what, why), []).append(sw.name)
    for (path, what, why), names in found.items():
        yield Hit(path, f"{what} on {_switches(names)}: {why}")


def _switches(names: list[str]) -> str:
    """The first switch of a finding and how many more share it: ``leaf-1 and 3 more``."""
    return names[0] + (f" and {len(names) - 1} more" if len(names) > 1 else "")


def _fabric_speeds(ctx: LintContext, sw: Switch) -> list[int]:
    """The speeds (Mb/s) of ``sw``'s fabric ports: the switch ends of its leaf-spine and spine-core links, the
    ports of its ECMP routes (host ports are not)."""
    assert ctx.fabric is not None
    return sorted({link.speed for link in ctx.fabric.links_of(sw.name) if link.tier != "host-leaf"})


def _gbps(speeds: Iterable[int]) -> str:
    return "/".join(f"{s // 1000}G" for s in sorted(speeds))


@rule("LB005", "error", "adaptive routing on a switch with fabric ports at a speed its platform does not run "
      "adaptive routing at (its Platform.lb_support.adaptive_speeds; Spectrum-4: 200G and 400G, not 800G)",
      "run the fabric links at a supported speed (break 800G cages out 2x400G), or keep mode ecmp for those "
      "switches (overrides.groups.<group>.load_balancing.mode)", needs_fabric=True)
def adaptive_routing_speed(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    found: dict[tuple[str, str, str], list[str]] = {}  # (path, platform, bad speeds) -> switches
    for sw in ctx.fabric.switches:
        support = _support(sw.platform)
        lb = plan_load_balancing(ctx.intent, sw)
        if lb.mode != "adaptive" or not support.adaptive_speeds or "adaptive" not in support.modes:
            continue  # not adaptive, no known limit, or LB003 already refuses the mode
        off = [s for s in _fabric_speeds(ctx, sw) if s not in support.adaptive_speeds]
        if off:
            found.setdefault((_lb_source(ctx, sw, "mode"), sw.platform, _gbps(off)), []).append(sw.name)
    for (path, platform, bad), names in found.items():
        support = _support(platform)
        yield Hit(path, f"mode adaptive on {_switches(names)} ({platform}): fabric ports at {bad}, but adaptive "
                        f"routing runs at {_gbps(support.adaptive_speeds)} only ({support.adaptive_speeds_source})")


@rule("LB006", "warning", "a hash seed on a platform where applying it disrupts the switch (its "
      "Platform.lb_support.seed_disruption: a forwarding-daemon restart that resets every port)",
      "deploy a new or changed seed in a maintenance window, a few switches at a time (deploy --batch); the deploy "
      "summary counts restarts_switchd for a change that applies one", needs_fabric=True)
def disruptive_seed(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    found: dict[tuple[str, str], list[str]] = {}  # (path, platform) -> switches
    for sw in ctx.fabric.switches:
        support = _support(sw.platform)
        lb = plan_load_balancing(ctx.intent, sw)
        if lb.hash_seed is not None and support.hash_seed and support.seed_disruption:
            found.setdefault((_lb_source(ctx, sw, "hash_seed"), sw.platform), []).append(sw.name)
    for (path, platform), names in found.items():
        yield Hit(path, f"hash seed on {_switches(names)} ({platform}): {_support(platform).seed_disruption}; "
                        f"a deploy that sets or changes it takes those switches' links down")
