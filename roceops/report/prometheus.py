"""Prometheus textfile reporter (node_exporter's textfile collector): gauges per device, per check and per run,
named ``roceops_<command>_...``."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from prometheus_client import CollectorRegistry, Gauge, generate_latest

from roceops.report.result import Result, Run
from roceops.util.bounded_read import ReadRefused, read_regular


def metric_prefix(run: Run) -> str:
    return "roceops_" + run.command.replace(" ", "_")


def previous_success(path: Path, run_command: str = "audit") -> float | None:
    """The last-success timestamp already in a textfile, carried over when this run was incomplete."""
    from prometheus_client.parser import text_string_to_metric_families

    try:
        text = read_regular(path).decode("utf-8", errors="replace")  # never a FIFO or device, never unbounded
    except ReadRefused:
        return None
    name = f"roceops_{run_command.replace(' ', '_')}_last_success_timestamp_seconds"
    try:
        for family in text_string_to_metric_families(text):
            if family.name == name:
                for sample in family.samples:
                    return float(sample.value)
    except ValueError:  # not a Prometheus textfile (yet): nothing to carry over; it is replaced whole
        return None
    return None


def to_prometheus(results: Sequence[Result], run: Run) -> str:
    p, what = metric_prefix(run), run.command
    registry = CollectorRegistry()
    labels = ["fabric", "device", "platform"]
    ok = Gauge(f"{p}_device_ok", f"1 when the {what} checked the device and found nothing", labels,
               registry=registry)
    reachable = Gauge(f"{p}_device_reachable", f"1 when the {what} could check the device", labels,
                      registry=registry)
    per_device = Gauge(f"{p}_device_findings", "findings per device", labels, registry=registry)
    per_check = Gauge(f"{p}_check_findings", "findings per check", ["fabric", "check"], registry=registry)
    total = Gauge(f"{p}_findings", f"findings in the last {what}", ["fabric"], registry=registry)
    last = Gauge(f"{p}_last_run_timestamp_seconds", f"when the last {what} finished", ["fabric"], registry=registry)
    success = Gauge(f"{p}_last_success_timestamp_seconds",
                    f"when the last {what} that reached every device finished", ["fabric"], registry=registry)
    duration = Gauge(f"{p}_duration_seconds", f"{what} wall time", ["fabric"], registry=registry)
    findings = [r for r in results if r.status != "ok"]
    counts = Counter(r.device for r in findings)
    bad = {r.device for r in findings if r.not_checked}
    for device in run.devices:
        lv = (run.fabric, device, run.group(device))
        per_device.labels(*lv).set(counts[device])
        reachable.labels(*lv).set(0 if device in bad else 1)
        ok.labels(*lv).set(1 if counts[device] == 0 else 0)
    for check, n in Counter(r.check for r in findings).items():
        per_check.labels(run.fabric, check).set(n)
    total.labels(run.fabric).set(len(findings))
    now = time.time()
    last.labels(run.fabric).set(now)
    if not bad:
        success.labels(run.fabric).set(now)
    elif run.last_success is not None:
        success.labels(run.fabric).set(run.last_success)
    duration.labels(run.fabric).set(round(run.seconds, 3))
    return generate_latest(registry).decode()
