"""`--format html` of audit, health and verify routing, and the topology pictures: adapt, then render."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # imported where used: the engines are too heavy for start-up (tests/cli/test_startup_imports.py)
    from roceops.audit.engine import AuditResult
    from roceops.health.engine import HealthReport
    from roceops.report.result import Run
    from roceops.topology.fabric import Fabric
    from roceops.verify.engine import VerifyResult


def invocation(ctx: typer.Context) -> str:
    """The command line as typed (``roceops ...``); run inside another program (tests), the command's path and
    the parameters it was given."""
    if Path(sys.argv[0]).name == "roceops":
        return shlex.join(["roceops", *sys.argv[1:]])
    words = ["roceops", *ctx.command_path.split()[1:]]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if value in (None, False, [], ()) or value == param.default:
            continue
        if param.param_type_name == "argument":
            words.append(str(value))
        else:
            words += [max(param.opts, key=len)] + ([] if value is True else [str(value)])
    return shlex.join(words)


def html_run(ctx: typer.Context, run: Run, fabric: Fabric) -> Run:
    """``run`` carrying what the ``html`` reporter draws: the fabric's map and the command line as typed."""
    from roceops.report.html import with_map

    return with_map(run, fabric, invocation(ctx))


def audit_html(ctx: typer.Context, result: AuditResult, fabric: Fabric) -> str:
    from roceops.audit import report as audit_report
    from roceops.report.formats import report

    return report("html", result.findings, html_run(ctx, audit_report.run_of(result), fabric))


def health_html(ctx: typer.Context, health: HealthReport, fabric: Fabric) -> str:
    from roceops.health import report as health_report
    from roceops.report.formats import report

    return report("html", health.results, html_run(ctx, health_report.run_of(health), fabric))


def verify_html(ctx: typer.Context, result: VerifyResult, fabric: Fabric) -> str:
    from roceops.report.formats import report
    from roceops.verify import report as verify_report

    return report("html", result.findings, html_run(ctx, verify_report.run_of(result), fabric))


# roceops topology --format <picture>: format -> writer of the plan
def _svg(ctx: typer.Context, fabric: Fabric) -> str:
    from roceops.report.html import topology_svg

    return topology_svg(fabric)


def _html(ctx: typer.Context, fabric: Fabric) -> str:
    from roceops.report.html import topology_html

    return topology_html(fabric, invocation(ctx))


TOPOLOGY_PICTURES: dict[str, Callable[[typer.Context, Fabric], str]] = {"svg": _svg, "html": _html}
