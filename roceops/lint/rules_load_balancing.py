"""Load-balancing rules: flow entropy on the leaf uplinks (docs/entropy.md) and hashing that can use it."""

from __future__ import annotations

from collections.abc import Iterator

from roceops.lint.model import Hit, LintContext, rule
from roceops.plan.entropy import plan_entropy

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
    result = plan_entropy(ctx.fabric, qps=qps)
    row, worst = result.fabric_row, result.worst
    limit = lb.entropy.max_collision_probability
    if row is None or worst is None or row.p_collision <= limit:
        return
    rec = (f"{result.recommended_qps} QPs per connection keep it under {limit:g}" if result.recommended_qps
           else "no QP count up to 128 gets under the limit")
    yield Hit(f"{LB}.qps_per_connection",
              f"{lb.entropy.algorithm} over {result.nodes} nodes ({lb.entropy.placement}): leaf {worst.leaf} sends "
              f"{worst.connections} connections x {qps} QP(s) over {worst.uplinks} uplinks; P(some uplink carries "
              f">= 2 connections' worth) = {row.p_collision:.3g} > {limit:g}; {rec}")


@rule("LB002", "warning", "qps_per_connection > 1 but the hash fields see neither the UDP source port nor the "
      "RoCE destination QP, so every QP of a connection takes the same path",
      "add l4_src_port (or roce_dest_qp where the SKU supports it) to load_balancing.hash_fields")
def qps_without_entropy(ctx: LintContext) -> Iterator[Hit]:
    lb = ctx.intent.load_balancing
    if lb.qps_per_connection > 1 and not lb.qp_entropy:
        yield Hit(f"{LB}.hash_fields", f"hash fields {', '.join(lb.fields)} ignore the per-QP UDP source port and "
                                       f"destination QP: the {lb.qps_per_connection} QPs add no entropy")
