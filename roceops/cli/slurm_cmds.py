"""``roceops slurm healthcheck|prolog``: RoCE health of the local node, run by slurmd.

- ``healthcheck`` is slurm.conf's ``HealthCheckProgram``: it checks this node and drains it through Slurm
  (``scontrol update ... State=DRAIN Reason="roceops: <check> <detail>"``) when a check fails; when the node is
  healthy again and roceops had drained it, it resumes it (never a drain someone else set).
- ``prolog`` is slurm.conf's ``Prolog``: the same check under a shorter deadline, and it never calls a Slurm
  command (slurm.conf(5) on Prolog: "should not call Slurm commands"); a failed check exits 1, on which slurmd
  drains the node ("Prolog error") and requeues the job (seen with Debian's 22.05 here).

slurmd runs both with an almost empty environment (HealthCheckProgram: only SLURMD_NODENAME), so the shipped
wrappers in playbooks/slurm/ read their settings (ROCEOPS_FABRIC, SLURM_CONF, PATH...) from a file; every option
here also reads the environment variable its help names. A node that cannot be checked (a leaf that does not
answer) is left alone by default: a switch's management outage must not drain every node behind it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from roceops.cli.common import Exit, err_console, fail, load_fabric_or_exit
from roceops.cli.gc_tuning import run_gc
from roceops.cli.lab_target import check_lab_serves
from roceops.lab.paths import lab_dir_option

if TYPE_CHECKING:  # imported where used (CLI start-up time: tests/cli/test_startup_imports.py)
    from roceops.health.engine import HealthReport

app = typer.Typer(help="Health inside Slurm: HealthCheckProgram and Prolog for the local node.",
                  no_args_is_help=True)

SCONTROL_TIMEOUT_S = 10.0  # one scontrol call; slurmctld answers in well under a second when it is up
# slurm.conf(5), 22.05: slurmd kills a HealthCheckProgram that runs past 60 s; 30 s + start-up + scontrol fits
HEALTHCHECK_DEADLINE_S = 30.0
# slurm.conf(5), 22.05, Prolog: "expected to complete execution quickly (in less time than MessageTimeout)",
# whose default is 10 s; 6 s of checks + ~2 s of Python start-up stays under it
PROLOG_DEADLINE_S = 6.0

FabricEnv = typer.Option(Path("/etc/roceops/fabric.yaml"), "-f", "--fabric", envvar="ROCEOPS_FABRIC",
                         help="fabric intent YAML")
NodeEnv = typer.Option(None, "--node", envvar="SLURMD_NODENAME",
                       help="this node's Slurm name (else the short host name)")
FabricNodeEnv = typer.Option(None, "--fabric-node", envvar="ROCEOPS_FABRIC_NODE",
                             help="this node's name in the fabric, when it differs from its Slurm name")
LabEnv = typer.Option(False, "--lab", envvar="ROCEOPS_LAB", help="check against the running lab")


def _check(fabric: Path, node: str | None, fabric_node: str | None, lab: bool, deadline: float,
           window: float) -> tuple[str, HealthReport]:
    """(Slurm node name, health report of its fabric node)."""
    from roceops.health.engine import HealthOptions, run_health

    slurm_node = node or socket.gethostname().split(".")[0]
    target = fabric_node or slurm_node
    loaded = load_fabric_or_exit(fabric)
    host = next((h for h in loaded.fabric.hosts if h.name == target), None)
    if host is None:
        fail(f"{target} is not a GPU node of fabric {loaded.fabric.intent.name} ({fabric}); set --fabric-node "
             "(ROCEOPS_FABRIC_NODE) to this node's name in the fabric")
    check_lab_serves(loaded, [target, *dict.fromkeys(n.leaf for n in host.nics)], lab)
    opts = HealthOptions(window_s=window, deadline_s=deadline, lab_dir=lab_dir_option(lab))
    with run_gc():
        return slurm_node, run_health(loaded.fabric, [target], opts)


def _scontrol(argv: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=SCONTROL_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        fail(f"{' '.join(argv[:3])} failed: {exc}", Exit.UNREACHABLE)


@app.command("healthcheck")
def healthcheck(
    fabric: Path = FabricEnv,
    node: str | None = NodeEnv,
    fabric_node: str | None = FabricNodeEnv,
    lab: bool = LabEnv,
    deadline: float = typer.Option(HEALTHCHECK_DEADLINE_S, "--deadline", min=1.0, envvar="ROCEOPS_HEALTHCHECK_DEADLINE",
                                   help="seconds; under 60 (slurmd kills it then) and HealthCheckInterval"),
    window: float = typer.Option(2.0, "--window", min=0.1, help="seconds between the two counter samples"),
    scontrol: str = typer.Option("scontrol", "--scontrol", envvar="ROCEOPS_SCONTROL", help="scontrol to run"),
    resume: bool = typer.Option(True, "--resume/--no-resume", help="resume the node when healthy again, if "
                                                                   "roceops drained it"),
    drain_unknown: bool = typer.Option(False, "--drain-unknown", help="also drain a node that could not be checked"),
) -> None:
    """HealthCheckProgram: check this node; drain it through Slurm when a check fails.

    Exit 0 healthy (resumed if roceops had drained it), 1 drained, 2 not checked (left as it is), 3 bad input.
    Example (slurm.conf): HealthCheckProgram=/etc/slurm/roceops-healthcheck.sh
    """
    from roceops.health.slurm import drain_command, drain_reason, drained_by_roceops, resume_command, show_node_command

    slurm_node, report = _check(fabric, node, fabric_node, lab, deadline, window)
    verdict = report.verdicts[0]
    if verdict.status == "drain" or (verdict.status == "unknown" and drain_unknown):
        reason = drain_reason(verdict)
        done = _scontrol(drain_command(scontrol, slurm_node, reason))
        if done.returncode != 0:
            fail(f"scontrol could not drain {slurm_node}: {done.stderr.strip()}", Exit.UNREACHABLE)
        err_console.print(f"{slurm_node}: drained: {reason}", markup=False)
        raise typer.Exit(int(Exit.FINDINGS))
    if verdict.status == "unknown":
        err_console.print(f"{slurm_node}: not checked, left as it is: {'; '.join(verdict.reasons)}", markup=False)
        raise typer.Exit(int(Exit.UNREACHABLE))
    if resume:
        shown = _scontrol(show_node_command(scontrol, slurm_node))
        if shown.returncode == 0 and drained_by_roceops(shown.stdout):
            done = _scontrol(resume_command(scontrol, slurm_node))
            if done.returncode != 0:
                fail(f"scontrol could not resume {slurm_node}: {done.stderr.strip()}", Exit.UNREACHABLE)
            err_console.print(f"{slurm_node}: healthy again, resumed", markup=False)


@app.command("prolog")
def prolog(
    fabric: Path = FabricEnv,
    node: str | None = NodeEnv,
    fabric_node: str | None = FabricNodeEnv,
    lab: bool = LabEnv,
    deadline: float = typer.Option(PROLOG_DEADLINE_S, "--deadline", min=1.0, envvar="ROCEOPS_PROLOG_DEADLINE",
                                   help="seconds; with start-up, under MessageTimeout"),
    window: float = typer.Option(1.0, "--window", min=0.1, help="seconds between the two counter samples"),
    fail_unknown: bool = typer.Option(False, "--fail-unknown", help="also fail when the node could not be checked"),
) -> None:
    """Prolog: check this node before a job starts; exit 1 on a failed check (Slurm drains the node and
    requeues the job). Calls no Slurm command.

    Exit 0 healthy or not checked (unless --fail-unknown), 1 failed, 3 bad input.
    Example (slurm.conf): Prolog=/etc/slurm/roceops-prolog.sh
    """
    from roceops.health.slurm import drain_reason

    slurm_node, report = _check(fabric, node, fabric_node, lab, deadline, window)
    verdict = report.verdicts[0]
    if verdict.status == "drain" or (verdict.status == "unknown" and fail_unknown):
        # stderr goes to slurmd's log; Slurm itself records "Prolog error" as the drain reason
        sys.stderr.write(f"{slurm_node} job {os.environ.get('SLURM_JOB_ID', '?')}: {drain_reason(verdict)}\n")
        raise typer.Exit(int(Exit.FINDINGS))
    if verdict.status == "unknown":
        sys.stderr.write(f"{slurm_node}: not checked, job allowed: {'; '.join(verdict.reasons)}\n")
