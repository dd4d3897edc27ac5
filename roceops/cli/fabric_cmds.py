"""Commands that read the fabric intent: validate, topology, cabling, intent, render."""

from __future__ import annotations

import csv
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from roceops.cli.common import (
    Exit,
    FabricOption,
    LimitOption,
    check_writable,
    console,
    fail,
    load_fabric_or_exit,
    load_intent_or_exit,
    path_value,
    print_json,
)
from roceops.cli.gc_tuning import run_gc
from roceops.cli.html_report import TOPOLOGY_PICTURES
from roceops.cli.scheduler_cmds import SCHEDULER_FORMATS, export_topology

if TYPE_CHECKING:  # the rest is imported by the command that uses it (start-up time: tests/cli/test_startup_imports.py)
    from collections.abc import Callable

    from roceops.cli.common import Loaded
    from roceops.topology.fabric import Fabric, Host, Switch

PRETTY_WIDTH = 120  # `intent --format table` wraps its pretty-printed model here, even when piped


class TableOrJson(StrEnum):
    table = "table"
    json = "json"


class CablingFormat(StrEnum):
    csv = "csv"
    json = "json"
    table = "table"


def validate(fabric: Path = FabricOption, fmt: TableOrJson = typer.Option(TableOrJson.table, "--format")) -> None:
    """Check the fabric intent: schema, topology and every lint rule.

    Example: roceops validate -f inventory/fabric.yaml
    """
    from roceops.lint import lint
    from roceops.report import tables

    source = load_intent_or_exit(fabric)
    with run_gc():  # lint expands the fabric on its own: ~150k young objects at 64 SUs
        report = lint(source.intent)
    if fmt is TableOrJson.json:
        print_json({"fabric": source.intent.name, "ok": report.ok,
                    "findings": [f.model_dump(mode="json") for f in report.findings]})
    else:
        if report.findings:
            table = tables.table("severity", "rule", "where", "finding", "fix", title=f"{source.file}")
            for f in report.findings:
                line, col = source.locate(f.path)
                table.add_row(f.severity, f.id, f"{line}:{col} {f.path}", f.message, f.hint)
            console.print(table)
        verdict = "valid" if report.ok else "INVALID"
        console.print(f"{source.intent.name}: {verdict} ({len(report.errors)} errors, {len(report.warnings)} warnings)")
    raise typer.Exit(int(Exit.OK if report.ok else Exit.FINDINGS))


class TopologyFormat(StrEnum):
    table = "table"
    json = "json"
    svg = "svg"
    html = "html"
    slurm = "slurm"
    k8s_labels = "k8s-labels"


def topology(ctx: typer.Context, fabric: Path = FabricOption,
             fmt: TopologyFormat = typer.Option(TopologyFormat.table, "--format"),
             output: Path | None = typer.Option(None, "--output", "-o", parser=path_value,
                                                help="svg/html/slurm/k8s-labels: write here (atomically)")) -> None:
    """Device counts per tier, ports used/free per switch model, oversubscription; svg/html: the plan as a
    picture (tiers, SUs, rails, cable counts); slurm: topology.conf for Slurm's topology/tree; k8s-labels: the
    node labels of NVIDIA Topograph's schema.

    Example: roceops topology --format html > plan.html; roceops topology --format slurm -o topology.conf
    """
    from roceops.report import tables
    from roceops.report.files import write_atomic

    if output is not None and fmt in (TopologyFormat.table, TopologyFormat.json):
        fail(f"--output is for --format svg, html, slurm or k8s-labels, not {fmt.value}")
    check_writable(output)
    fab = load_fabric_or_exit(fabric).fabric
    if fmt.value in SCHEDULER_FORMATS:
        export_topology(fab, fmt.value, output)
        return
    if fmt.value in TOPOLOGY_PICTURES:
        picture = TOPOLOGY_PICTURES[fmt.value](ctx, fab)
        if output is None:
            sys.stdout.write(picture)
        else:
            write_atomic(output, picture)
        return
    rows = [t.model_dump(mode="json") for t in fab.summary]
    cables: dict[str, int] = {}
    for link in fab.links:
        cables[link.tier] = cables.get(link.tier, 0) + 1
    if fmt is TopologyFormat.json:
        print_json({"fabric": fab.intent.name, "tiers": fab.tiers, "summary": rows, "cables": cables})
        return
    table = tables.table("role", "count", "model", "radix", "ports used", "ports free", "down", "up", "oversub",
                  title=f"{fab.intent.name}: {fab.tiers}-tier Clos")
    for r in rows:
        table.add_row(*(str(r[k]) if r[k] is not None else "-" for k in
                        ("role", "count", "model", "radix", "ports_used", "ports_free", "downlinks", "uplinks",
                         "oversubscription")))
    console.print(table)
    console.print("cables: " + ", ".join(f"{k} {v}" for k, v in cables.items()))


def cabling(fabric: Path = FabricOption, fmt: CablingFormat = typer.Option(CablingFormat.csv, "--format")) -> None:
    """The cabling plan: a-end device/port, b-end device/port, tier, length.

    Example: roceops cabling --format csv > cabling.csv
    """
    from roceops.report import tables

    fab = load_fabric_or_exit(fabric).fabric
    header = ["a_device", "a_port", "b_device", "b_port", "tier", "length_m", "speed"]
    rows = [[lk.a.device, lk.a.port, lk.b.device, lk.b.port, lk.tier, str(lk.cable_length), f"{lk.speed // 1000}G"]
            for lk in fab.links]
    if fmt is CablingFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    elif fmt is CablingFormat.json:
        print_json([dict(zip(header, r, strict=True)) for r in rows])
    else:
        table = tables.table(*header)
        for r in rows:
            table.add_row(*r)
        console.print(table)


