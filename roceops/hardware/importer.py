"""Build a :class:`SwitchProfile` from a sonic-buildimage SKU folder.

The folder holds the files sonic-buildimage ships under ``device/<vendor>/<platform>/<hwsku>/``
(``port_config.ini``, ``hwsku.json``, buffer templates, ``pg_profile_lookup.ini``) plus the
platform's ``platform.json`` and a ``PLATFORM`` file with the platform folder name (or the
``platform`` argument). Every file read is listed in ``sources`` with its sha256 and its path as
given (run from the repository root, the shipped catalogue records ``../shared/...`` paths).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from roceops.hardware.asics import FAMILY_FEATURES, PLATFORM_ASICS, QOS_CAPABILITY_KEY, vendor_of
from roceops.hardware.buffer_templates import read_buffer_spec
from roceops.hardware.models import (
    UNCONFIRMED,
    BufferSpec,
    Cage,
    FeatureFlags,
    MtuRange,
    Sourced,
    SourceFile,
    SwitchPort,
    SwitchProfile,
    VendorManagedBuffers,
)
from roceops.hardware.sku_files import (
    SkuFileError,
    parse_breakout_mode,
    read_hwsku_json,
    read_pg_profile_lookup,
    read_platform_json,
    read_port_config,
)

TOPOLOGIES = ("t0", "t1")
_PLATFORM_NAME = re.compile(r"[a-z0-9_]+-[a-z0-9_]+-r\d+")
# sonic-port.yang (../shared/sonic-yang/sonic-port.yang, PORT mtu: uint16 range 68..9216).
SONIC_MTU = MtuRange(min=68, max=9216, source="sonic-net/sonic-buildimage src/sonic-yang-models/yang-models/"
                     "sonic-port.yang (PORT/mtu range 68..9216)")


class _Reader:
    """Reads files of one SKU folder and remembers each one's sha256."""

    def __init__(self, sku_dir: Path) -> None:
        self.sku_dir = sku_dir
        self.sources: list[SourceFile] = []

    def path(self, name: str, required: bool = True, platform_level: bool = False) -> Path | None:
        """``sku_dir/name``; for ``platform_level`` files also the platform folder above it (sonic-buildimage's
        device/<vendor>/<platform>/platform.json next to <platform>/<hwsku>/)."""
        p = self.sku_dir / name
        if platform_level and not p.is_file() and (self.sku_dir.parent / name).is_file():
            p = self.sku_dir.parent / name
        if not p.is_file():
            if required:
                raise SkuFileError(f"{p}: missing (a SONiC SKU folder needs {name})")
            return None
        self.sources.append(SourceFile(path=p.as_posix(), sha256=hashlib.sha256(p.read_bytes()).hexdigest()))
        return p

    def has(self, name: str) -> bool:
        """Whether ``name`` was read (it is in ``sources``)."""
        return any(Path(s.path).name == name for s in self.sources)


def _cages(platform_json: dict[str, dict[str, Any]], defaults: dict[str, str], where: str) -> list[Cage]:
    cages: list[Cage] = []
    for name, entry in platform_json.items():
        modes = tuple(parse_breakout_mode(m, len(entry["lanes"]), list(aliases), f"{where}: {name}")
                      for m, aliases in entry["breakout_modes"].items())
        cages.append(Cage(name=name, index=entry["index"], lanes=entry["lanes"], breakout_modes=modes,
                          default_breakout=defaults.get(name)))
    return cages


def _cage_of(lanes: tuple[int, ...], cages: list[Cage]) -> Cage | None:
    return next((c for c in cages if set(lanes) <= set(c.lanes)), None)


def _ports(rows: list[dict[str, Any]], cages: list[Cage], defaults: dict[str, str], where: str) -> list[SwitchPort]:
    ports: list[SwitchPort] = []
    for row in rows:
        cage = _cage_of(row["lanes"], cages)
        if cage is None:
            raise SkuFileError(f"{where}: {row['name']} lanes {row['lanes']} belong to no platform.json port")
        mode_name = defaults.get(row["name"]) or cage.default_breakout
        mode = cage.mode(mode_name) if mode_name else None
        if mode is None:
            raise SkuFileError(f"{where}: {row['name']}: hwsku.json mode {mode_name!r} is not a platform.json "
                               f"breakout mode of {cage.name}")
        speed = row.get("speed", mode.speed)
        if speed not in mode.speeds:
            raise SkuFileError(f"{where}: {row['name']} speed {speed} is not a speed of mode {mode.name}")
        ports.append(SwitchPort(name=row["name"], lanes=row["lanes"], alias=row["alias"], index=row["index"],
                                speed=speed, speeds=mode.speeds, cage=cage.name,
                                breakout_modes=tuple(m.name for m in cage.breakout_modes)))
    return ports


