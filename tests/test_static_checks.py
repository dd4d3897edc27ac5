"""The repository stays lint-clean (``ruff check .``) and type-clean (``mypy roceops``, plus the example room)."""

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
    # plus the test suite's example room: a new room written like it must satisfy the Driver protocol
    _assert_clean(_run_tool("mypy", "roceops", "tests/platforms/tinynos"))


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
    top_level = _top_level()
    assert top_level - {"roceops.cli", "roceops.demo", "roceops.lab"} == set(product["source_modules"])


def _top_level() -> set[str]:
    """Every top-level package or module of roceops (``roceops.<name>``)."""
    package = ROOT / "roceops"
    return {f"roceops.{p.stem}" for p in package.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}


def test_every_top_level_package_is_in_a_layer() -> None:
    """The layers contract (pyproject.toml) places every top-level package or module: a new one must be given its
    layer (../shared/DESIGN.md: cli/demo on top, the device model at the bottom)."""
    import re
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    house = next(c for c in contracts if c["type"] == "layers" and c.get("containers") == ["roceops"])
    placed = [f"roceops.{name.strip()}" for layer in house["layers"] for name in re.split(r"[|:]", layer)]
    assert len(placed) == len(set(placed)), "a package is in two layers"
    assert _top_level() - set(placed) == set(), "top-level packages in no layer of the house contract"
    assert set(placed) - _top_level() == set(), "the house contract names packages that do not exist"
    assert house["layers"][0] == "cli" and house["layers"][-1].startswith("device")


def test_no_import_circles_between_top_level_packages() -> None:
    """No two top-level packages import each other, directly or through others (strongly connected components of
    the package graph, from grimp, the graph import-linter builds)."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install -e '.[dev]')")
    graph = grimp.build_graph("roceops", cache_dir=None)
    tops = sorted(_top_level())
    edges: dict[str, set[str]] = {t: set() for t in tops}
    for importer in tops:
        for imported in tops:
            if importer != imported and graph.direct_import_exists(importer=importer, imported=imported,
                                                                   as_packages=True):
                edges[importer].add(imported)

    def reaches(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reach = {t: reaches(t) for t in tops}
    circles = sorted({tuple(sorted((a, b))) for a in tops for b in reach[a] if a in reach[b]})
    assert circles == [], f"top-level packages that import each other (directly or through others): {circles}"
    assert edges["roceops.cli"], "the graph is empty: grimp found no imports"
