"""``verify routing`` reporters: terminal table, JSON, JUnit XML, Markdown. Each reads only the VerifyResult."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any

from rich.console import Console

from roceops.report import tables
from roceops.verify.engine import VerifyResult


def _short(value: Any) -> str:
    """A value as one cell, whole (tables fold long cells; a shortened value could hide what differs)."""
    return "-" if value is None else value if isinstance(value, str) else json.dumps(value, default=str)


def _verdict(result: VerifyResult) -> str:
    return {0: "routing verified", 1: f"{len(result.findings)} findings"}.get(
        result.exit_code, "some devices could not be built")


def as_dict(result: VerifyResult) -> dict[str, Any]:
    return {"fabric": result.fabric, "run_id": result.run_id, "devices": len(result.devices),
            "seconds": round(result.seconds, 3), "phases": result.phases, "counts": result.counts,
            "exit_code": result.exit_code, "findings": [f.model_dump(mode="json") for f in result.findings]}


def to_json(result: VerifyResult) -> str:
    return json.dumps(as_dict(result), indent=2) + "\n"


def print_table(console: Console, result: VerifyResult) -> None:
    if result.findings:
        table = tables.table("device", "check", "path", "expected", "observed", "detail",
                      title=f"verify routing of {result.fabric}")
        for f in result.findings:
            table.add_row(f.device, f.check, f.path or "-", _short(f.expected), _short(f.observed), f.message)
        console.print(table)
    c = result.counts
    phases = ", ".join(f"{k} {v:.1f}s" for k, v in result.phases.items())
    console.print(f"{result.fabric}: {_verdict(result)}; {c.get('switches', 0)} switches, {c.get('hosts', 0)} hosts, "
                  f"{c.get('established', 0)}/{c.get('sessions', 0)} sessions, {c.get('pings', 0)} pings, "
                  f"{c.get('link_probes', 0)} link probes in {result.seconds:.1f}s ({phases})")


def to_markdown(result: VerifyResult) -> str:
    lines = [f"# roceops verify routing: {result.fabric}", "",
             f"{len(result.devices)} devices, {len(result.findings)} findings, exit {result.exit_code}", ""]
    if result.findings:
        lines += ["| device | check | path | expected | observed | detail |", "|---|---|---|---|---|---|"]
        for f in result.findings:
            cells = [f.device, f.check, f.path or "-", _short(f.expected), _short(f.observed), f.message]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def to_junit(result: VerifyResult) -> str:
    """One testcase per device; a finding is a <failure>, a device that could not be built an <error>."""
    by_device: dict[str, list[Any]] = defaultdict(list)
    for f in result.findings:
        by_device[f.device].append(f)
    failures = sum(1 for d in result.devices if any(f.check != "device.failed" for f in by_device[d]))
    errors = sum(1 for d in result.devices if any(f.check == "device.failed" for f in by_device[d]))
    suite = ET.Element("testsuite", name=f"roceops verify routing {result.fabric}", tests=str(len(result.devices)),
                       failures=str(failures), errors=str(errors), time=f"{result.seconds:.3f}")
    for device in result.devices:
        case = ET.SubElement(suite, "testcase", classname=f"{result.fabric}.routing", name=device)
        for f in by_device[device]:
            tag = "error" if f.check == "device.failed" else "failure"
            el = ET.SubElement(case, tag, message=f"{f.check} {f.path}".strip(), type=f.check)
            exp, obs = json.dumps(f.expected, default=str), json.dumps(f.observed, default=str)
            el.text = f"expected {exp}, observed {obs}\n{f.message}\nfix: {f.hint}"
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