def _features(asic: Sourced, reader: _Reader) -> FeatureFlags:
    base = FAMILY_FEATURES.get(asic.value, FeatureFlags.unconfirmed())
    qos_caps = reader.path("platform_qos.json", required=False)
    if qos_caps is None:
        return base
    caps = json.loads(qos_caps.read_text()).get(QOS_CAPABILITY_KEY, {})
    if str(caps.get("roce_hash", "")).lower() != "true":
        return base
    sources = dict(base.sources, udf_hash=f"{reader.sources[-1].path} {QOS_CAPABILITY_KEY} roce_hash=true")
    return base.model_copy(update={"udf_hash": True, "sources": sources})


def _buffers(reader: _Reader, pg_rows: list[Any]) -> tuple[dict[str, BufferSpec], VendorManagedBuffers | None]:
    """The buffers of each topology's template; vendor-managed when no template renders a pool (never invented)."""
    specs: dict[str, BufferSpec] = {}
    empty: list[str] = []
    for name in ("buffers_defaults_objects.j2", "buffers_dynamic.json.j2", "buffer_ports.j2"):
        reader.path(name, required=False)
    for topo in TOPOLOGIES:
        template = f"buffers_defaults_{topo}.j2"
        if reader.path(template, required=False) is not None:
            spec = read_buffer_spec(reader.sku_dir, template, pg_rows)
            if spec is None:
                empty.append(template)
            else:
                specs[topo] = spec
    if specs:
        return specs, None
    reason = (f"{' and '.join(empty)} render no BUFFER_POOL/BUFFER_PROFILE" if empty
              else "the SKU ships no buffers_defaults_<topo>.j2")
    rows = "" if pg_rows else "; pg_profile_lookup.ini has no rows" if reader.has("pg_profile_lookup.ini") else ""
    return specs, VendorManagedBuffers(reason=f"{reason}{rows}: the image leaves buffers to the ASIC configuration")


def _platform_name(reader: _Reader) -> str:
    """The ``PLATFORM`` file's text, else the parent folder name if it is a platform (x86_64-<vendor>_<model>-r<n>)."""
    platform_file = reader.path("PLATFORM", required=False)
    if platform_file is not None:
        return platform_file.read_text().strip()
    parent = reader.sku_dir.resolve().parent.name
    if _PLATFORM_NAME.fullmatch(parent):
        return parent
    raise SkuFileError(f"{reader.sku_dir}: no PLATFORM file and the parent folder {parent!r} is not a platform "
                       "name; pass --platform")


def import_sku(sku_dir: Path, platform: str | None = None, asic_family: str | None = None) -> SwitchProfile:
    """Read one SKU folder into a profile (the hwsku is the folder name)."""
    if not sku_dir.exists():
        raise SkuFileError("no such folder")
    if not sku_dir.is_dir():
        raise SkuFileError("not a folder (give the SKU folder holding port_config.ini and hwsku.json)")
    reader = _Reader(sku_dir)
    platform = platform or _platform_name(reader)
    asic = Sourced(value=asic_family, source="given to the importer") if asic_family else PLATFORM_ASICS.get(
        platform, Sourced(value="unknown", source=UNCONFIRMED))
    port_config = reader.path("port_config.ini")
    hwsku_json = reader.path("hwsku.json")
    platform_json = reader.path("platform.json", platform_level=True)
    assert port_config and hwsku_json and platform_json  # required=True raised otherwise
    defaults = read_hwsku_json(hwsku_json)
    cages = _cages(read_platform_json(platform_json), defaults, str(platform_json))
    ports = _ports(read_port_config(port_config), cages, defaults, str(port_config))
    pg_file = reader.path("pg_profile_lookup.ini", required=False)
    pg_rows = read_pg_profile_lookup(pg_file) if pg_file else []
    buffers, vendor_managed = _buffers(reader, pg_rows)
    features = _features(asic, reader)
    return SwitchProfile(name=sku_dir.name, vendor=vendor_of(sku_dir.name), platform=platform, asic_family=asic,
                         ports=tuple(ports), cages=tuple(cages), buffers=buffers,
                         vendor_managed_buffers=vendor_managed, mtu=SONIC_MTU,
                         features=features, sources=tuple(reader.sources))
