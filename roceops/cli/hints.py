"""The options of the running command that every hint it prints must carry (see :mod:`roceops.hints`)."""

from __future__ import annotations

from pathlib import Path

import typer

from roceops.cli.common import DEFAULT_FABRIC
from roceops.cli.lab_target import given
from roceops.hints import Context, command

ALL = ("fabric", "lab", "journal")


def hint_context(ctx: typer.Context, fabric: Path | None = None, carry: tuple[str, ...] = ALL) -> Context:
    """``-f FILE`` (the fabric actually used, unless it is the default one and none was given), ``--lab``,
    ``--journal FILE``, as this command was given them; ``carry`` names those the hinted command takes."""
    params = ctx.params
    out: list[str] = []
    used = fabric if fabric is not None else params.get("fabric")
    explicit = given(ctx, "fabric")
    if "fabric" in carry and used is not None and (explicit or Path(used) != DEFAULT_FABRIC):
        out += ["-f", str(used)]
    if "lab" in carry and params.get("lab"):
        out.append("--lab")
    if "journal" in carry and params.get("journal"):
        out += ["--journal", str(params["journal"])]
    return tuple(out)


def run_command(ctx: typer.Context, *args: str, fabric: Path | None = None, carry: tuple[str, ...] = ALL) -> str:
    """A hint: ``roceops ARGS`` with this command's options (:func:`hint_context`)."""
    return command(*args, context=hint_context(ctx, fabric, carry))
