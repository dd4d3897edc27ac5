"""Readers for the sonic-buildimage SKU files, one small function per file format.

Formats, as sonic-buildimage `device/<vendor>/<platform>/<hwsku>/` ships them (snapshot
086b03bd70f9e211aaaf5f6aefe0790b508d2a94, copies in ../shared/reference/hardware/sonic/skus/):

* ``port_config.ini``: ``# name lanes alias index [speed ...]`` header, then one whitespace
  separated row per port (lanes comma separated); some SKUs (Mellanox-SN4700-O32) have no speed
  column, the speed then comes from the port's hwsku.json breakout mode.
* ``hwsku.json``: ``{"interfaces": {<port>: {"default_brkout_mode": "2x400G[200G,...]"}}}``.
* ``platform.json``: ``{"interfaces": {<port>: {"lanes": "0,1,...", "index": "1,1,...",
  "breakout_modes": {<mode>: [aliases]}}}}``; a mode is ``<n>x<speed>G[(<lanes>)][[alt,...]]``.
* ``pg_profile_lookup.ini``: ``speed cable size xon xoff threshold [xon_offset]`` rows.

Every reader raises :class:`SkuFileError` naming the file, line and what is wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from roceops.hardware.models import BreakoutMode, LosslessPgEntry

_MODE_RE = re.compile(r"^(\d+)x(\d+)G(?:\((\d+)\))?(?:\[([0-9G,\s]*)\])?$")
_PORT_COLUMNS = ("name", "lanes", "alias", "index")


class SkuFileError(ValueError):
    """A vendor SKU file is missing or not in the format sonic-buildimage uses."""


def _speed(text: str, where: str) -> int:
    m = re.fullmatch(r"(\d+)G", text.strip())
    if not m:
        raise SkuFileError(f"{where}: speed {text!r} is not like 400G")
    return int(m.group(1)) * 1000


def _ints(text: str, where: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise SkuFileError(f"{where}: {text!r} is not a comma-separated list of integers") from None


def parse_breakout_mode(name: str, cage_lanes: int, aliases: list[str], where: str) -> BreakoutMode:
    """``2x400G[200G,100G]`` -> 2 ports of 400G (or 200G/100G), cage lanes / 2 lanes each.

    >>> m = parse_breakout_mode("4x25G(4)[10G,1G]", 8, ["a", "b", "c", "d"], "x")
    >>> (m.ports, m.speed, m.speeds, m.lanes_per_port)
    (4, 25000, (25000, 10000, 1000), 1)
    """
    m = _MODE_RE.match(name.strip())
    if not m:
        raise SkuFileError(f"{where}: breakout mode {name!r} is not like 2x400G[200G,100G] or 1x400G(8)")
    ports, speed = int(m.group(1)), int(m.group(2)) * 1000
    used_lanes = int(m.group(3)) if m.group(3) else cage_lanes
    alts = tuple(_speed(s, where) for s in m.group(4).split(",") if s.strip()) if m.group(4) else ()
    return BreakoutMode(name=name, ports=ports, speed=speed, speeds=(speed, *alts),
                        lanes_per_port=max(1, used_lanes // ports), aliases=tuple(aliases))


def read_port_config(path: Path) -> list[dict[str, Any]]:
    """Rows of ``port_config.ini`` as dicts with the header's column names (lanes/index/speed as ints)."""
    columns: tuple[str, ...] = ()
    rows: list[dict[str, Any]] = []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            words = tuple(line.lstrip("#").split())
            if words[:4] == _PORT_COLUMNS:
                columns = words
            continue
        if not columns:
            raise SkuFileError(f"{path}:{lineno}: port row before the '# name lanes alias index' header")
        values = line.split()
        if len(values) < 4:
            raise SkuFileError(f"{path}:{lineno}: needs at least name, lanes, alias, index; got {line!r}")
        row: dict[str, Any] = dict(zip(columns, values, strict=False))
        where = f"{path}:{lineno}"
        row["lanes"] = _ints(row["lanes"], where)
        row["index"] = _ints(row["index"], where)[0]
        if "speed" in row:
            row["speed"] = _ints(row["speed"], where)[0]
        rows.append(row)
    if not rows:
        raise SkuFileError(f"{path}: no port rows")
    return rows


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise SkuFileError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("interfaces"), dict):
        raise SkuFileError(f"{path}: no 'interfaces' object")
    return data


def read_hwsku_json(path: Path) -> dict[str, str]:
    """Port name -> its ``default_brkout_mode``."""
    out: dict[str, str] = {}
    for port, entry in _load_json(path)["interfaces"].items():
        mode = entry.get("default_brkout_mode") if isinstance(entry, dict) else None
        if not isinstance(mode, str):
            raise SkuFileError(f"{path}: interfaces.{port}.default_brkout_mode missing")
        out[port] = mode
    return out


def read_platform_json(path: Path) -> dict[str, dict[str, Any]]:
    """Cage (first port) name -> {lanes, index, breakout_modes: {mode: aliases}}."""
    out: dict[str, dict[str, Any]] = {}
    for port, entry in _load_json(path)["interfaces"].items():
        where = f"{path}: interfaces.{port}"
        if not isinstance(entry, dict) or not {"lanes", "index", "breakout_modes"} <= set(entry):
            raise SkuFileError(f"{where}: needs lanes, index and breakout_modes")
        out[port] = {"lanes": _ints(str(entry["lanes"]), where), "index": _ints(str(entry["index"]), where)[0],
                     "breakout_modes": dict(entry["breakout_modes"])}
    return out


def read_pg_profile_lookup(path: Path) -> list[LosslessPgEntry]:
    """Rows of ``pg_profile_lookup.ini`` (``#`` lines are comments)."""
    rows: list[LosslessPgEntry] = []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        f = line.split()
        if len(f) not in (6, 7):
            raise SkuFileError(f"{path}:{lineno}: expected speed cable size xon xoff threshold [xon_offset]")
        try:
            nums = [int(x) for x in (f[0], *f[2:])]
        except ValueError:
            raise SkuFileError(f"{path}:{lineno}: non-numeric field in {line!r}") from None
        rows.append(LosslessPgEntry(speed=nums[0], cable=f[1], size=nums[1], xon=nums[2], xoff=nums[3],
                                    threshold=nums[4], xon_offset=nums[5] if len(nums) == 6 else None))
    return rows
