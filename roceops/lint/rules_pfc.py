"""Lossless robustness: PFC watchdog, DCQCN parameters, buffer pools and PFC headroom (domain §3.3, §4)."""

from __future__ import annotations

from collections.abc import Iterator

from roceops import registry
from roceops.hardware.model_profiles import find_model_profile
from roceops.lint.common import dcqcns, gbps, human_bytes, overrides, some, watchdogs
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.qos import PfcWatchdog

EOS_NOTE = "EOS renders the timers in seconds (0.2 = 200 ms) at its own resolution"
LONG_CABLE_M = 300


# --- PFC watchdog --------------------------------------------------------------------------------------------------


def _watchdog_platforms(ctx: LintContext, wd: PfcWatchdog) -> set[str]:
    """Platforms of the switches that run this watchdog policy (all switch platforms if not expanded)."""
    if ctx.fabric is None:
        platforms = {ctx.intent.tiers.leaf.platform, ctx.intent.tiers.spine.platform}
        if ctx.intent.tiers.core is not None:
            platforms.add(ctx.intent.tiers.core.platform)
        overridden = {s.platform for _, s in overrides(ctx.intent) if s.platform}
        return platforms | {p for p in overridden if registry.kind_of(p) == "switch"}
    return {sw.platform for sw in ctx.fabric.switches if sw.settings.pfc_watchdog == wd}


@rule("WD001", "error", "PFC watchdog restore time below detect time",
      f"set restore_ms >= detect_ms (SONiC's own default is restore = 2 x detect); {EOS_NOTE}")
def wd_restore_below_detect(ctx: LintContext) -> Iterator[Hit]:
    for path, wd in watchdogs(ctx.intent):
        if wd.enabled and wd.restore_ms < wd.detect_ms:
            yield Hit(f"{path}.restore_ms", f"restore {wd.restore_ms} ms is below detect {wd.detect_ms} ms: a queue "
                                            "would be restored before a storm could even be detected again")


@rule("WD002", "error", "PFC watchdog poll interval above min(detect, restore)",
      f"set poll_ms <= min(detect_ms, restore_ms), e.g. 100; {EOS_NOTE}")
def wd_poll(ctx: LintContext) -> Iterator[Hit]:
    for path, wd in watchdogs(ctx.intent):
        if wd.enabled and wd.poll_ms > min(wd.detect_ms, wd.restore_ms):
            yield Hit(f"{path}.poll_ms", f"poll {wd.poll_ms} ms is longer than min(detect {wd.detect_ms}, restore "
                                         f"{wd.restore_ms}) ms: switches reject it")


@rule("WD003", "error", "PFC watchdog timers outside the accepted ranges of a platform whose switches use the "
                        "policy (SONiC: detect 100-5000, restore 100-60000, poll 100-1000 ms)",
      f"keep the timers within the platform's ranges (SONiC: detect 100-5000 ms, restore 100-60000 ms, poll "
      f"100-1000 ms); {EOS_NOTE}")
def wd_platform_ranges(ctx: LintContext) -> Iterator[Hit]:
    for path, wd in watchdogs(ctx.intent):
        if not wd.enabled:
            continue
        for name in sorted(_watchdog_platforms(ctx, wd)):
            platform = registry.get(name)
            for field, (lo, hi) in platform.pfcwd_ranges_ms.items():
                value = getattr(wd, field)
                if not lo <= value <= hi:
                    yield Hit(f"{path}.{field}", f"{field} {value} is outside {platform.title}'s accepted "
                                                 f"{lo}..{hi} ms")


@rule("WD004", "warning", "PFC watchdog disabled while lossless classes exist",
      "enable the watchdog (a storming NIC otherwise freezes its upstream)")
def wd_disabled(ctx: LintContext) -> Iterator[Hit]:
    if not ctx.intent.qos.lossless_classes:
        return
    for path, wd in watchdogs(ctx.intent):
        if not wd.enabled:
            yield Hit(f"{path}.enabled", "PFC watchdog is off on lossless queues: a PFC storm or deadlock would "
                                         "not be broken")


# --- DCQCN ---------------------------------------------------------------------------------------------------------


@rule("DCQ001", "error", "DCQCN rpg_min_rate above rpg_max_rate (when rpg_max_rate > 0)",
      "set rp.rpg_min_rate <= rp.rpg_max_rate, or rpg_max_rate: 0 for line rate")
def dcqcn_min_max(ctx: LintContext) -> Iterator[Hit]:
    for path, d in dcqcns(ctx.intent):
        if d.rp.rpg_max_rate > 0 and d.rp.rpg_min_rate > d.rp.rpg_max_rate:
            yield Hit(f"{path}.rp.rpg_min_rate", f"rpg_min_rate {d.rp.rpg_min_rate} Mb/s is above rpg_max_rate "
                                                 f"{d.rp.rpg_max_rate} Mb/s")


@rule("DCQ002", "error", "a DCQCN rate (Mb/s) above the NIC line rate",
      "rates are in Mb/s: keep them <= node.nic_speed")
def dcqcn_line_rate(ctx: LintContext) -> Iterator[Hit]:
    line = ctx.intent.node.nic_speed
    for path, d in dcqcns(ctx.intent):
        for field in ("rpg_min_rate", "rpg_max_rate", "rate_to_set_on_first_cnp", "rpg_ai_rate", "rpg_hai_rate"):
            value = getattr(d.rp, field)
            if value > line:
                yield Hit(f"{path}.rp.{field}", f"{field} {value} Mb/s is above the {gbps(line)} NIC line rate")


