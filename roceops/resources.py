"""Files roceops ships besides its code: the config templates and the example fabric of the demo and the lab.

The repository keeps one copy of each, at the top level (``templates/``, ``inventory/lab-mini.yaml``). A wheel
carries them as data files under ``<prefix>/share/roceops/`` (``[tool.setuptools.data-files]`` in pyproject.toml),
found again through the installed distribution's file list, so a plain ``pip install``/``pipx install`` works from
any working directory. A source checkout (or an editable install) uses the repository's own files.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import metadata
from pathlib import Path

TEMPLATES_ENV = "ROCEOPS_TEMPLATES"
DATA_PREFIX = ("share", "roceops")  # where the wheel's data files land, under the install prefix
EXAMPLE_FABRIC = "inventory/lab-mini.yaml"
_CHECKOUT = Path(__file__).resolve().parents[1]  # the repository, when running from a checkout


class MissingResource(FileNotFoundError):
    """A file roceops ships is not where the checkout or the installed package should have it."""


def templates_dir() -> Path:
    """``$ROCEOPS_TEMPLATES``, else the checkout's ``templates/``, else the installed copy."""
    override = os.environ.get(TEMPLATES_ENV)
    if override:
        return Path(override)
    return shipped("templates")


def example_fabric() -> Path:
    """The small every-platform fabric ``roceops demo`` and ``roceops lab up`` use when not given ``-f``."""
    return shipped(EXAMPLE_FABRIC)


def shipped(relative: str) -> Path:
    """A shipped file or folder (``templates``, ``inventory/lab-mini.yaml``) from the checkout or the install."""
    local = _CHECKOUT / relative
    if local.exists() and (_CHECKOUT / "pyproject.toml").is_file():
        return local
    root = _installed_root()
    if root is not None and (root / relative).exists():
        return root / relative
    raise MissingResource(f"roceops cannot find its {relative}: not in {_CHECKOUT} and not installed under "
                          f"{'/'.join(DATA_PREFIX)} (reinstall roceops, or set {TEMPLATES_ENV} for templates)")


@lru_cache(maxsize=1)
def _installed_root() -> Path | None:
    """``<prefix>/share/roceops`` of the installed distribution, from its RECORD (any install scheme)."""
    try:
        files = metadata.distribution("roceops").files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        parts = file.parts
        for i in range(len(parts) - len(DATA_PREFIX)):
            if parts[i:i + len(DATA_PREFIX)] == DATA_PREFIX:
                return Path(str(file.locate())).resolve().parents[len(parts) - i - len(DATA_PREFIX) - 1]
    return None
