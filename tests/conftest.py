"""Shared test plumbing: paths, the example fabrics, and the --update-golden flag."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = SHARED / "fixtures"
GOLDEN = REPO / "tests" / "golden"
EXAMPLES = {"fabric": REPO / "inventory" / "fabric.yaml", "lab-mini": REPO / "inventory" / "lab-mini.yaml",
            "fabric-800g": REPO / "inventory" / "fabric-800g.yaml"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files from the current output instead of comparing")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def example_dict(name: str) -> dict:
    return yaml.safe_load(EXAMPLES[name].read_text())


def check_golden(path: Path, text: str, update: bool) -> None:
    """Compare ``text`` with the committed golden file; rewrite it only with --update-golden."""
    if update or not path.exists():
        if not update:
            pytest.fail(f"golden file {path.relative_to(REPO)} is missing: run pytest --update-golden and review")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    expected = path.read_text()
    assert text == expected, f"{path.relative_to(REPO)} differs: review, then run pytest --update-golden"
