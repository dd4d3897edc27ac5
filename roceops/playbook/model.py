"""Playbook schema: an ordered list of steps, each one roceops command with its options."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from roceops.model.types import StrictModel

Command = Literal["validate", "render", "deploy", "audit", "health", "rollback", "history", "topology", "cabling",
                  "lab.up", "lab.down", "lab.inject", "lab.clear"]

# Options that write to devices, and the value that makes each step read-only under --dry-run.
READ_ONLY: dict[str, dict[str, Any]] = {"deploy": {"commit": False}, "rollback": {"commit": False}}


class Step(StrictModel):
    name: Annotated[str, Field(min_length=1, description="what the step does, shown as it runs")]
    run: Command
    args: list[str] = Field(default_factory=list, description="positional arguments (e.g. a run id, a host list)")
    options: dict[str, str | int | float | bool | None] = Field(
        default_factory=dict, description="command options without dashes: {commit: true, batch: '25%'}")
    ok_exit: list[int] = Field(default_factory=lambda: [0], description="exit codes that let the play go on")

    @field_validator("args")
    @classmethod
    def _positional_only(cls, args: list[str]) -> list[str]:
        for arg in args:
            positional_only(arg)
        return args

    @field_validator("options")
    @classmethod
    def _option_names(cls, options: dict[str, Any]) -> dict[str, Any]:
        for key in options:
            if not OPTION_NAME.fullmatch(key):
                raise ValueError(f"option name {key!r} is not like commit, max_fail or drain_file")
        return options


OPTION_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


def positional_only(arg: str) -> str:
    """An argument that looks like an option (``--commit``) would bypass ``options`` and ``--dry-run``: refuse it."""
    if arg.startswith("-"):
        raise ValueError(f"argument {arg!r} looks like an option: put options under 'options:' (they are checked, "
                         "and --dry-run can make them read-only)")
    return arg


class Playbook(StrictModel):
    kind: Literal["roceops/playbook/v1"] = "roceops/playbook/v1"
    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    vars: dict[str, str | int | float | bool] = Field(default_factory=dict,
                                                       description="defaults for {{ var }} in args and options")
    steps: Annotated[list[Step], Field(min_length=1)]
