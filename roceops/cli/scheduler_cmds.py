"""Where roceops meets a scheduler: topology for Slurm and Kubernetes, sharded runs (``--shard I/N``) and
``roceops merge`` of their JSON."""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from roceops.cli.common import Exit, check_writable, err_console, fail, load_fabric_or_exit, path_value
from roceops.cli.html_report import html_run
from roceops.report.files import write_atomic
from roceops.report.formats import REPORTERS, report
from roceops.topology.sharding import Shard, parse_shard
from roceops.util.bounded_read import ReadRefused, read_regular

if TYPE_CHECKING:  # the rest is imported where used (start-up time: tests/cli/test_startup_imports.py)
    from roceops.report.result import Result, Run
    from roceops.report.shards import Shards
    from roceops.topology.fabric import Fabric
    from roceops.topology.scheduler import SlurmTopology

# run ids a scheduler gives every task of one array / indexed job (sbatch(1) OUTPUT ENVIRONMENT VARIABLES);
# ROCEOPS_RUN_ID first, which a Kubernetes Indexed Job sets from its controller uid (playbooks/k8s/)
RUN_ID_ENV = ("ROCEOPS_RUN_ID", "SLURM_ARRAY_JOB_ID")


SCHEDULER_FORMATS = ("slurm", "k8s-labels")  # topology --format values this module writes


def export_topology(fab: Fabric, fmt: str, output: Path | None) -> None:
    """``topology --format slurm`` (topology.conf) or ``--format k8s-labels`` (JSON: node -> Topograph labels)."""
    from roceops.topology.scheduler import k8s_labels, slurm_topology_conf

    text = slurm_topology_conf(fab) if fmt == "slurm" else json.dumps(k8s_labels(fab), indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)


def shard_option(text: str | None) -> Shard | None:
    """``--shard I/N`` as a typer parser: a bad spec is a usage error (exit 3)."""
    if text is None or isinstance(text, Shard):
        return text
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


ShardOption = typer.Option(None, "--shard", parser=shard_option, metavar="I/N",
                           help="work on shard I of N (1-based) of the selection only; merge the JSON with "
                                "`roceops merge` (Slurm: --shard $SLURM_ARRAY_TASK_ID/N)")
RunIdOption = typer.Option(None, "--run-id", help="identity shared by every shard of one run (default "
                                                  "$ROCEOPS_RUN_ID, else $SLURM_ARRAY_JOB_ID)")


def run_id_for(shard: Shard | None, given: str | None, fallback: str) -> str:
    """The run identity the JSON carries: ``--run-id``, else the scheduler's, else (unsharded only) the
    journal's run id. A shard without one is a usage error: its siblings could not be told apart."""
    found = given or next((v for k in RUN_ID_ENV if (v := os.environ.get(k))), None)
    if found:
        return found
    if shard is not None:
        fail(f"--shard {shard} needs a run identity shared by every shard: pass --run-id or set "
             f"{' or '.join(RUN_ID_ENV)}")
    return fallback


def read_topology_conf(path: Path) -> SlurmTopology:
    """A scheduler's ``topology.conf``, parsed; unreadable or unparsable is bad input (exit 3)."""
    from roceops.topology.scheduler import TopologyConfError, parse_topology_conf

    try:
        return parse_topology_conf(read_regular(path).decode("utf-8", errors="replace"), str(path))
    except ReadRefused as exc:  # a regular file under 16 MiB: a FIFO or device is refused, never read
        fail(f"cannot read {path}: {exc}")
    except TopologyConfError as exc:
        fail(str(exc))


def conf_findings(fab: Fabric, conf: SlurmTopology, path: Path, names: list[str],
                  hint_context: tuple[str, ...]) -> list[Result]:
    """``schedule.topology`` findings for the selected hosts (``audit --topology-conf``)."""
    from roceops.audit.scheduler_topology import topology_findings

    hosts = {h.name for h in fab.hosts}
    return topology_findings(fab, conf, [n for n in names if n in hosts], str(path), hint_context)


# every file format the shared reporters offer (roceops.report.formats.REPORTERS: html, json, junit, markdown,
# prometheus); html also draws the fabric's map, so it needs the fabric file
MergeFormat = StrEnum("MergeFormat", {name: name for name in REPORTERS})  # type: ignore[misc]


