"""Audit reporters. Each reads only the AuditResult (and the resolved list from history)."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Gauge, generate_latest
from rich.console import Console

from roceops.audit.engine import AuditResult
from roceops.audit.findings import UNREACHABLE_CHECKS
from roceops.audit.history import Resolved
from roceops.report import tables
from roceops.util.safe_write import write_file


def as_dict(result: AuditResult, resolved: list[Resolved]) -> dict[str, Any]:
    return {
        "fabric": result.fabric,
        "devices": len(result.devices),
        "seconds": round(result.seconds, 3),
        "exit_code": result.exit_code,
        "unreachable": result.unreachable,
        "findings": [f.model_dump(mode="json") for f in result.findings],
        "resolved": [{"device": r.device, "path": r.path, "check": r.check} for r in resolved],
    }


def to_json(result: AuditResult, resolved: list[Resolved]) -> str:
    return json.dumps(as_dict(result, resolved), indent=2) + "\n"


def print_table(console: Console, result: AuditResult, resolved: list[Resolved]) -> None:
    if result.findings:
        table = tables.table("status", "device", "check", "path", "expected", "observed", "fix",
                             title=f"audit of {result.fabric}", capped=("expected", "observed", "fix"))
        for f in result.findings:
            table.add_row(f.status, f.device, f.check, f.path or "-", _cell(f.expected), _cell(f.observed),
                          f.hint or f.message)
        console.print(table)
    for r in resolved:
        console.print(f"resolved: {r.device} {r.path or r.check}")
    counts = Counter(f.status for f in result.findings)
    verdict = ("no drift" if result.exit_code == 0 else
               "drift found" if result.exit_code == 1 else f"{len(result.unreachable)} devices not audited")
    console.print(f"{result.fabric}: {verdict}; {len(result.devices)} devices in {result.seconds:.1f}s; "
                  f"{counts['new']} new, {counts['persisting']} persisting, {len(resolved)} resolved")


def _cell(value: Any) -> str:
    """A value as one table cell, whole (a shortened value could hide the part that drifted)."""
    return "-" if value is None else json.dumps(value, default=str) if not isinstance(value, str) else value


def to_markdown(result: AuditResult, resolved: list[Resolved]) -> str:
    lines = [f"# roceops audit: {result.fabric}", "",
             f"{len(result.devices)} devices, {len(result.findings)} findings, {len(resolved)} resolved, "
             f"exit {result.exit_code}", ""]
    if result.findings:
        lines += ["| status | device | check | path | expected | observed | fix |", "|---|---|---|---|---|---|---|"]
        for f in result.findings:
            cells = [f.status, f.device, f.check, f.path or "-", _cell(f.expected), _cell(f.observed),
                     f.hint or f.message]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if resolved:
        lines += ["", "## Resolved", ""] + [f"- {r.device} `{r.path or r.check}`" for r in resolved]
    return "\n".join(lines) + "\n"


def to_junit(result: AuditResult) -> str:
    """One testcase per device; drift is a <failure>, a device not audited an <error>."""
    by_device: dict[str, list[Any]] = defaultdict(list)
    for f in result.findings:
        by_device[f.device].append(f)
    platform = {a.device: a.platform for a in result.audits}
    failures = sum(1 for d in result.devices if any(f.check not in UNREACHABLE_CHECKS for f in by_device[d]))
    errors = sum(1 for d in result.devices if any(f.check in UNREACHABLE_CHECKS for f in by_device[d]))
    suite = ET.Element("testsuite", name=f"roceops audit {result.fabric}", tests=str(len(result.devices)),
                       failures=str(failures), errors=str(errors), time=f"{result.seconds:.3f}")
    for device in result.devices:
        case = ET.SubElement(suite, "testcase", classname=f"{result.fabric}.{platform.get(device, 'unknown')}",
                             name=device)
        for f in by_device[device]:
            tag = "error" if f.check in UNREACHABLE_CHECKS else "failure"
            el = ET.SubElement(case, tag, message=f"{f.check} {f.path}".strip(), type=f.check)
            exp, obs = json.dumps(f.expected, default=str), json.dumps(f.observed, default=str)
            el.text = f"expected {exp}, observed {obs}\n{f.message}\nfix: {f.hint}"
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def previous_success(path: Path) -> float | None:
    """The last-success timestamp already in a textfile, carried over when this audit was incomplete."""
    from prometheus_client.parser import text_string_to_metric_families

    try:
        text = path.read_text()
    except OSError:
        return None
    for family in text_string_to_metric_families(text):
        if family.name == "roceops_audit_last_success_timestamp_seconds":
            for sample in family.samples:
                return float(sample.value)
    return None


def to_prometheus(result: AuditResult, last_success: float | None = None) -> str:
    registry = CollectorRegistry()
    labels = ["fabric", "device", "platform"]
    ok = Gauge("roceops_audit_device_ok", "1 when the device was audited and shows no drift", labels,
               registry=registry)
    reachable = Gauge("roceops_audit_device_reachable", "1 when the device could be audited", labels,
                      registry=registry)
    per_device = Gauge("roceops_audit_device_findings", "findings per device", labels, registry=registry)
    per_check = Gauge("roceops_audit_check_findings", "findings per check", ["fabric", "check"], registry=registry)
    total = Gauge("roceops_audit_findings", "findings in the last audit", ["fabric"], registry=registry)
    last = Gauge("roceops_audit_last_run_timestamp_seconds", "when the last audit finished", ["fabric"],
                 registry=registry)
    success = Gauge("roceops_audit_last_success_timestamp_seconds",
                    "when the last audit that reached every device finished", ["fabric"], registry=registry)
    duration = Gauge("roceops_audit_duration_seconds", "audit wall time", ["fabric"], registry=registry)
    counts = Counter(f.device for f in result.findings)
    bad = {f.device for f in result.findings if f.check in UNREACHABLE_CHECKS}
    for a in result.audits:
        lv = (result.fabric, a.device, a.platform)
        per_device.labels(*lv).set(counts[a.device])
        reachable.labels(*lv).set(0 if a.device in bad else 1)
        ok.labels(*lv).set(1 if counts[a.device] == 0 else 0)
    for check, n in Counter(f.check for f in result.findings).items():
        per_check.labels(result.fabric, check).set(n)
    total.labels(result.fabric).set(len(result.findings))
    now = time.time()
    last.labels(result.fabric).set(now)
    if not result.unreachable:
        success.labels(result.fabric).set(now)
    elif last_success is not None:
        success.labels(result.fabric).set(last_success)
    duration.labels(result.fabric).set(round(result.seconds, 3))
    return generate_latest(registry).decode()


def write_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder + rename, so a scraper never reads half a file; only onto a regular file or a new
    path (:func:`roceops.util.safe_write.write_file`, which raises WriteRefused otherwise)."""
    write_file(path, text)
