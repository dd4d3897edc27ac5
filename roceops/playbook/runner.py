"""Run a playbook: each step invokes the same command function as the CLI, in order; a failing step stops the play.

``--dry-run`` forces every step read-only (deploy and rollback lose ``--commit``). Values may
use ``{{ var }}`` from the playbook's ``vars`` and ``--var key=value`` (StrictUndefined: an
unknown variable is an error naming the step).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jinja2

from roceops.playbook.model import READ_ONLY, Playbook, Step, positional_only

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)


class PlayError(ValueError):
    """A playbook problem found before or while running (bad variable, unknown option)."""


@dataclass
class StepOutcome:
    step: str
    command: str
    argv: list[str]
    exit_code: int
    seconds: float


@dataclass
class PlayResult:
    playbook: str
    steps: list[StepOutcome] = field(default_factory=list)
    stopped_at: str | None = None

    @property
    def exit_code(self) -> int:
        return self.steps[-1].exit_code if self.stopped_at and self.steps else 0


def _render(value: Any, variables: dict[str, Any], step: Step) -> Any:
    if not isinstance(value, str) or "{{" not in value:
        return value
    try:
        return _ENV.from_string(value).render(**variables)
    except jinja2.TemplateError as exc:
        raise PlayError(f"step {step.name!r}: {exc}") from None


def accepted_options(cli: Any, command: str) -> set[str]:
    """Option names (python style) the subcommand accepts, to pass the play's common options only where they fit.

    ``cli`` is the click-style command tree typer builds (typer vendors its own click, so this duck-types).
    """
    node: Any = cli
    for part in command.split("."):
        node = (getattr(node, "commands", None) or {}).get(part)
        if node is None:
            raise PlayError(f"unknown command {command!r}")
    return {p.name for p in node.params if p.name}


def step_argv(step: Step, variables: dict[str, Any], common: dict[str, Any], dry_run: bool,
              accepted: set[str] | None = None) -> list[str]:
    """The exact command line this step runs (common = fabric/limit/lab given to `roceops play`)."""
    shared = {k: v for k, v in common.items() if v not in (None, False) and (accepted is None or k in accepted)}
    options = {**shared, **step.options}
    if dry_run and step.run in READ_ONLY:
        options.update(READ_ONLY[step.run])
    argv = step.run.split(".")
    argv += [_positional(str(_render(a, variables, step)), step) for a in step.args]
    for key, raw in options.items():
        value = _render(raw, variables, step)
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else f"--no-{key.replace('_', '-')}" if key not in ("commit", "lab") else "")
        elif value is not None:
            argv += [flag, str(value)]
    return [a for a in argv if a]


def _positional(arg: str, step: Step) -> str:
    """An argument after {{ var }} substitution (``--var x=--commit``) is still positional only."""
    try:
        return positional_only(arg)
    except ValueError as exc:
        raise PlayError(f"step {step.name!r}: {exc}") from None


def run_playbook(book: Playbook, cli: Any, variables: dict[str, Any], common: dict[str, Any],
                 dry_run: bool, say: Callable[[str], None]) -> PlayResult:
    merged = {**book.vars, **variables}
    result = PlayResult(playbook=book.name)
    for index, step in enumerate(book.steps, 1):
        argv = step_argv(step, merged, common, dry_run, accepted_options(cli, step.run))
        say(f"[{index}/{len(book.steps)}] {step.name}: roceops {' '.join(argv)}")
        start = time.monotonic()
        code = invoke(cli, argv)
        result.steps.append(StepOutcome(step.name, step.run, argv, code, time.monotonic() - start))
        if code not in step.ok_exit:
            result.stopped_at = step.name
            say(f"step {step.name!r} exited {code}: play stopped")
            break
    return result


def invoke(cli: Any, argv: list[str]) -> int:
    """Run one CLI command in-process and return its exit code."""
    try:
        returned = cli.main(args=argv, prog_name="roceops", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else 3
    except Exception as exc:  # click's Exit / UsageError (typer vendors click: matched by shape, not class)
        code = getattr(exc, "exit_code", None)
        if code is None:
            raise
        if type(exc).__name__ != "Exit" and hasattr(exc, "show"):
            exc.show()
            return 3
        return int(code)
    return returned if isinstance(returned, int) else 0
