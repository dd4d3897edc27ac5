"""The repository stays lint-clean (``ruff check .``) and type-clean (``mypy roceops``; see pyproject.toml)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[dev]')")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


def _assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    command = " ".join(result.args[2:])  # [python, -m, tool, ...]
    assert result.returncode == 0, f"{command} exited {result.returncode}:\n{result.stdout}{result.stderr}"


def test_ruff_check_is_clean() -> None:
    _assert_clean(_run_tool("ruff", "check", "."))


def test_mypy_is_clean() -> None:
    # the default .mypy_cache in the repository root (git-ignored): a warm run takes well under a second
    _assert_clean(_run_tool("mypy", "roceops"))
