"""Entry point: ``roceops`` (typer app assembling the command modules)."""

from __future__ import annotations

import typer

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
    play_cmds,
)

app = typer.Typer(
    name="roceops",
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
app.add_typer(inventory_cmds.app, name="inventory")
app.add_typer(lab_cmds.app, name="lab")
app.add_typer(hardware_cmds.app, name="hardware")

if __name__ == "__main__":
    app()
