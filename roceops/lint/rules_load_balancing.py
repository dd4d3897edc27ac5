"""Load-balancing rules: flow entropy on the leaf uplinks (docs/entropy.md) and hashing that can use it."""

from __future__ import annotations

from collections.abc import Iterator

from roceops.lint.model import Hit, LintContext, rule
from roceops.plan.entropy import collision_probability, recommend_qps, worst_leaf
from roceops.plan.model import LoadBalancingIntent
from roceops.plan.switch import plan_load_balancing
from roceops.platforms.lb_support import LB_SUPPORT
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


def _unrenderable(platform: str, lb: LoadBalancingIntent) -> list[tuple[str, str]]:
    """(key, what) for each setting ``platform`` cannot render."""
    support = LB_SUPPORT[platform]
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
        others = f" and {len(names) - 1} more" if len(names) > 1 else ""
        yield Hit(path, f"{what} cannot be rendered on {names[0]}{others} ({platform}): "
                        f"{LB_SUPPORT[platform].why_not}")
