"""Entry point: ``roceops`` (typer app assembling the command modules)."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from roceops import __version__
from roceops.cli import (
    audit_cmds,
    demo_cmds,
    deploy_cmds,
    fabric_cmds,
    hardware_cmds,
    health_cmds,
    inventory_cmds,
    lab_cmds,
    plan_cmds,
    play_cmds,
    scheduler_cmds,
    slurm_cmds,
    telemetry_cmds,
    verify_cmds,
)
from roceops.cli.common import Exit, fail
from roceops.journal import JournalError
from roceops.util.safe_write import WriteRefused

# click's ClickException (every usage error derives from it), found from typer's public BadParameter so this works
# whether typer uses click or its vendored copy.
_CLICK_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class UsageErrorsExit3(TyperGroup):
    """The root command group: every usage error of any command or subcommand (unknown option, bad value or choice,
    missing argument, a BadParameter raised by a command) exits 3, not click's 2 (which we use for unreachable);
    so does a journal file that is not a roceops journal, whichever command opens it, and an output file that
    cannot be written (WriteRefused: not a regular file, or ENOSPC, EACCES, EROFS ...), never exit 1 "drift".

    Sub-commands are parsed and run inside the root's ``invoke``, so these two hooks see every such error.
    """

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _CLICK_ERROR as exc:
            exc.exit_code = int(Exit.BAD_INPUT)  # type: ignore[attr-defined]
            raise

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _CLICK_ERROR as exc:
            exc.exit_code = int(Exit.BAD_INPUT)  # type: ignore[attr-defined]
            raise
        except (JournalError, WriteRefused) as exc:
            fail(str(exc))


app = typer.Typer(
    name="roceops",
    cls=UsageErrorsExit3,
    help="Model, render, push and audit RoCEv2 lossless backend fabrics for AI training clusters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"roceops {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="print the version"),
) -> None:
    """roceops: one fabric.yaml -> validated topology, configs, safe pushes, audits and health checks."""


app.command()(fabric_cmds.validate)
app.command()(fabric_cmds.topology)
app.command()(fabric_cmds.cabling)
app.command()(fabric_cmds.intent)
app.command()(fabric_cmds.render)
app.command()(deploy_cmds.deploy)
app.command()(deploy_cmds.history)
app.command()(deploy_cmds.rollback)
app.command()(audit_cmds.audit)
app.command()(health_cmds.health)
app.command()(demo_cmds.demo)
app.command()(play_cmds.play)
app.command()(scheduler_cmds.merge)
app.command()(telemetry_cmds.telemetry)
app.add_typer(inventory_cmds.app, name="inventory")
app.add_typer(lab_cmds.app, name="lab")
app.add_typer(hardware_cmds.app, name="hardware")
app.add_typer(plan_cmds.app, name="plan")
app.add_typer(verify_cmds.app, name="verify")
app.add_typer(slurm_cmds.app, name="slurm")

if __name__ == "__main__":
    app()
