"""``--format html`` for audit, health and verify routing: adapt the run's results, render, write."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from roceops.audit.engine import AuditResult
from roceops.health.engine import HealthReport
from roceops.report.audit import write_atomic
from roceops.report.html import adapters, render_html, topology_html, topology_svg
from roceops.topology.fabric import Fabric
from roceops.verify.engine import VerifyResult


def invocation() -> str:
    """The command line as typed (``roceops ...``); inside another program (tests), the command path and params."""
    if Path(sys.argv[0]).name == "roceops":
        return shlex.join(["roceops", *sys.argv[1:]])
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return "roceops"
    params = [f"--{k.replace('_', '-')}={v}" for k, v in ctx.params.items() if v not in (None, False)]
    return shlex.join([*ctx.command_path.split(), *params])


def write(text: str, output: Path | None) -> None:
    """To ``output`` atomically (the reporters' writer), else to stdout."""
    if output is not None:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)


def audit_html(result: AuditResult, fabric: Fabric) -> str:
    return render_html(*adapters.from_audit(result, invocation()), fabric)


def health_html(report: HealthReport, fabric: Fabric) -> str:
    return render_html(*adapters.from_health(report, fabric, invocation()), fabric)


def verify_html(result: VerifyResult, fabric: Fabric) -> str:
    return render_html(*adapters.from_verify(result, fabric, invocation()), fabric)


# roceops topology --format <picture>: format -> writer of the plan
TOPOLOGY_PICTURES = {
    "svg": lambda fabric: topology_svg(fabric),
    "html": lambda fabric: topology_html(fabric, invocation()),
}