def intent(
    device: str = typer.Argument(..., help="device name"),
    fabric: Path = FabricOption,
    fmt: TableOrJson = typer.Option(TableOrJson.json, "--format"),
) -> None:
    """Print one device's vendor-neutral DeviceIntent.

    Example: roceops intent leaf-su1-r1 --format json
    """
    from roceops import api

    fab = load_fabric_or_exit(fabric).fabric
    try:
        di = api.plan(fab, device)
    except KeyError as exc:
        fail(str(exc.args[0]) if exc.args else str(exc))
    if fmt is TableOrJson.json:
        sys.stdout.write(di.model_dump_json(indent=2) + "\n")
    else:
        console.print(di, width=min(console.width, PRETTY_WIDTH))  # a pretty-printed model, not a table


def selected(fab: Fabric, limit: str | None) -> list:
    """The devices ``--limit`` picks; a selection of none is bad input (exit 3), never a silent success."""
    from roceops.selection import LimitError, empty_reason, select

    try:
        chosen = select(list(fab.devices()), limit)
    except LimitError as exc:
        fail(str(exc))
    if not chosen:
        fail(f"--limit {limit!r} selects no device of {fab.intent.name}: {empty_reason(limit or '')}")
    return chosen


def render(
    fabric: Path = FabricOption,
    out: Path = typer.Option(Path("build"), "--out", "-o", help="output folder", parser=path_value),
    limit: str | None = LimitOption,
    skip_lint: bool = typer.Option(False, "--skip-lint", help="render even if lint finds errors"),
) -> None:
    """Render configuration files for every device (or --limit) plus a manifest, and the fabric's monitoring
    (monitoring/: Prometheus rules and their promtool tests, a Grafana dashboard, a scrape config).

    Example: roceops render --out build/ --limit leaf,su1
    """
    from roceops.monitoring import MONITORING_DIR, monitoring_files
    from roceops.render.build import UnsafePath, write_folder

    loaded = load_fabric_or_exit(fabric)
    errors: list[int] = []

    def linted() -> bool:  # run while the workers render; they write nothing until it passed
        from roceops.lint import lint  # imported here, after the workers forked: they need none of it

        report = lint(loaded.source.intent, loaded.fabric)
        errors.append(len(report.errors))
        return report.ok

    devices = selected(loaded.fabric, limit)
    check_writable(out, folder=True)
    start = time.perf_counter()
    try:
        # no collection first: since load_fabric_or_exit's (run_gc, then expand) only acyclic objects were made
        with run_gc(acyclic=True, collect=False):
            done = _render_into(loaded, devices, out, None if skip_lint else linted)
        if done is None:
            fail(f"{errors[0]} lint errors; see `roceops validate -f {fabric}`", Exit.FINDINGS)
        count, written, unchanged = done
        monitoring = write_folder(out, MONITORING_DIR, monitoring_files(loaded.fabric))
    except UnsafePath as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write into {out}: {exc.strerror or exc}")
    console.print(f"rendered {count} devices into {out}/ in {time.perf_counter() - start:.1f}s "
                  f"({written} files written, {unchanged} unchanged; "
                  f"{out}/{MONITORING_DIR}/: {monitoring[0]} written, {monitoring[1]} unchanged)")
    _say_vendor_managed(devices)


def _render_into(loaded: Loaded, devices: list[Switch | Host], out: Path, lint_ok: Callable[[], bool] | None
                 ) -> tuple[int, int, int] | None:
    """Render and write ``devices`` into ``out``: (devices, files written, files unchanged), or None when
    ``lint_ok`` failed (nothing written). With ``lint_ok``, workers render while it runs and write as they render
    once it passed (render_build). Without (--skip-lint) everything is rendered first, so a device that cannot
    be rendered stops the run before anything is written."""
    from roceops.hardware import UnknownSwitchProfile
    from roceops.plan.hardware import NoVendorHeadroom
    from roceops.render.build import DeviceFailed, render_build, render_devices, write_build

    if lint_ok is not None:
        try:
            built = render_build(loaded.fabric, devices, out, loaded.source.source_hash, check=lint_ok)
        except DeviceFailed as exc:
            fail(str(exc))
        return None if built is None else (built.devices, built.written, built.unchanged)
    try:
        rendered = render_devices(loaded.fabric, devices)
    except (NoVendorHeadroom, UnknownSwitchProfile) as exc:  # lint's HDRM003 / HW001, reached with --skip-lint
        fail(f"cannot render: {exc}")
    result = write_build(out, loaded.fabric.intent.name, loaded.source.source_hash, rendered)
    return len(rendered), result.written, result.unchanged


def _say_vendor_managed(devices: list[Switch | Host]) -> None:
    """Name the switches rendered without BUFFER_* tables because their SKU leaves buffers to the vendor."""
    from roceops.plan.hardware import vendor_managed_reason
    from roceops.topology.fabric import Switch as SwitchDevice

    reasons: dict[str, list[str]] = {}
    for d in devices:
        if isinstance(d, SwitchDevice) and (why := vendor_managed_reason(d)) is not None:
            reasons.setdefault(why, []).append(d.name)
    for why, names in reasons.items():
        console.print(f"vendor-managed buffers, no BUFFER_* tables rendered for {len(names)} switches "
                      f"({', '.join(names[:3])}{', ...' if len(names) > 3 else ''}): {why}")
