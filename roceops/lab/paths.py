"""Where the lab keeps its state, and how commands find it with ``--lab``."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_LAB_DIR = Path(".roceops/lab")


def lab_dir() -> Path:
    env = os.environ.get("ROCEOPS_LAB_DIR")
    return Path(env) if env else DEFAULT_LAB_DIR


def lab_dir_option(use_lab: bool) -> Path | None:
    return lab_dir() if use_lab else None
