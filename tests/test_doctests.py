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
