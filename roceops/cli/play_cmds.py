"""play: run a reviewed YAML playbook of roceops steps."""

from __future__ import annotations

from pathlib import Path

import typer

from roceops.cli.common import Exit, console, err_console, fail, path_value


def play(
    ctx: typer.Context,
    playbook: Path = typer.Argument(..., help="playbook YAML, e.g. playbooks/provision.yaml", parser=path_value),
    fabric: Path | None = typer.Option(None, "-f", "--fabric", help="fabric intent given to every step",
                                       parser=path_value),
    limit: str | None = typer.Option(None, "--limit", "-l", help="--limit given to every step that takes one"),
    lab: bool = typer.Option(False, "--lab", help="every step that talks to devices targets the lab"),
    var: list[str] = typer.Option([], "--var", help="key=value for {{ key }} in the playbook (repeatable)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="force every step read-only (no --commit anywhere)"),
) -> None:
    """Run the steps of a playbook in order; a failing step stops the play with its exit code.

    Example: roceops play playbooks/provision.yaml -f inventory/lab-mini.yaml --lab --var canary=3
    """
    from roceops.model.loader import IntentError, load_model
    from roceops.playbook.model import Playbook
    from roceops.playbook.runner import PlayError, run_playbook

    try:
        book = load_model(playbook, Playbook)
    except IntentError as exc:
        err_console.print(str(exc), markup=False)
        raise typer.Exit(int(Exit.BAD_INPUT)) from None
    if limit is not None and not limit.replace(",", "").strip():  # blank: never "every device" for the steps that write
        fail(f"--limit {limit!r} names no device; leave --limit out to select every device")
    variables: dict[str, str] = {}
    for item in var:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"--var {item!r} is not key=value")
        variables[key] = value
    common = {"fabric": str(fabric) if fabric else None, "limit": limit, "lab": lab}
    say = lambda line: console.print(line, markup=False, highlight=False)  # noqa: E731
    say(f"play {book.name}{' (dry run)' if dry_run else ''}: {len(book.steps)} steps")
    try:
        # the root command (the whole CLI): every step runs the same command functions the CLI runs
        result = run_playbook(book, ctx.find_root().command, variables, common, dry_run, say)
    except PlayError as exc:
        fail(f"{playbook}: {exc}")
    done = len([s for s in result.steps if s.exit_code in (0,)])
    say(f"play {book.name}: {'stopped at ' + repr(result.stopped_at) if result.stopped_at else 'complete'} "
        f"({done}/{len(book.steps)} steps ok)")
    raise typer.Exit(result.exit_code)
