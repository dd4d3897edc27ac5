"""Issue 24: bounded input. ``-f`` is a regular file under 16 MiB (FIFOs, devices, folders, links to them: exit 3 in
under a second), a very long line is refused before the YAML scanner sees it, and a ``--limit`` with an operator
that has nothing on one side is exit 3 instead of being silently dropped."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import EXAMPLES
from hostile_paths import ZERO, char_device, fifo
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.model.loader import IntentError, loads
from roceops.util.bounded_read import MAX_INPUT_BYTES

runner = CliRunner()
MINI = EXAMPLES["lab-mini"]


def _exit_3_fast(args: list[str], *words: str, within: float = 1.0) -> str:
    started = time.process_time()  # CPU seconds: the bound is the cost of refusing, not the machine's load
    result = runner.invoke(app, args)
    took = time.process_time() - started
    assert result.exit_code == 3, (args, result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output, result.output
    assert took < within, f"{args}: {took:.2f} CPU s"
    for word in words:
        assert word in result.output, (word, result.output)
    return result.output


def test_a_fifo_folder_or_huge_file_as_fabric_is_refused_at_once(tmp_path: Path) -> None:
    pipe = fifo(tmp_path / "fabric.yaml")
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as fh:  # sparse: no disk used
        fh.truncate(MAX_INPUT_BYTES + 1)
    link = tmp_path / "link.yaml"
    link.symlink_to(pipe)
    for path, reason in ((pipe, "FIFO"), (folder, "folder"), (huge, "16 MiB"), (link, "FIFO")):
        for command in (["validate"], ["topology"], ["render", "--out", str(tmp_path / "out")]):
            _exit_3_fast([*command, "-f", str(path)], str(path), reason)


def test_a_device_node_and_a_link_to_it_are_refused_without_reading(tmp_path: Path) -> None:
    zero = char_device(tmp_path / "zero", ZERO)
    link = tmp_path / "fabric.yaml"
    link.symlink_to(zero)
    for path in (zero, link):
        _exit_3_fast(["validate", "-f", str(path)], "character device")


def test_a_2mb_comment_line_is_answered_in_under_a_second(tmp_path: Path) -> None:
    fabric = tmp_path / "fabric.yaml"
    fabric.write_text("# " + "x" * 2_000_000 + "\n" + MINI.read_text())
    _exit_3_fast(["validate", "-f", str(fabric)], f"{fabric}:1:1", "2,000,002 characters")


def test_long_lines_anywhere_and_with_any_line_break_are_refused() -> None:
    text = MINI.read_text()
    for source, line in ((text + "\r# " + "y" * 150_000 + "\n", text.count("\n") + 2),
                         (text.replace("\n", "  # " + "z" * 150_000 + "\n", 1), 1)):
        started = time.monotonic()
        with pytest.raises(IntentError, match=f":{line}:1: line {line} is"):
            loads(source)
        assert time.monotonic() - started < 1
    loads(text.replace("\n", "  # " + "z" * 5_000 + "\n", 1))  # a long but sane line is fine


@pytest.mark.parametrize("limit", ["leaf&", "&leaf", "leaf,", ",leaf", "leaf,,spine", "!", "leaf,!", "leaf&&su1"])
def test_a_dangling_limit_operator_is_exit_3(limit: str, tmp_path: Path) -> None:
    out = _exit_3_fast(["render", "-f", str(MINI), "--out", str(tmp_path / "b"), "--limit", limit], repr(limit))
    assert "nothing" in out or "no term" in out
    assert not (tmp_path / "b").exists()


def test_an_empty_intersection_says_so() -> None:
    out = _exit_3_fast(["render", "-f", str(MINI), "--limit", "spine&leaf"], "intersection spine & leaf is empty")
    assert "excluded" not in out
    _exit_3_fast(["render", "-f", str(MINI), "--limit", "leaf,!leaf"], "every match is excluded")
