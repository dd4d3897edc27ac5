"""demo: the whole value of roceops in one command on a private lab."""

from __future__ import annotations

from pathlib import Path

import typer

from roceops.cli.common import (
    Exit,
    check_writable,
    console,
    fail,
    load_intent_or_exit,
    path_value,
    shipped_fabric_or_exit,
)


def demo(
    fabric: Path | None = typer.Option(None, "-f", "--fabric", show_default=False,
                                       help="fabric for the demo lab (default: the lab-mini example roceops ships)",
                                       parser=path_value),
    out: Path = typer.Option(Path("build/demo"), "--out", help="where the rendered configs go", parser=path_value),
) -> None:
    """Start a lab, deploy, audit, break two things, find them, fix them, stop the lab — narrated.

    Example: roceops demo
    """
    from roceops.demo import DemoFailed, run_demo
    from roceops.lab.personality import LabError

    check_writable(out, folder=True)
    path = fabric or shipped_fabric_or_exit()
    load_intent_or_exit(path)  # a bad file is bad input (exit 3), before any lab starts
    try:
        code = run_demo(path, out, lambda line: console.print(line, markup=False, highlight=False))
    except (DemoFailed, LabError) as exc:
        fail(f"demo stopped: {exc}", Exit.FINDINGS)
    raise typer.Exit(code)
