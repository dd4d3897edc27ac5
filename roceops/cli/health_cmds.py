"""health: pre-job checks of nodes and their leaf ports, for a Slurm prolog or HealthCheckProgram."""

from __future__ import annotations

import os
import sys
import uuid
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from roceops.cli.common import (
    Exit,
    FabricOption,
    check_connection_settings,
    check_writable,
    console,
    fail,
    load_fabric_or_exit,
    parse_duration,
    path_value,
)
from roceops.cli.deploy_cmds import LabOption
from roceops.cli.gc_tuning import run_gc
from roceops.cli.html_report import health_html
from roceops.cli.lab_target import check_lab_serves, fabric_for
from roceops.cli.scheduler_cmds import RunIdOption, ShardOption, run_id_for
from roceops.health.defaults import BER_MAX, PAUSE_RATE_MAX, TRAFFIC_MIN_FRACTION
from roceops.lab.paths import lab_dir_option
from roceops.report.files import write_atomic
from roceops.topology.sharding import Shard, shard_nodes

if TYPE_CHECKING:
    from roceops.health.engine import run_health
else:
    def run_health(*args: Any, **kwargs: Any) -> Any:
        """roceops.health.engine.run_health, imported on first call (CLI start-up time; tests replace this name)."""
        from roceops.health.engine import run_health as real

        return real(*args, **kwargs)


class HealthFormat(StrEnum):
    table = "table"
    json = "json"
    html = "html"


def health(
    ctx: typer.Context,
    nodes: str | None = typer.Argument(None, help="Slurm host list (gpu[001-032,040]); default $SLURM_JOB_NODELIST"),
    fabric: Path = FabricOption,
    lab: bool = LabOption,
    window: float = typer.Option("5s", "--window", parser=parse_duration, metavar="DURATION",
                                 help="time between the two counter samples"),
    deadline: float = typer.Option("30s", "--deadline", parser=parse_duration, metavar="DURATION",
                                   help="answer by then, whatever the devices do"),
    fmt: HealthFormat = typer.Option(HealthFormat.table, "--format"),
    drain_file: Path | None = typer.Option(None, "--drain-file", help="write 'node reason' lines for nodes to drain",
                                           parser=path_value),
    pause_rate_max: float = typer.Option(PAUSE_RATE_MAX, "--pause-rate-max", min=0, help="pause frames/s"),
    ber_max: float = typer.Option(BER_MAX, "--ber-max", min=0,
                                  help="bit error ratio bound for CRC errors"),
    traffic: bool = typer.Option(False, "--traffic", help="also ib_write_bw between the nodes on each rail (ring, "
                                                          "same rail; skipped without perftest or with one node)"),
    traffic_min_fraction: float = typer.Option(TRAFFIC_MIN_FRACTION, "--traffic-min-fraction",
                                               min=0.01, max=1.0,
                                               help="--traffic fails a rail below this fraction of its link speed"),
    all_nodes: bool = typer.Option(False, "--all", help="every GPU node of the fabric (a whole-cluster sweep)"),
    shard: Shard | None = ShardOption,
    run_id_opt: str | None = RunIdOption,
    counters_from: str | None = typer.Option(
        None, "--counters-from", metavar="URL",
        help="read the leaves' counters from this Prometheus (fed by `roceops telemetry`) instead of logging "
             "into them; the leaves' configuration is then not checked (leaf.port skipped)"),
) -> None:
    """Are these nodes and their leaf ports healthy enough for RoCE? Exit 0 ok, 1 drain some, 2 incomplete.

    Example (Slurm prolog): roceops health "$SLURM_JOB_NODELIST" --deadline 30s --drain-file /run/roceops.drain
    """
    import hostlist

    from roceops.health import report as reports
    from roceops.health.engine import HealthOptions
    from roceops.health.model import Thresholds
    from roceops.report import json_doc
    from roceops.report.shards import identity, with_identity

    spec = nodes or (None if all_nodes else os.environ.get("SLURM_JOB_NODELIST"))
    if all_nodes and nodes:
        fail("--all checks every node: pass either a host list or --all")
    if not spec and not all_nodes:
        fail("no host list: pass one (gpu[001-032]), --all, or set SLURM_JOB_NODELIST")
    try:
        names = hostlist.expand_hostlist(spec) if spec else []
    except hostlist.BadHostlist as exc:
        fail(f"bad host list {spec!r}: {exc}")
    run_id = run_id_for(shard, run_id_opt, uuid.uuid4().hex[:12])
    loaded = load_fabric_or_exit(fabric_for(ctx, fabric, lab))
    chosen = [h.name for h in loaded.fabric.hosts] if all_nodes else names
    names = shard_nodes(loaded.fabric, chosen, shard) if shard else chosen
    check_writable(drain_file)
    check_connection_settings()
    known = {d.name: d for d in loaded.fabric.devices()}
    leaves = [nic.leaf for n in names if n in known for nic in getattr(known[n], "nics", [])]
    check_lab_serves(loaded, list(dict.fromkeys([n for n in names if n in known] + leaves)), lab)
    if counters_from is not None and not counters_from.startswith(("http://", "https://")):
        fail(f"--counters-from {counters_from!r}: expected the Prometheus base URL, http://HOST:PORT")
    opts = HealthOptions(window_s=window, deadline_s=deadline, counters_from=counters_from,
                         thresholds=Thresholds(pause_rate_max=pause_rate_max, ber_max=ber_max,
                                                     traffic_min_fraction=traffic_min_fraction),
                         lab_dir=lab_dir_option(lab), traffic=traffic)
    try:
        with run_gc():
            report = run_health(loaded.fabric, names, opts)
    except KeyError as exc:
        fail(str(exc.args[0]) if exc.args else str(exc))
    if drain_file is not None:
        write_atomic(drain_file, reports.drain_lines(report))
    if fmt is HealthFormat.json:
        run = with_identity(reports.run_of(report),
                            identity(loaded.source.source_hash, run_id, shard, chosen, report.nodes))
        sys.stdout.write(json_doc.to_json([r for r in report.results if r.status != "ok"], run))
    elif fmt is HealthFormat.html:
        sys.stdout.write(health_html(ctx, report, loaded.fabric))
    else:
        reports.print_table(console, report)
    raise typer.Exit(report.exit_code if report.exit_code in (0, 1, 2) else int(Exit.BAD_INPUT))


def __getattr__(name: str) -> Any:
    """``reports`` (roceops.health.report), imported on first use (start-up time; tests patch its functions here)."""
    if name == "reports":
        from roceops.health import report

        return report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
