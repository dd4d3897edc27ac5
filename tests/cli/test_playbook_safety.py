"""A playbook step cannot smuggle an option past `options:` and `--dry-run`: `args: ["--commit"]` (or a variable
that becomes one) would make a dry-run play commit. Both are bad input (exit 3) before any step runs."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.playbook.model import Step
from roceops.playbook.runner import step_argv

runner = CliRunner()


def _play(tmp_path: Path, args: str, *extra: str) -> tuple[int, str]:
    book = tmp_path / "book.yaml"
    book.write_text(f"name: sneaky\nsteps:\n  - name: push\n    run: deploy\n    args: {args}\n")
    result = runner.invoke(app, ["play", str(book), "--dry-run", "-f", str(tmp_path / "none.yaml"), *extra])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_an_option_in_args_is_refused_at_load(tmp_path: Path) -> None:
    code, output = _play(tmp_path, '["--commit"]')
    assert code == 3 and "book.yaml:5:" in output and "looks like an option" in output, output
    assert "[1/1]" not in output  # no step ran


def test_a_variable_that_becomes_an_option_is_refused(tmp_path: Path) -> None:
    code, output = _play(tmp_path, '["{{ x }}"]', "--var", "x=--commit")
    assert code == 3 and "looks like an option" in output, output


def test_dry_run_never_passes_commit() -> None:
    step = Step(name="push", run="deploy", options={"commit": True, "canary": 2})
    argv = step_argv(step, {}, {"fabric": "f.yaml"}, dry_run=True)
    assert "--commit" not in argv and argv[:1] == ["deploy"], argv


def test_option_names_are_checked(tmp_path: Path) -> None:
    book = tmp_path / "book.yaml"
    book.write_text("name: sneaky\nsteps:\n  - name: push\n    run: deploy\n    options: {'lab --commit': true}\n")
    result = runner.invoke(app, ["play", str(book), "--dry-run"])
    assert result.exit_code == 3 and "option name 'lab --commit'" in result.output, result.output
