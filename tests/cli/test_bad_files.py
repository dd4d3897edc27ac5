"""Issue 14 defects 12 and 13: a journal that is not a roceops journal, and an output that cannot be written, are
bad input (exit 3) with a message; an unwritable output is refused before any device is contacted."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import no_devices  # noqa: F401  (fixture)
from conftest import EXAMPLES
from typer.testing import CliRunner

from roceops.cli.main import app

runner = CliRunner()
MINI = str(EXAMPLES["lab-mini"])


def _bad_input(args: list[str], *words: str) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 3, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output, result.output
    for word in words:
        assert word in result.output, result.output
    return result.output


@pytest.mark.parametrize("content", [b"hello, not a database\n", b"\x00" * 4096])
def test_history_with_a_file_that_is_not_a_journal(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "journal.sqlite"
    path.write_bytes(content)
    _bad_input(["history", "--journal", str(path)], str(path), "not a roceops journal")
    assert path.read_bytes() == content  # left as it was


def test_history_with_a_journal_that_cannot_be_opened(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _bad_input(["history", "--journal", str(blocker / "j.sqlite")], "cannot open the journal")
    _bad_input(["history", "--journal", str(tmp_path)], "cannot open the journal")


def test_an_empty_journal_file_is_a_new_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    path.touch()
    assert runner.invoke(app, ["history", "--journal", str(path)]).exit_code == 0


def _unwritable(tmp_path: Path) -> list[Path]:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    return [blocker / "x.prom", tmp_path, Path("/proc/roceops-no-such-dir/x.prom")]


def test_audit_output_that_cannot_be_written(tmp_path: Path, no_devices: None) -> None:
    for output in _unwritable(tmp_path):
        for fmt in ("prometheus", "table"):
            _bad_input(["audit", "-f", MINI, "--format", fmt, "--output", str(output)], "cannot write", str(output))


def test_health_drain_file_that_cannot_be_written(tmp_path: Path, no_devices: None) -> None:
    for output in _unwritable(tmp_path):
        _bad_input(["health", "gpu001", "-f", MINI, "--drain-file", str(output)], "cannot write")


@pytest.mark.parametrize("command", [["render"], ["inventory", "export"], ["demo"]])
def test_output_folders_that_cannot_be_written(tmp_path: Path, command: list[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out in (blocker, blocker / "sub", Path("/proc/roceops-no-such-dir")):
        _bad_input([*command, "-f", MINI, "--out", str(out)], "cannot write", str(out))
