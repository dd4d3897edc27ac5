"""QoS contract rules: traffic classes, CNP and ECN (domain reference §3.4, §5, §9.3-9.4)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from roceops.lint.common import ecn_policies, human_bytes
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.qos import QosPolicy, TrafficClassPolicy
from roceops.model.types import Threshold


def _classes(policy: QosPolicy) -> list[tuple[str, TrafficClassPolicy]]:
    return [(f"qos.traffic_classes[{i}]", tc) for i, tc in enumerate(policy.traffic_classes)]


# --- traffic classes -----------------------------------------------------------------------------------------------


@rule("QOS001", "error", "a lossless class shares its priority with a lossy class (PFC is per priority)",
      "give the lossy class its own priority, or make both classes lossless")
def lossless_priority_shared(ctx: LintContext) -> Iterator[Hit]:
    by_prio: dict[int, list[TrafficClassPolicy]] = defaultdict(list)
    for tc in ctx.intent.qos.traffic_classes:
        by_prio[tc.priority].append(tc)
    for path, tc in _classes(ctx.intent.qos):
        lossy = [o.name for o in by_prio[tc.priority] if not o.lossless]
        if tc.lossless and lossy:
            yield Hit(path, f"lossless class '{tc.name}' needs PFC on priority {tc.priority}, which lossy class(es) "
                            f"{', '.join(repr(n) for n in lossy)} also use: they would be paused instead of dropped")


@rule("QOS002", "error", "a DSCP is listed in two classes", "list every DSCP in exactly one class")
def dscp_in_two_classes(ctx: LintContext) -> Iterator[Hit]:
    owner: dict[int, str] = {}
    for path, tc in _classes(ctx.intent.qos):
        for j, d in enumerate(tc.dscp):
            if d in owner and owner[d] != tc.name:
                yield Hit(f"{path}.dscp[{j}]", f"DSCP {d} is in class '{owner[d]}' and class '{tc.name}'; "
                                               "the last one would silently win")
            owner.setdefault(d, tc.name)


@rule("QOS003", "error", "more than one class has default: true", "keep default: true on one lossy class")
def several_defaults(ctx: LintContext) -> Iterator[Hit]:
    defaults = [(p, tc) for p, tc in _classes(ctx.intent.qos) if tc.default]
    for path, tc in defaults[1:]:
        yield Hit(f"{path}.default", f"class '{tc.name}' is a second default class (first: '{defaults[0][1].name}')")


@rule("QOS004", "warning", "no default class: DSCPs not listed anywhere go to TC0",
      "mark one lossy class (usually priority 0) with default: true")
def no_default_class(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    if policy.default_class is None:
        listed = {d for tc in policy.traffic_classes for d in tc.dscp}
        yield Hit("qos.traffic_classes", f"no class has default: true; the {64 - len(listed)} DSCPs not listed in "
                                         "any class go to TC0 / priority 0")


@rule("QOS005", "error", "unclassified traffic would be lossless (lossless default class, or TC0 lossless "
                         "with no default)", "make the default class lossy; keep lossless for RoCE DSCPs only")
def lossless_catch_all(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    default = policy.default_class
    for path, tc in _classes(policy):
        if tc.lossless and (tc is default or (default is None and tc.tc == 0)):
            why = "is the default class" if tc is default else "uses TC0, where unlisted DSCPs go"
            yield Hit(path, f"lossless class '{tc.name}' {why}: every unclassified packet would be lossless "
                            "and could spread PFC pauses")


@rule("QOS006", "error", "two classes have the same name", "give every class a unique name")
def duplicate_class_names(ctx: LintContext) -> Iterator[Hit]:
    seen: set[str] = set()
    for path, tc in _classes(ctx.intent.qos):
        if tc.name in seen:
            yield Hit(f"{path}.name", f"class name '{tc.name}' is used twice (ECN overrides refer to classes by name)")
        seen.add(tc.name)


@rule("QOS007", "error", "more lossless priorities/PGs than the switch model supports (max_lossless_classes)",
      "reduce the lossless classes, or raise switch_models.<model>.max_lossless_classes if the ASIC allows it")
def too_many_lossless(ctx: LintContext) -> Iterator[Hit]:
    lossless = ctx.intent.qos.lossless_classes
    needed = max(len({c.priority for c in lossless}), len({c.tc for c in lossless}),
                 len({c.queue_id for c in lossless}))
    tiers_of: dict[str, list[str]] = defaultdict(list)
    for tier, (name, _model) in ctx.tier_models.items():
        tiers_of[name].append(tier)
    for name, tiers in tiers_of.items():
        limit = ctx.intent.switch_models[name].max_lossless_classes
        if needed > limit:
            yield Hit("qos.traffic_classes", f"{needed} lossless priorities, but {'/'.join(tiers)} model '{name}' "
                                             f"supports {limit}")


@rule("QOS008", "error", "one traffic class (TC) is mapped to two different queues",
      "classes sharing a traffic_class must share the queue")
def tc_two_queues(ctx: LintContext) -> Iterator[Hit]:
    first: dict[int, TrafficClassPolicy] = {}
    for path, tc in _classes(ctx.intent.qos):
        other = first.setdefault(tc.tc, tc)
        if other.queue_id != tc.queue_id:
            yield Hit(f"{path}.queue", f"TC{tc.tc} goes to queue {other.queue_id} for class '{other.name}' but to "
                                       f"queue {tc.queue_id} for class '{tc.name}'")


@rule("QOS009", "error", "classes sharing a queue disagree on lossless, scheduling or ECN",
      "give each class with different treatment its own traffic_class/queue")
def queue_conflict(ctx: LintContext) -> Iterator[Hit]:
    first: dict[int, TrafficClassPolicy] = {}
    for path, tc in _classes(ctx.intent.qos):
        other = first.setdefault(tc.queue_id, tc)
        diffs = [what for what, a, b in (("lossless", other.lossless, tc.lossless),
                                         ("scheduling", other.scheduling, tc.scheduling),
                                         ("ecn", other.ecn, tc.ecn)) if a != b]
        if diffs:
            yield Hit(path, f"class '{tc.name}' shares queue {tc.queue_id} with class '{other.name}' but differs in "
                            f"{', '.join(diffs)}; one queue has one configuration")


@rule("QOS010", "error", "a lossless priority maps to two queues", "lossless classes on one priority share a queue")
def lossless_priority_two_queues(ctx: LintContext) -> Iterator[Hit]:
    first: dict[int, TrafficClassPolicy] = {}
    for path, tc in _classes(ctx.intent.qos):
        if not tc.lossless:
            continue
        other = first.setdefault(tc.priority, tc)
        if (other.tc, other.queue_id) != (tc.tc, tc.queue_id):
            yield Hit(path, f"PFC priority {tc.priority} maps to TC{other.tc}/queue {other.queue_id} ('{other.name}') "
                            f"and TC{tc.tc}/queue {tc.queue_id} ('{tc.name}')")


# --- CNP -----------------------------------------------------------------------------------------------------------


def _dcqcn_somewhere(ctx: LintContext) -> bool:
    if ctx.intent.qos.dcqcn.enabled:
        return True
    return any(s.dcqcn is not None and s.dcqcn.enabled
               for s in (*ctx.intent.overrides.groups.values(), *ctx.intent.overrides.devices.values()))


def _cnp_class(policy: QosPolicy) -> tuple[str, TrafficClassPolicy] | None:
    return next(((p, tc) for p, tc in _classes(policy) if policy.cnp.dscp in tc.dscp), None)


@rule("CNP001", "error", "the CNP DSCP is not listed in any class",
      "add the CNP DSCP (qos.cnp.dscp) to a strict, lossy class on the CNP priority")
def cnp_unclassified(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    if _dcqcn_somewhere(ctx) and _cnp_class(policy) is None:
        default = policy.default_class
        lands = f"default class '{default.name}'" if default else "TC0"
        yield Hit("qos.cnp.dscp", f"CNPs are sent with DSCP {policy.cnp.dscp}, which no class lists: they land in "
                                  f"{lands} behind the congested traffic they report on")


@rule("CNP002", "error", "the class holding the CNP DSCP is on a different priority than qos.cnp.priority",
      "set qos.cnp.priority to the CNP class's priority (NIC PCP and switch class must agree)")
def cnp_priority_mismatch(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    found = _cnp_class(policy)
    if _dcqcn_somewhere(ctx) and found and found[1].priority != policy.cnp.priority:
        yield Hit("qos.cnp.priority", f"NICs send CNPs on priority {policy.cnp.priority}, but switches put DSCP "
                                      f"{policy.cnp.dscp} in class '{found[1].name}' on priority {found[1].priority}")


@rule("CNP003", "error", "CNPs would be lossless (CNP class lossless, or CNP priority is a PFC priority)",
      "keep CNPs on their own lossy priority (default DSCP 48 -> priority 6)")
def cnp_lossless(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    if not _dcqcn_somewhere(ctx):
        return
    found = _cnp_class(policy)
    pfc = {c.priority for c in policy.lossless_classes}
    if found and found[1].lossless:
        yield Hit(found[0], f"class '{found[1].name}' carries CNPs (DSCP {policy.cnp.dscp}) and is lossless: CNPs "
                            "could be paused by the congestion they signal")
    elif policy.cnp.priority in pfc:
        yield Hit("qos.cnp.priority", f"CNP priority {policy.cnp.priority} has PFC enabled (lossless): CNPs could be "
                                      "paused by the congestion they signal")


@rule("CNP004", "warning", "the CNP class is not strict priority",
      "use scheduling: {mode: strict} for the CNP class (CNPs are tiny and NIC-paced)")
def cnp_not_strict(ctx: LintContext) -> Iterator[Hit]:
    found = _cnp_class(ctx.intent.qos)
    if _dcqcn_somewhere(ctx) and found and found[1].scheduling.mode != "strict":
        yield Hit(f"{found[0]}.scheduling", f"CNP class '{found[1].name}' is {found[1].scheduling.mode}: CNPs wait "
                                            "behind other queues and senders slow down late")


# --- ECN -----------------------------------------------------------------------------------------------------------


def _at(threshold: Threshold, size: int) -> str:
    """'10us (500KB)' for time thresholds, '1500KB' for sizes."""
    return f"{threshold} ({human_bytes(size)})" if threshold.unit in ("us", "ms") else str(threshold)


def _class_by_name(ctx: LintContext) -> dict[str, TrafficClassPolicy]:
    return {tc.name: tc for tc in ctx.intent.qos.traffic_classes}


@rule("ECN001", "error", "ECN min >= max at a port speed (time thresholds converted at that speed)",
      "make ecn.min smaller than ecn.max (e.g. 150KB / 1500KB)")
def ecn_min_below_max(ctx: LintContext) -> Iterator[Hit]:
    for path, _name, ecn in ecn_policies(ctx.intent):
        for speed in ctx.port_speeds:
            lo, hi = ecn.min.to_bytes(speed), ecn.max.to_bytes(speed)
            if lo >= hi:
                yield Hit(path, f"min {_at(ecn.min, lo)} is not below max {_at(ecn.max, hi)} at {speed // 1000}G")
                break


@rule("ECN002", "error", "ECN max above the egress pool of its queue (lossless or lossy)",
      "lower ecn.max or enlarge qos.buffers.egress_*_pool_bytes")
def ecn_max_in_pool(ctx: LintContext) -> Iterator[Hit]:
    buffers = ctx.intent.qos.buffers
    classes = _class_by_name(ctx)
    for path, name, ecn in ecn_policies(ctx.intent):
        tc = classes.get(name)
        if tc is None:
            continue
        pool, pool_name = ((buffers.egress_lossless_pool_bytes, "egress_lossless_pool_bytes") if tc.lossless
                           else (buffers.egress_lossy_pool_bytes, "egress_lossy_pool_bytes"))
        hi = max(ecn.max.to_bytes(s) for s in ctx.port_speeds)
        if hi > pool:
            yield Hit(f"{path}.max", f"max {_at(ecn.max, hi)} is larger than qos.buffers.{pool_name} "
                                     f"({human_bytes(pool)}): the queue can never reach it")


@rule("ECN003", "warning", "ECN max above a port's fair share of the switch buffer (buffer_bytes / radix)",
      "lower ecn.max so marking starts before one port can take more than its share")
def ecn_max_fair_share(ctx: LintContext) -> Iterator[Hit]:
    for path, _name, ecn in ecn_policies(ctx.intent):
        for tier, (model_name, model) in ctx.tier_models.items():
            share = model.buffer_bytes // model.radix
            hi = ecn.max.to_bytes(model.port_speed)
            if hi > share:
                yield Hit(f"{path}.max", f"max {_at(ecn.max, hi)} is above the per-port share of {tier} "
                                         f"model '{model_name}' ({human_bytes(model.buffer_bytes)} / {model.radix} "
                                         f"ports = {human_bytes(share)})")
                break


@rule("ECN004", "error", "ECN marking probability 0 (must be 1..100)", "set probability between 1 and 100")
def ecn_probability(ctx: LintContext) -> Iterator[Hit]:
    for path, _name, ecn in ecn_policies(ctx.intent):
        if not 1 <= ecn.probability <= 100:
            yield Hit(f"{path}.probability", f"probability {ecn.probability}% never marks: DCQCN gets no signal")


@rule("ECN005", "warning", "a lossless class has no ECN marking", "add ecn: {min: 150KB, max: 1500KB} to the class")
def lossless_without_ecn(ctx: LintContext) -> Iterator[Hit]:
    for path, tc in _classes(ctx.intent.qos):
        if tc.lossless and tc.ecn is None:
            yield Hit(path, f"lossless class '{tc.name}' has no ECN: without marks DCQCN never slows senders and "
                            "congestion turns into PFC pauses")


@rule("ECN006", "error", "ECN min is 0 bytes after conversion", "use a min of at least a few KB")
def ecn_min_positive(ctx: LintContext) -> Iterator[Hit]:
    for path, _name, ecn in ecn_policies(ctx.intent):
        speed = min(ctx.port_speeds)
        if ecn.min.to_bytes(speed) <= 0:
            yield Hit(f"{path}.min", f"min {ecn.min} is 0 bytes at {speed // 1000}G: every ECT packet is marked")