def _load(files: list[Path]) -> list[tuple[str, Any]]:
    out = []
    for f in files:
        try:
            out.append((str(f), json.loads(read_regular(f))))
        except ReadRefused as exc:  # a regular file under 16 MiB: a FIFO or device is refused, never read
            fail(f"cannot read {f}: {exc}")
        except ValueError as exc:
            fail(f"{f}: not JSON: {exc}")
    return out


def merge(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(..., help="the shards' JSON (audit or health --format json --shard I/N)",
                                       parser=path_value),
    fmt: MergeFormat = typer.Option("json", "--format"),
    output: Path | None = typer.Option(None, "--output", "-o", help="write the report here (atomically)",
                                       parser=path_value),
    fabric: Path | None = typer.Option(None, "-f", "--fabric", help="--format html: the fabric file the shards "
                                                                    "ran on (its map)", parser=path_value),
) -> None:
    """Merge the JSON of a sharded audit (or health sweep) into what one unsharded run gives.

    Files from another fabric, run or shard count are refused (exit 3).
    A missing shard is named on stderr and the exit code is at least 2 (not every device was audited).
    Otherwise the exit code is the unsharded run's: 0 clean, 1 drift, 2 some devices unreachable.
    --format html draws the fabric's map too: give the fabric file the shards ran on (-f).
    Example: roceops merge shard-*.json --format junit -o audit.xml
    """
    from roceops.report.shards import ShardMismatch, check_shards

    if fmt.value == "html" and fabric is None:
        fail("--format html draws the fabric's map: pass the fabric file the shards ran on (-f)")
    check_writable(output)
    loaded = _load(files)
    kind = "health" if loaded and isinstance(loaded[0][1], dict) and "verdicts" in loaded[0][1] else "audit"
    try:
        shards = check_shards(loaded, kind)
        results, run = _merged_audit(shards) if kind == "audit" else _merged_health(shards)
    except ShardMismatch as exc:
        fail(str(exc))
    if fabric is not None and fmt.value == "html":
        run = html_run(ctx, run, _fabric_of(fabric, shards))
    text = report(fmt.value, results, run)
    code = run.exit_code
    if shards.missing:
        err_console.print(f"merge: {len(shards.missing)} of {shards.count} shards missing from run "
                          f"{shards.run_id}: {', '.join(f'{i}/{shards.count}' for i in shards.missing)}; "
                          "their devices were not audited", markup=False)
        code = max(code, int(Exit.UNREACHABLE))
    if output:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)
    raise typer.Exit(code)


def _identity(shards: Shards) -> dict[str, Any]:
    """The merged run's identity: the run's id, no shard, and which shards were missing."""
    return {"fabric_sha256": shards.fabric_sha256,
            "run": {"id": shards.run_id, "shard": None, "selected": shards.selected,
                    "merged_shards": shards.count - len(shards.missing), "missing_shards": shards.missing}}


def _merged_audit(shards: Shards) -> tuple[list[Result], Run]:
    from roceops.audit import report as audit_reports
    from roceops.audit.merge import merge_audit
    from roceops.report.shards import with_identity

    result, resolved = merge_audit(shards)
    return result.findings, with_identity(audit_reports.run_of(result, resolved), _identity(shards))


def _merged_health(shards: Shards) -> tuple[list[Result], Run]:
    from roceops.health import report as health_reports
    from roceops.health.merge import merge_health
    from roceops.report.shards import with_identity

    merged = merge_health(shards)
    return ([r for r in merged.results if r.status != "ok"],
            with_identity(health_reports.run_of(merged), _identity(shards)))


def _fabric_of(path: Path, shards: Shards) -> Fabric:
    """The fabric file for the map: the very file the shards ran on (its sha256), else bad input."""
    loaded = load_fabric_or_exit(path)
    if loaded.source.source_hash != shards.fabric_sha256:
        fail(f"{path} (sha256 {loaded.source.source_hash[:12]}) is not the fabric file the shards ran on "
             f"(sha256 {shards.fabric_sha256[:12]})")
    return loaded.fabric
