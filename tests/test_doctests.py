"""Every docstring example in the package runs (the shared helpers in roceops/util must have some)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import roceops

MODULES = sorted(m.name for m in pkgutil.walk_packages(roceops.__path__, "roceops.") if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert not result.failed, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_shared_helpers_have_examples() -> None:
    from roceops.util import sorting

    finder = doctest.DocTestFinder()
    tested = {t.name.rsplit(".", 1)[-1] for t in finder.find(sorting) if t.examples}
    assert set(sorting.__all__) <= tested


def test_public_api_functions_have_examples() -> None:
    """``roceops.api``: load, expand, plan, render and compare (at least), each with a docstring example (run by
    test_docstring_examples above)."""
    from roceops import api

    finder = doctest.DocTestFinder()
    tested = {t.name.rsplit(".", 1)[-1] for t in finder.find(api) if t.examples}
    assert {"load", "expand", "plan", "render", "compare"} <= set(api.__all__)
    assert set(api.__all__) <= tested
    assert all(callable(getattr(api, name)) for name in api.__all__)