@rule("DCQ003", "warning", "DCQCN additive-increase step above the hyper-increase step",
      "keep rp.rpg_ai_rate <= rp.rpg_hai_rate (defaults 5 / 50 Mb/s)")
def dcqcn_ai_hai(ctx: LintContext) -> Iterator[Hit]:
    for path, d in dcqcns(ctx.intent):
        if d.rp.rpg_ai_rate > d.rp.rpg_hai_rate:
            yield Hit(f"{path}.rp.rpg_ai_rate", f"additive step {d.rp.rpg_ai_rate} Mb/s is larger than the hyper "
                                                f"step {d.rp.rpg_hai_rate} Mb/s: recovery slows down as it goes on")


@rule("DCQ004", "warning", "DCQCN disabled (PFC-only design)",
      "intended for Meta-style PFC-only fabrics: keep the PFC watchdog enabled and watch pause counters")
def dcqcn_disabled(ctx: LintContext) -> Iterator[Hit]:
    for path, d in dcqcns(ctx.intent):
        if not d.enabled:
            yield Hit(f"{path}.enabled", "DCQCN is off: congestion is handled by PFC alone")


@rule("DCQ005", "error", "DCQCN disabled somewhere while the PFC watchdog is disabled (PFC-only needs the watchdog)",
      "enable the PFC watchdog, or enable DCQCN")
def pfc_only_without_watchdog(ctx: LintContext) -> Iterator[Hit]:
    if not ctx.intent.qos.lossless_classes or all(d.enabled for _, d in dcqcns(ctx.intent)):
        return
    for path, wd in watchdogs(ctx.intent):
        if not wd.enabled:
            yield Hit(f"{path}.enabled", "DCQCN is disabled, so PFC is the only congestion control, and the watchdog "
                                         "that breaks PFC storms is disabled too")


# --- buffers and headroom ------------------------------------------------------------------------------------------


@rule("BUF001", "error", "a buffer pool is larger than a switch model's buffer",
      "size qos.buffers pools within switch_models.<model>.buffer_bytes")
def pool_in_buffer(ctx: LintContext) -> Iterator[Hit]:
    b = ctx.intent.qos.buffers
    for field in ("ingress_lossless_pool_bytes", "egress_lossless_pool_bytes", "egress_lossy_pool_bytes"):
        size = getattr(b, field)
        for tier, (name, model) in ctx.tier_models.items():
            if model.hwsku is not None and find_model_profile(model.hwsku) is None:
                continue  # a SKU's switches use the SKU's own pools (buffers_defaults_<topo>.j2), not these
            if size > model.buffer_bytes:
                yield Hit(f"qos.buffers.{field}", f"{human_bytes(size)} is more than the "
                                                  f"{human_bytes(model.buffer_bytes)} buffer of {tier} model '{name}'")
                break


@rule("HDRM001", "error", "per-switch sum of lossless PG headroom (from plan) exceeds the ingress lossless pool "
                          "or the switch buffer",
      "shorten cables, enable qos.buffers.shared_headroom, or enlarge ingress_lossless_pool_bytes", needs_fabric=True)
def headroom_fits(ctx: LintContext) -> Iterator[Hit]:
    for group in ctx.switch_groups:
        rep = group[0]
        plan = ctx.switch_plan(rep.name)
        total = sum(h.size for port in plan.ports.values() for h in port.headroom.values())
        buffer = ctx.intent.switch_models[rep.model].buffer_bytes
        # the pool the plan gives the switch: the SKU's own when its model names one, else qos.buffers'
        planned = next((p.size for p in plan.qos.pools if p.name == "ingress_lossless_pool"), None)
        pool, pool_name = ((planned, f"the {rep.hwsku} ingress_lossless_pool") if rep.hwsku and planned
                           else (ctx.intent.qos.buffers.ingress_lossless_pool_bytes,
                                 "qos.buffers.ingress_lossless_pool_bytes"))
        limit, what = min((pool, pool_name), (buffer, f"the {rep.model} buffer"))
        if total > limit:
            pgs = sum(len(port.headroom) for port in plan.ports.values())
            names = [sw.name for sw in group]
            sku_hint = ("shorten cables or enable qos.buffers.shared_headroom: the pool is fixed by the SKU's "
                        "buffers_defaults template" if rep.hwsku and planned and what == pool_name else None)
            yield Hit("qos.buffers.ingress_lossless_pool_bytes",
                      f"{some(names)} need {human_bytes(total)} of lossless headroom ({pgs} port PGs), more than "
                      f"{what} ({human_bytes(limit)})", sku_hint)


@rule("HDRM002", "warning", "a cable longer than 300 m (headroom grows with cable length)",
      "check the length; long links (inter-hall) explode PFC headroom: keep them off lossless paths or budget buffer")
def long_cables(ctx: LintContext) -> Iterator[Hit]:
    lengths = ctx.intent.cable_lengths
    sources = [(f"cable_lengths.{f}", getattr(lengths, f)) for f in ("host_leaf", "leaf_spine", "spine_core")]
    sources += [(f"{path}.cable_length", s.cable_length) for path, s in overrides(ctx.intent) if s.cable_length]
    for path, metres in sources:
        if metres > LONG_CABLE_M:
            yield Hit(path, f"{metres} m cable: long link explodes headroom (the in-flight bytes grow with length)")
