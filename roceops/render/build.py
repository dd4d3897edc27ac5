"""Render many devices into a build folder with a manifest. The only file I/O of rendering."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from roceops.device.change import RenderedDevice
from roceops.parallel import fork_map
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.templating import environment, render_device
from roceops.topology.fabric import Fabric, Host, Switch
from roceops.util.safe_write import write_file

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class BuildResult:
    out_dir: Path
    devices: list[RenderedDevice]
    written: int  # files whose bytes changed
    unchanged: int


PARALLEL_THRESHOLD = 256  # below this, starting worker processes costs more than it saves


def warm_templates(platform: str) -> None:
    """Compile the platform's templates, the included sections too (forked workers inherit them compiled)."""
    env = environment(platform)
    for out in get_platform(platform).outputs:
        env.get_template(out.template)
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)


def render_devices(fabric: Fabric, devices: Iterable[Switch | Host],
                   workers: int | None = None) -> list[RenderedDevice]:
    """Plan and render every device, in order. Large fabrics use one forked process per core.

    Rendering is pure CPU work with no shared state, so forked workers (which inherit the
    expanded fabric copy-on-write) scale it across cores; results come back in input order.
    """
    names = [d.name for d in devices]
    if len(names) >= PARALLEL_THRESHOLD:
        for platform in {d.platform for d in fabric.devices()}:
            warm_templates(platform)  # compile once here; forked workers inherit the compiled templates
    return fork_map(lambda n: render_device(plan(fabric, n)), names, min_items=PARALLEL_THRESHOLD, workers=workers)


def manifest(fabric_name: str, source_hash: str, rendered: list[RenderedDevice]) -> dict[str, object]:
    return {
        "fabric": fabric_name,
        "fabric_sha256": source_hash,
        "devices": [
            {"device": r.name, "platform": r.platform, "files": r.hashes()}
            for r in sorted(rendered, key=lambda r: r.name)
        ],
    }


def _write_if_changed(path: Path, text: str) -> bool:
    return write_file(path, text, only_if_changed=True)  # only onto a regular file or a new path (WriteRefused)


class UnsafePath(ValueError):
    """A rendered file would land outside the build folder (a device name or symlink pointing elsewhere)."""


def inside(out_dir: Path, *parts: str) -> Path:
    """``out_dir / parts``, refused unless it resolves (symlinks followed) to a place inside ``out_dir``."""
    root = out_dir.resolve()
    path = out_dir.joinpath(*parts)
    resolved = path.resolve()
    if resolved == root or not resolved.is_relative_to(root):
        raise UnsafePath(f"refusing to write {path}: it resolves to {resolved}, outside {root}")
    return path


def write_build(out_dir: Path, fabric_name: str, source_hash: str, rendered: list[RenderedDevice]) -> BuildResult:
    """One folder per device plus ``manifest.json``; files are rewritten only when their bytes change.

    Every path is checked before anything is written, so a refused one (UnsafePath) leaves the folder as it was.
    """
    targets = [(inside(out_dir, r.name, name), text) for r in rendered for name, text in sorted(r.files.items())]
    manifest_path = inside(out_dir, MANIFEST)
    written = unchanged = 0
    for path, text in targets:
        if _write_if_changed(path, text):
            written += 1
        else:
            unchanged += 1
    body = json.dumps(manifest(fabric_name, source_hash, rendered), indent=2, sort_keys=True) + "\n"
    _write_if_changed(manifest_path, body)
    return BuildResult(out_dir=out_dir, devices=rendered, written=written, unchanged=unchanged)


def write_folder(out_dir: Path, folder: str, files: dict[str, str]) -> tuple[int, int]:
    """Write ``files`` (name -> text) under ``out_dir/folder``, each only when its bytes change; (written, unchanged).

    Paths are checked before anything is written, as in :func:`write_build`.
    """
    targets = [(inside(out_dir, folder, name), text) for name, text in sorted(files.items())]
    written = sum(_write_if_changed(path, text) for path, text in targets)
    return written, len(targets) - written
