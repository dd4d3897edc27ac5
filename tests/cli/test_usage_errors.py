"""Issue 14 defect 14: every usage error of every command exits 3 (bad input), never click's 2 (which roceops
uses for "devices unreachable", what a Slurm prolog reads as "could not check the nodes"), and never a traceback.

The commands are discovered from the typer app, so a command added later is walked too.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from roceops.cli.common import path_value
from roceops.cli.main import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that gets past its usage check must not leave files in the repository (reports, renders)."""
    monkeypatch.chdir(tmp_path)


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, cmd in sorted(getattr(group, "commands", {}).items()):
        if getattr(cmd, "commands", None):
            yield from _commands(cmd, (*path, name))
        else:
            yield (*path, name), cmd


COMMANDS = list(_commands(get_command(app)))


def _required_args(cmd: Any) -> list[str]:
    """Placeholder values for required positional arguments, so only the option under test is wrong."""
    return ["x" for p in cmd.params if p.param_type_name == "argument" and p.required]


def _annotation(p: Any) -> Any:
    """The option's Python type (``int | None`` -> ``int``)."""
    annotation = p.type_descriptor.annotation
    members = [a for a in typing.get_args(annotation) if a is not type(None)]
    return members[0] if typing.get_origin(annotation) in (typing.Union, types.UnionType) and members else annotation


def _bad_values(cmd: Any) -> Iterator[tuple[str, str]]:
    """(option, value) pairs that the option's type must refuse: not a number, not a choice, below its minimum."""
    for p in cmd.params:
        if p.param_type_name != "option" or p.is_flag or not p.opts:
            continue
        kind = _annotation(p)
        parser = p.type_descriptor.parameter_info.parser
        if parser is path_value:  # every path option: an empty path is a usage error (issue 24)
            yield p.opts[0], ""
        elif parser is not None:  # a roceops parser (durations)
            yield p.opts[0], "5parsecs"
        elif kind in (int, float) or (isinstance(kind, type) and issubclass(kind, enum.Enum)):
            yield p.opts[0], "not-a-value"
        if p.min is not None:
            yield p.opts[0], str(p.min - 5)


def _assert_usage_error(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert isinstance(result.exception, SystemExit), (args, result.exception)
    assert result.exit_code == 3, (args, result.exit_code, result.output)
    assert "Traceback" not in result.output, (args, result.output)


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"validate", "render", "deploy", "audit", "health", "history", "rollback", "play", "demo",
            "lab up", "lab inject", "inventory export"} <= names


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_an_unknown_option_exits_3(path: tuple[str, ...], cmd: Any) -> None:
    _assert_usage_error([*path, *_required_args(cmd), "--no-such-option"])


BAD_VALUES = [([*path, *_required_args(cmd), option, value]) for path, cmd in COMMANDS
              for option, value in _bad_values(cmd)]


def test_the_walk_finds_typed_options() -> None:
    assert {(args[0], args[-2]) for args in BAD_VALUES} >= {("deploy", "--canary"), ("health", "--window"),
                                                        ("audit", "--format"), ("lab", "--port")}


@pytest.mark.parametrize("args", BAD_VALUES, ids=[" ".join(a) for a in BAD_VALUES])
def test_every_typed_option_refuses_a_bad_value_with_exit_3(args: list[str]) -> None:
    _assert_usage_error(args)


@pytest.mark.parametrize("args", [
    ["health", "gpu001", "--window", "5parsecs"],
    ["health", "gpu001", "--window", "-5s"],
    ["health", "gpu001", "--deadline", "abc"],
    ["health", "gpu001", "--traffic", "--traffic-min-fraction", "1.5"],
    ["deploy", "--canary", "-1"],
    ["deploy", "--max-fail", "-2"],
    ["audit", "--format", "xml"],
    ["no-such-command"],
    ["deploy", "--workers", "0"],
    ["audit", "--timeout", "0"],
])
def test_the_reported_usage_errors_exit_3(args: list[str]) -> None:
    _assert_usage_error(args)


def test_a_missing_argument_exits_3() -> None:
    _assert_usage_error(["intent"])
    _assert_usage_error(["lab", "inject", "leaf01"])
