"""audit: drift detection against intent, for operators and for cron."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from roceops.cli.common import (
    Exit,
    FabricOption,
    LimitOption,
    check_connection_settings,
    check_writable,
    console,
    fail,
    load_fabric_or_exit,
    path_value,
)
from roceops.cli.deploy_cmds import JournalOption, LabOption, StateDir
from roceops.cli.fabric_cmds import selected
from roceops.cli.gc_tuning import run_gc
from roceops.cli.hints import hint_context
from roceops.cli.html_report import audit_html
from roceops.cli.lab_target import check_lab_serves, fabric_for
from roceops.cli.scheduler_cmds import RunIdOption, ShardOption, conf_findings, read_topology_conf, run_id_for
from roceops.journal import open_journal
from roceops.lab.paths import lab_dir_option
from roceops.locking import LockHeld, fabric_lock
from roceops.report.files import write_atomic
from roceops.topology.sharding import Shard, shard_names

if TYPE_CHECKING:
    from roceops.audit.engine import run_audit
else:
    def run_audit(*args: Any, **kwargs: Any) -> Any:
        """roceops.audit.engine.run_audit, imported on first call (CLI start-up time; tests replace this name)."""
        from roceops.audit.engine import run_audit as real

        return real(*args, **kwargs)


class AuditFormat(StrEnum):
    table = "table"
    json = "json"
    junit = "junit"
    prometheus = "prometheus"
    markdown = "markdown"
    html = "html"


def audit(
    ctx: typer.Context,
    fabric: Path = FabricOption,
    limit: str | None = LimitOption,
    lab: bool = LabOption,
    fmt: AuditFormat = typer.Option(AuditFormat.table, "--format"),
    output: Path | None = typer.Option(None, "--output", "-o", help="write the report here (atomically)",
                                       parser=path_value),
    timeout: float = typer.Option(30.0, "--timeout", min=0.1, help="seconds to wait for any one device answer"),
    workers: int = typer.Option(64, "--workers", min=1, help="devices read in parallel"),
    journal: Path | None = JournalOption,
    shard: Shard | None = ShardOption,
    run_id_opt: str | None = RunIdOption,
    topology_conf: Path | None = typer.Option(None, "--topology-conf", help="also check the scheduler's "
                                              "topology.conf against the cabling plan (schedule.topology)",
                                              parser=path_value),
) -> None:
    """Read every device (read-only) and report where it differs from intent.

    Exit 0 no drift, 1 drift, 2 some devices unreachable or unparsable.
    Example (cron): roceops audit --format prometheus --output /var/lib/node_exporter/roceops.prom
    """
    from roceops.audit import report as reports
    from roceops.audit.checks import merge
    from roceops.audit.engine import AuditOptions
    from roceops.audit.history import record
    from roceops.report import json_doc
    from roceops.report.shards import identity, with_identity

    loaded = load_fabric_or_exit(fabric_for(ctx, fabric, lab))
    check_writable(output)
    check_connection_settings()
    chosen = [d.name for d in selected(loaded.fabric, limit)]
    names = shard_names(loaded.fabric, chosen, shard) if shard else chosen
    conf = read_topology_conf(topology_conf) if topology_conf else None
    shared_run_id = run_id_for(shard, run_id_opt, "")
    check_lab_serves(loaded, names, lab)
    quiet = fmt is not AuditFormat.table or not sys.stderr.isatty()
    opts = AuditOptions(workers=workers, timeout_s=timeout, lab_dir=lab_dir_option(lab), quiet=quiet,
                        hint_context=hint_context(ctx, loaded.source.file, carry=("fabric", "lab")))
    name = loaded.fabric.intent.name
    try:
        with fabric_lock(StateDir, name, f"audit-shard{shard.index}of{shard.count}" if shard else "audit"), \
                open_journal(journal) as j:
            run_id = j.start_run("audit", name, loaded.source.source_hash, {"limit": limit, "lab": lab},
                                 device_count=len(names))
            with run_gc():
                result = run_audit(loaded.fabric, names, opts)
            if conf is not None and topology_conf is not None:
                result.findings = merge(result.findings + conf_findings(loaded.fabric, conf, topology_conf, names,
                                                                        opts.hint_context))
            resolved = record(j, name, run_id, names, result.findings)
            j.finish_run(run_id, f"{len(result.findings)} findings", result.exit_code)
        run = identity(loaded.source.source_hash, shared_run_id or run_id, shard, chosen, names)
    except LockHeld as exc:
        fail(str(exc), Exit.BAD_INPUT)
    if fmt is AuditFormat.table:
        if output:
            write_atomic(output, reports.to_markdown(result, resolved))
        reports.print_table(console, result, resolved)
    else:
        text = {
            AuditFormat.json: lambda: json_doc.to_json(result.findings,
                                                       with_identity(reports.run_of(result, resolved), run)),
            AuditFormat.junit: lambda: reports.to_junit(result),
            AuditFormat.markdown: lambda: reports.to_markdown(result, resolved),
            AuditFormat.html: lambda: audit_html(ctx, result, loaded.fabric),
            AuditFormat.prometheus: lambda: reports.to_prometheus(
                result, reports.previous_success(output) if output else None),
        }[fmt]()
        if output:
            write_atomic(output, text)
        else:
            sys.stdout.write(text)
    raise typer.Exit(result.exit_code)


def __getattr__(name: str) -> Any:
    """``reports`` (roceops.audit.report), imported on first use (CLI start-up time; tests patch its functions here)."""
    if name == "reports":
        from roceops.audit import report

        return report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
