"""The switch-profile catalogue on disk: one ``<hwsku>.json`` per SKU, looked up by name."""

from __future__ import annotations

import errno
import os
import stat
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from roceops.hardware.models import SwitchProfile

CATALOGUE_ENV = "ROCEOPS_HARDWARE_CATALOGUE"
SHIPPED_CATALOGUE = Path(__file__).parent / "catalogue"
_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)  # what Path.is_file() takes for "no file"


class UnknownSwitchProfile(LookupError):
    """No catalogue holds a profile of that name."""


def catalogue_dirs() -> tuple[Path, ...]:
    """User directories from ``ROCEOPS_HARDWARE_CATALOGUE`` first, then the shipped catalogue."""
    extra = [Path(p) for p in os.environ.get(CATALOGUE_ENV, "").split(os.pathsep) if p]
    return (*extra, SHIPPED_CATALOGUE)


@lru_cache(maxsize=64)
def _load(path: Path, mtime_ns: int) -> SwitchProfile:
    try:
        return SwitchProfile.model_validate_json(path.read_text())  # JSON mode: arrays are tuples under strict
    except ValidationError as exc:
        raise ValueError(f"{path}: not a roceops switch profile ({exc})") from None


def switch_profile_names() -> list[str]:
    """Every profile name the catalogues hold, sorted."""
    return sorted({p.stem for d in catalogue_dirs() if d.is_dir() for p in d.glob("*.json")})


def switch_profile(name: str) -> SwitchProfile:
    """The profile of hwsku ``name``; :class:`UnknownSwitchProfile` (with the known names) when none has it."""
    for directory in catalogue_dirs():
        path = directory / f"{name}.json"
        try:
            found = path.stat()  # one stat: is it a file, and its mtime (planning asks for every switch)
        except OSError as exc:  # not here: the next catalogue; other errors raise, both as Path.is_file() does
            if exc.errno in _NOT_THERE:
                continue
            raise
        if stat.S_ISREG(found.st_mode):
            return _load(path, found.st_mtime_ns)
    known = ", ".join(switch_profile_names()) or "none"
    raise UnknownSwitchProfile(
        f"no switch hardware profile {name!r} (known: {known}); add one with "
        f"'roceops hardware import <sku dir> --out <dir>/{name}.json' and {CATALOGUE_ENV}=<dir>")
