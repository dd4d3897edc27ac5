"""Speed-aware congestion rules (docs/congestion.md): DCQCN at >= 400G, ECN against the BDP floor, the
headroom-reduced buffer share and the switch buffer."""

from __future__ import annotations

from collections.abc import Iterator

from roceops.lint.common import dcqcns, ecn_policies, human_bytes
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.types import Threshold
from roceops.plan.speed_profiles import GENERIC_NP, GENERIC_RP, ecn_floor_bytes, speed_profile

FAST_NIC = 400_000  # Mb/s: Meta saw default DCQCN settings hurt from this generation on (domain section 2.3)


def _at(threshold: Threshold, size: int) -> str:
    return f"{threshold} ({human_bytes(size)})" if threshold.unit in ("us", "ms") else str(threshold)


@rule(
    "DCQ006",
    "warning",
    "a >= 400G fabric keeps generic vendor DCQCN defaults (pinned explicitly, or no published tuning at its speed)",
    "drop the pinned value so the speed profile applies, or set a value from the published tuned range",
)
def generic_dcqcn_at_speed(ctx: LintContext) -> Iterator[Hit]:
    speed, model = ctx.intent.node.nic_speed, ctx.intent.node.nic_model
    if speed < FAST_NIC:
        return
    profile = speed_profile(speed)
    for path, policy in dcqcns(ctx.intent):
        if not policy.enabled:
            continue
        if profile.source is None:
            yield Hit(
                path,
                f"no published DCQCN tuning for {speed // 1000}G NICs: the generic {model} defaults "
                "apply, and at 400G those hurt (Meta); tune and pin values measured on this fabric",
            )
            continue
        for part, generic, ranges, values in (
            ("rp", GENERIC_RP, profile.rp_ranges, policy.rp),
            ("np", GENERIC_NP, profile.np_ranges, policy.np),
        ):
            for name in sorted(values.model_fields_set & set(ranges)):
                value, r = getattr(values, name), ranges[name]
                if value == generic[name] and not r.low <= value <= r.high:
                    yield Hit(
                        f"{path}.{part}.{name}",
                        f"{name} = {value} pins the generic {model} default at "
                        f"{speed // 1000}G; published tuning: {r.low}-{r.high} "
                        f"(the profile sets {r.nearest(value)})",
                    )


@rule(
    "ECN007",
    "warning",
    "ECN min below the BDP-derived floor (port speed x qos.base_rtt_us / 8 / 7, DCTCP's "
    "marking bound): marks start before one flow fills the link",
    "raise ecn.min to at least the floor, or lower qos.base_rtt_us if the fabric's RTT is shorter",
)
def ecn_min_floor(ctx: LintContext) -> Iterator[Hit]:
    rtt = ctx.intent.qos.base_rtt_us
    for path, _name, ecn in ecn_policies(ctx.intent):
        for speed in sorted(ctx.port_speeds, reverse=True):
            floor, low = ecn_floor_bytes(speed, rtt), ecn.min.to_bytes(speed)
            if low < floor:
                yield Hit(
                    f"{path}.min",
                    f"min {_at(ecn.min, low)} is below the {speed // 1000}G floor "
                    f"{human_bytes(floor)} ({speed // 1000}G x {rtt:g} us / 8 / 7)",
                )
                break


@rule(
    "ECN008",
    "warning",
    "ECN max above a port's share of the switch buffer once lossless headroom is reserved "
    "((buffer_bytes - headroom of every lossless PG) / radix)",
    "lower ecn.max, or shorten cables / use shared headroom to reserve less",
    needs_fabric=True,
)
def ecn_max_after_headroom(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    reported: set[str] = set()
    for group in ctx.switch_groups:
        sw = group[0]
        model = ctx.intent.switch_models[sw.model]
        headroom = sum(h.size for p in ctx.switch_plan(sw.name).ports.values() for h in p.headroom.values())
        share = max(0, model.buffer_bytes - headroom) // model.radix
        fair = model.buffer_bytes // model.radix
        for path, _name, ecn in ecn_policies(ctx.intent):
            high = ecn.max.to_bytes(sw.port_speed)
            if share < high <= fair and path not in reported:  # above the plain fair share is ECN003
                reported.add(path)
                yield Hit(
                    f"{path}.max",
                    f"max {_at(ecn.max, high)} is above {sw.name}'s per-port share after "
                    f"{human_bytes(headroom)} of lossless headroom: ({human_bytes(model.buffer_bytes)}"
                    f" - headroom) / {model.radix} = {human_bytes(share)}",
                )


@rule(
    "ECN009",
    "error",
    "an ECN threshold in us/ms converts to more bytes than the switch's whole buffer at a port speed",
    "lower the time threshold: at this speed it can never be reached",
)
def ecn_time_beyond_buffer(ctx: LintContext) -> Iterator[Hit]:
    for path, _name, ecn in ecn_policies(ctx.intent):
        for key, threshold in (("min", ecn.min), ("max", ecn.max)):
            if threshold.unit not in ("us", "ms"):
                continue
            for tier, (model_name, model) in ctx.tier_models.items():
                size = threshold.to_bytes(model.port_speed)
                if size > model.buffer_bytes:
                    yield Hit(
                        f"{path}.{key}",
                        f"{key} {_at(threshold, size)} at {model.port_speed // 1000}G exceeds "
                        f"the whole buffer of {tier} model '{model_name}' "
                        f"({human_bytes(model.buffer_bytes)})",
                    )
                    break


@rule(
    "ECN010",
    "warning",
    "an ECN threshold in us/ms on a switch whose ports run at several speeds: its one WRED profile per queue "
    "converts the time at the model's port speed, so the slower ports mark at a longer queueing delay",
    "write the class's thresholds in bytes, or keep one port speed per switch",
    needs_fabric=True,
)
def ecn_time_mixed_speeds(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    timed = [(f"{path}.{key}", threshold) for path, _name, ecn in ecn_policies(ctx.intent)
             for key, threshold in (("min", ecn.min), ("max", ecn.max)) if threshold.unit in ("us", "ms")]
    if not timed:
        return
    for group in ctx.switch_groups:
        sw = group[0]
        speeds = sorted({link.speed for link in ctx.fabric.links_of(sw.name)})
        if len(speeds) < 2:
            continue
        slow = speeds[0]
        for path, threshold in timed:
            size = threshold.to_bytes(sw.port_speed)
            delay_us = size * 8 / slow  # bytes at Mb/s -> us
            yield Hit(path, f"{threshold} is converted at {sw.name}'s {sw.port_speed // 1000}G "
                            f"({human_bytes(size)}), but its ports run at "
                            f"{', '.join(f'{s // 1000}G' for s in speeds)}: at {slow // 1000}G that is "
                            f"{delay_us:g} us of queue")
        return  # one finding per threshold: the first mixed-speed switch names the problem
