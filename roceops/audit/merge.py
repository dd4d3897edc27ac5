"""``roceops merge`` of audit shards: the :class:`~roceops.audit.engine.AuditResult` one unsharded audit gives.

Devices come back in selection order (each shard's ``run.positions``), findings are merged and sorted as the
audit merges and sorts them, and the exit code follows from the merged findings. The shards were cut along
cabling groups (:mod:`roceops.topology.sharding`), so no check across a host-leaf cable spans two shards and the
shards' findings never share a (device, path).
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import ValidationError

from roceops.audit.checks import merge
from roceops.audit.device import DeviceAudit
from roceops.audit.engine import AuditResult
from roceops.audit.history import Resolved
from roceops.report.result import Result
from roceops.report.shards import ShardMismatch, Shards, ordered


def merge_audit(shards: Shards) -> tuple[AuditResult, list[Resolved]]:
    """The audit one unsharded run gives, from its shards, with the resolved findings they recorded."""
    try:
        audited = [(str(d), str(p)) for _, (d, p) in ordered(shards, "audited")]
        findings = merge(Result.model_validate(f) for doc in shards.docs.values() for f in doc["findings"])
        resolved = [Resolved(device=str(r["device"]), path=str(r["path"]), check=str(r["check"]), first_seen=0.0)
                    for doc in shards.docs.values() for r in doc.get("resolved", [])]
    except (ValidationError, KeyError, TypeError, ValueError) as exc:
        raise ShardMismatch(f"a shard file holds an entry roceops cannot read: {exc}") from None
    by_device: dict[str, list[Result]] = defaultdict(list)
    for f in findings:
        by_device[f.device].append(f)
    audits = [DeviceAudit(device=d, platform=p, findings=by_device[d]) for d, p in audited]
    seconds = max(float(doc.get("seconds", 0.0)) for doc in shards.docs.values())
    result = AuditResult(fabric=shards.fabric, devices=[d for d, _ in audited], audits=audits, findings=findings,
                         seconds=seconds, shards=shards.count)
    return result, sorted(resolved, key=lambda r: (r.device, r.path, r.check))
