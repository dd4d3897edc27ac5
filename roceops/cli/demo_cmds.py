"""demo: the whole value of roceops in one command on a private lab."""

from __future__ import annotations

from pathlib import Path

import typer

from roceops.cli.common import Exit, check_writable, console, fail
from roceops.lab.personality import LabError


def demo(
    fabric: Path = typer.Option(Path("inventory/lab-mini.yaml"), "-f", "--fabric", help="fabric for the demo lab"),
    out: Path = typer.Option(Path("build/demo"), "--out", help="where the rendered configs go"),
) -> None:
    """Start a lab, deploy, audit, break two things, find them, fix them, stop the lab — narrated.

    Example: roceops demo
    """
    from roceops.demo import DemoFailed, run_demo

    check_writable(out, folder=True)
    try:
        code = run_demo(fabric, out, lambda line: console.print(line, markup=False, highlight=False))
    except (DemoFailed, LabError) as exc:
        fail(f"demo stopped: {exc}", Exit.FINDINGS)
    raise typer.Exit(code)
