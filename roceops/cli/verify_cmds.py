"""verify routing: the fabric's routing plane on real FRR in network namespaces, before any device is touched."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from roceops.cli.common import Exit, FabricOption, LimitOption, console, err_console, fail, load_fabric_or_exit
from roceops.cli.fabric_cmds import selected
from roceops.cli.html_report import verify_html

BY_CLASS_ABOVE = 128  # switches: a full plane costs ~60 MiB per switch (bench/RESULTS.md)

app = typer.Typer(help="Prove the fabric design on this machine (network namespaces, real FRR).",
                  no_args_is_help=True)


class VerifyFormat(StrEnum):
    table = "table"
    json = "json"
    junit = "junit"
    markdown = "markdown"
    html = "html"


@app.command()
def routing(
    ctx: typer.Context,
    fabric: Path = FabricOption,
    limit: str | None = LimitOption,
    sample: int = typer.Option(4, "--sample", min=1, help="NICs each host NIC pings (own rail in other SUs, "
                                                           "other rails)"),
    all_pairs: bool = typer.Option(False, "--all", help="ping every NIC from every NIC instead of a sample"),
    fmt: VerifyFormat = typer.Option(VerifyFormat.table, "--format"),
    deadline: float = typer.Option(60.0, "--deadline", min=1.0, help="seconds allowed for BGP convergence"),
    cleanup: bool = typer.Option(False, "--cleanup", help="only remove what killed runs left behind, then exit"),
    by_class: bool | None = typer.Option(
        None, "--by-class/--full",
        help=f"build the first and last SU with the switches above them and prove every other device an "
             f"instance of its class (a device that differs is built itself); default: --by-class above "
             f"{BY_CLASS_ABOVE} switches"),
) -> None:
    """Build every switch and host in its own network namespace (veth per cable, planned addresses and MTUs,
    the hosts' rendered tables/rules/sysctls), run each switch's FRR from its rendered config, and check
    sessions, host subnets, ECMP width, host-to-host pings and RoCE-MTU paths. Needs root and FRR.

    --limit selects the devices whose checks are reported and the hosts that ping; the whole plane is
    always built (routing needs every switch). Exit 0 verified, 1 findings, 2 some switches could not be
    built, 3 bad input, not runnable here (no root / ip netns / FRR) or interrupted (Ctrl-C, SIGTERM).
    --by-class (default above 128 switches) builds a representative sub-plane and reports
    per device whether it was verified directly or by class; --full builds every device.
    Example: sudo roceops verify routing -f inventory/lab-mini.yaml --format junit > routing.xml
    """
    from rich.progress import BarColumn, Progress, TaskID, TextColumn

    from roceops.verify import report as reports
    from roceops.verify.engine import STATE_DIR, VerifyOptions, VerifyUnavailable, preflight, verify_routing
    from roceops.verify.frr import FrrError
    from roceops.verify.netns import NetnsError, cleanup_leftovers

    try:
        preflight()
    except VerifyUnavailable as exc:
        fail(str(exc), Exit.BAD_INPUT)
    if cleanup:
        removed = cleanup_leftovers(STATE_DIR)
        console.print(f"removed {len(removed)} leftovers" + (f": {', '.join(removed)}" if removed else ""))
        raise typer.Exit(0)
    loaded = load_fabric_or_exit(fabric)
    names = {d.name for d in selected(loaded.fabric, limit)}
    if not names:
        fail("--limit selects no device")
    show = fmt is VerifyFormat.table and sys.stderr.isatty()
    with Progress(TextColumn("{task.description:<14}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  console=err_console, transient=True, disable=not show) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        if by_class is None:
            by_class = len(loaded.fabric.switches) > BY_CLASS_ABOVE
        opts = VerifyOptions(sample=sample, all_pairs=all_pairs, deadline_s=deadline,
                             limit=names if limit else None, progress=progress, by_class=by_class)
        try:
            result = verify_routing(loaded.fabric, opts)
        except KeyboardInterrupt:
            fail("interrupted; namespaces and FRR processes removed", Exit.BAD_INPUT)
        except (NetnsError, FrrError, OSError) as exc:
            fail(f"could not build the routing plane (everything built was removed): {exc}", Exit.UNREACHABLE)
    if fmt is VerifyFormat.table:
        reports.print_table(console, result)
    elif fmt is VerifyFormat.html:
        sys.stdout.write(verify_html(ctx, result, loaded.fabric))
    else:
        text = {VerifyFormat.json: reports.to_json, VerifyFormat.junit: reports.to_junit,
                VerifyFormat.markdown: reports.to_markdown}[fmt](result)
        sys.stdout.write(text)
    raise typer.Exit(result.exit_code)
