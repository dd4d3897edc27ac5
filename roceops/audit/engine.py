"""Audit orchestration: every device planned, read (read-only, on Nornir), parsed and checked where it is read,
then the checks across host-leaf links.

Large audits are split into one shard per core, each a forked process with its own Nornir run and its own
GIL: reading a device (Paramiko's packet handling, the drivers' reads) and parsing what it said are both CPU
work in Python, and one process tops out at one core (bench/RESULTS.md, audit of 1,000 devices). A shard
sends back one :class:`~roceops.audit.device.DeviceAudit` per device as it finishes.

One bad device never stops the audit: unreachable devices, timeouts and unparsable output become findings of
their own (``device.unreachable``/``device.timeout``/``device.unparsable``), and a device whose audit never
reported back (its shard died) is ``device.failed``.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from nornir.core.task import Result as TaskResult
from nornir.core.task import Task

from roceops.audit.cabling import cabling_findings
from roceops.audit.checks import link_findings, merge
from roceops.audit.device import DeviceAudit, audit_device, not_audited
from roceops.audit.findings import UNREACHABLE_CHECKS
from roceops.nornir_glue.runner import Progress, make_nornir
from roceops.parallel import ShardEnded, forked_shards
from roceops.report.result import Result
from roceops.topology.fabric import Fabric

SHARD_MIN_DEVICES = 64  # a shard of fewer devices costs more to fork than it saves


@dataclass(frozen=True)
class AuditOptions:
    workers: int = 64  # devices read at once, over all shards
    timeout_s: float = 30.0
    lab_dir: Path | None = None
    quiet: bool = False
    shards: int | None = None  # processes reading devices; None: one per core for large audits
    hint_context: tuple[str, ...] = ()  # options every fix hint carries (-f FILE, --lab): roceops.hints


@dataclass
class AuditResult:
    fabric: str
    devices: list[str]
    audits: list[DeviceAudit]  # one per device, in ``devices`` order
    findings: list[Result]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)  # wall seconds; sum.*: over devices; cpu.*: CPU-s
    shards: int = 1

    @property
    def unreachable(self) -> list[str]:
        return sorted({f.device for f in self.findings if f.check in UNREACHABLE_CHECKS})

    @property
    def drift(self) -> list[Result]:
        return [f for f in self.findings if f.check not in UNREACHABLE_CHECKS]

    @property
    def exit_code(self) -> int:
        if self.unreachable:
            return 2
        return 1 if self.drift else 0


def shard_count(devices: int, requested: int | None = None) -> int:
    """How many processes read ``devices`` devices: as asked, else one per core with at least
    :data:`SHARD_MIN_DEVICES` each; always 1 where processes cannot be forked."""
    if "fork" not in mp.get_all_start_methods():
        return 1
    if requested is not None:
        return max(1, min(requested, devices))
    return max(1, min(os.cpu_count() or 1, devices // SHARD_MIN_DEVICES))


def audit_shard(fabric: Fabric, names: list[str], opts: AuditOptions, workers: int,
                emit: Callable[[DeviceAudit], None]) -> None:
    """Audit ``names`` on one Nornir run in this process, handing each device's result to ``emit`` as it ends."""
    nr = make_nornir(fabric, names, lab_dir=opts.lab_dir, workers=workers, timeout_s=opts.timeout_s,
                     login="quick")

    def task(t: Task) -> TaskResult:
        audit = audit_device(t, fabric, opts.hint_context)
        emit(audit)
        return TaskResult(host=t.host, result=audit.audited)

    try:
        nr.run(task=task, on_failed=True)
    finally:
        nr.close_connections(on_good=True, on_failed=True)


def _collect(fabric: Fabric, names: list[str], opts: AuditOptions, shards: int,
             progress: Progress) -> tuple[dict[str, DeviceAudit], dict[int, ShardEnded]]:
    """Every device's :class:`DeviceAudit`: read in this process, or by ``shards`` forked ones (device k of
    ``names`` goes to shard k mod shards, so each shard gets a mix of platforms). The shards are forked
    before the progress display starts its thread."""
    results: dict[str, DeviceAudit] = {}

    def on_result(audit: DeviceAudit) -> None:
        results[audit.device] = audit
        progress.advance(audit.device, audit)

    ended: dict[int, ShardEnded] = {}
    if shards == 1:
        with progress:
            audit_shard(fabric, names, opts, opts.workers, on_result)
        return results, ended
    workers = max(1, math.ceil(opts.workers / shards))

    def work(k: int, send: Callable[[DeviceAudit], None]) -> None:
        audit_shard(fabric, names[k::shards], opts, workers, send)

    arrivals = forked_shards(work, shards)
    with closing(arrivals), progress:  # closing: an interrupted audit kills its shards at once
        for k, item in arrivals:
            if isinstance(item, ShardEnded):
                ended[k] = item
            else:
                on_result(item)
    return results, ended


def _why_missing(ended: ShardEnded | None) -> str:
    if ended is None:
        return "the device's task ended without a result"
    if ended.error:
        return f"the audit process reading it failed ({ended.error})"
    return f"the audit process reading it stopped (exit status {ended.exitcode})"


def run_audit(fabric: Fabric, names: list[str], opts: AuditOptions) -> AuditResult:
    start = time.monotonic()
    shards = shard_count(len(names), opts.shards)
    _ = fabric.by_name, fabric.links_by_device  # built once here, inherited by the shards
    progress = Progress("audit", len(names), lambda n, a: f"{n}: {'ok' if a.audited else 'error'}", quiet=opts.quiet)
    results, ended = _collect(fabric, names, opts, shards, progress)
    collected = time.monotonic()
    audits = [results.get(n) or not_audited(n, fabric.device(n).platform, _why_missing(ended.get(i % shards)))
              for i, n in enumerate(names)]
    found = [f for a in audits for f in a.findings]
    ends = {a.device: a.ends for a in audits}
    found.extend(link_findings(fabric, ends))
    found.extend(cabling_findings(fabric, ends))
    findings = merge(found)
    end = time.monotonic()
    phases = {"devices": collected - start, "checks": end - collected}
    for key in ("plan", "connect", "collect", "parse", "check"):
        phases[f"sum.{key}"] = sum(a.phases.get(key, 0.0) for a in audits)
    for key in ("plan", "read", "parse", "check"):
        phases[f"cpu.{key}"] = sum(a.cpu.get(key, 0.0) for a in audits)
    return AuditResult(fabric=fabric.intent.name, devices=names, audits=audits, findings=findings,
                       seconds=end - start, phases=phases, shards=shards)
