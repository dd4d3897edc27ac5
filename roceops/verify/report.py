"""A ``verify routing`` run for the reporters (:mod:`roceops.report`): terminal table, JSON, JUnit XML, Markdown.
Each reads only the VerifyResult; the formats themselves are the shared reporters."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from roceops.report import json_doc, junit, markdown, table
from roceops.report.result import Run, columns
from roceops.verify.engine import VerifyResult

COMMAND = "verify routing"
COLUMNS = columns(("device", "device"), ("check", "check"), ("path", "path"), ("expected", "expected"),
                  ("observed", "observed"), ("detail", "message"))


def _verdict(result: VerifyResult) -> str:
    return {0: "routing verified", 1: f"{len(result.findings)} findings"}.get(
        result.exit_code, "some devices could not be built")


def _coverage(result: VerifyResult) -> tuple[list[str], dict[str, Any]]:
    """Summary line and JSON section of ``--by-class``: per device how it was verified (and why built)."""
    cov = result.coverage
    if cov is None:
        return [], {}
    line = (f"verified: direct {len(cov.built)}, by class {len(cov.representative)} (each proven an instance of a "
            "directly verified device: same routing config, addresses, MTUs and cabling after canonical renaming)")
    per_device: dict[str, dict[str, str]] = {}
    for name in result.devices:
        if name in cov.representative:
            per_device[name] = {"verified": "class", "representative": cov.representative[name]}
        else:
            per_device[name] = {"verified": "direct", "reason": cov.reasons.get(name, "")}
    return [line], {"verified": per_device}


def run_of(result: VerifyResult) -> Run:
    """What the reporters know of this run besides its findings (JUnit: one testcase per device, group routing)."""
    c = result.counts
    phases = ", ".join(f"{k} {v:.1f}s" for k, v in result.phases.items())
    coverage_lines, coverage_doc = _coverage(result)
    return Run(
        command=COMMAND, fabric=result.fabric, devices=result.devices, default_group="routing",
        seconds=result.seconds, exit_code=result.exit_code,
        title=f"verify routing of {result.fabric}", columns=COLUMNS,
        headline=f"{len(result.devices)} devices, {len(result.findings)} findings, exit {result.exit_code}",
        summary=[f"{result.fabric}: {_verdict(result)}; {c.get('switches', 0)} switches, {c.get('hosts', 0)} hosts, "
                 f"{c.get('established', 0)}/{c.get('sessions', 0)} sessions, {c.get('pings', 0)} pings, "
                 f"{c.get('link_probes', 0)} link probes in {result.seconds:.1f}s ({phases})", *coverage_lines],
        results_key="findings",
        document={"run_id": result.run_id, "phases": result.phases, "counts": result.counts, **coverage_doc},
    )


def as_dict(result: VerifyResult) -> dict[str, Any]:
    return json_doc.as_dict(result.findings, run_of(result))


def to_json(result: VerifyResult) -> str:
    return json_doc.to_json(result.findings, run_of(result))


def print_table(console: Console, result: VerifyResult) -> None:
    table.print_table(console, result.findings, run_of(result))


def to_markdown(result: VerifyResult) -> str:
    return markdown.to_markdown(result.findings, run_of(result))


def to_junit(result: VerifyResult) -> str:
    """One testcase per device; a finding is a <failure>, a device that could not be built an <error>."""
    return junit.to_junit(result.findings, run_of(result))
