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


def test_import_contracts_are_kept() -> None:
    # contracts in pyproject.toml [tool.importlinter]: product never imports the lab, devices never import
    # product parsers/drivers/render, rooms independent, each simulated device layered (no import circles)
    lint_imports = Path(sys.executable).with_name("lint-imports")
    if not lint_imports.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    result = subprocess.run([str(lint_imports)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, f"lint-imports exited {result.returncode}:\n{result.stdout}{result.stderr}"


def test_product_contract_names_every_top_level_package() -> None:
    """A new top-level package is product code unless it is the CLI, the demo or the lab: the contract lists it."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    product = next(c for c in contracts if "roceops.lab" in c.get("forbidden_modules", [])
                   and c["type"] == "forbidden" and "roceops.lab.devices" not in c["source_modules"])
    package = ROOT / "roceops"
    top_level = {f"roceops.{p.stem}" for p in package.iterdir()
                 if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert top_level - {"roceops.cli", "roceops.demo", "roceops.lab"} == set(product["source_modules"])
