"""``roceops merge`` of health shards (``health --all --shard I/N``): the report one unsharded sweep gives.

Verdicts come back in selection order; results are those the shards wrote (every result that is not ok). The
check of NIC firmware across a run's nodes compares within each shard only: a merge cannot redo it.
"""

from __future__ import annotations

from pydantic import ValidationError

from roceops.health.engine import HealthReport
from roceops.health.model import Verdict
from roceops.report.result import Result
from roceops.report.shards import ShardMismatch, Shards, ordered


def merge_health(shards: Shards) -> HealthReport:
    try:
        verdicts = [Verdict.model_validate(v) for _, v in ordered(shards, "verdicts")]
        results = [Result.model_validate(r) for doc in shards.docs.values() for r in doc.get("results", [])]
    except (ValidationError, TypeError) as exc:
        raise ShardMismatch(f"a shard file holds an entry roceops cannot read: {exc}") from None
    order = {v.node: i for i, v in enumerate(verdicts)}
    results.sort(key=lambda r: order.get(r.device, len(order)))
    return HealthReport(nodes=[v.node for v in verdicts], results=results, verdicts=verdicts,
                        seconds=max(float(d.get("seconds", 0.0)) for d in shards.docs.values()),
                        devices=sum(int(d.get("devices", 0)) for d in shards.docs.values()), fabric=shards.fabric)
