"""Render many devices into a build folder with a manifest. The only file I/O of rendering."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from roceops.device.change import RenderedDevice
from roceops.parallel import fork_map
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.templating import environment, render_device
from roceops.topology.fabric import Fabric, Host, Switch
from roceops.util.safe_write import make_folder, replace_file, write_file

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


@dataclass(frozen=True)
class _DeviceFolder:
    """One device's folder, checked: its files, and what the folder held before (empty: new or missing)."""

    path: Path
    files: list[tuple[str, str]]
    existing: dict[str, os.DirEntry[str]]


def _checked_folder(out_dir: Path, root: Path, device: RenderedDevice) -> _DeviceFolder:
    """The device's folder, refused (UnsafePath) unless it resolves inside ``root``; one ``resolve`` and one
    directory listing per device instead of a ``resolve`` per file. A file that is a symbolic link already is
    checked on its own, as before: it must resolve inside the build folder too."""
    folder = out_dir / device.name
    resolved = folder.resolve()
    if resolved == root or not resolved.is_relative_to(root):
        raise UnsafePath(f"refusing to write {folder}: it resolves to {resolved}, outside {root}")
    try:
        existing = {e.name: e for e in os.scandir(folder)}
    except (FileNotFoundError, NotADirectoryError):  # not there yet; a file in its place fails when written
        existing = {}
    files = sorted(device.files.items())
    for name, _ in files:
        if "/" in name or (name in existing and existing[name].is_symlink()):
            inside(out_dir, device.name, name)
    return _DeviceFolder(path=folder, files=files, existing=existing)


def _write_folder(folder: _DeviceFolder) -> tuple[int, int]:
    """(written, unchanged) for one checked device folder: made once (a non-folder there is refused), each file
    rewritten only if its bytes differ (a size check first, then the bytes). A path that holds anything but a
    regular file (a link, FIFO, device, folder), or a file in a subfolder, goes through the per-file writer,
    which refuses the former (WriteRefused)."""
    if not folder.existing:
        make_folder(folder.path)
    written = unchanged = 0
    for name, text in folder.files:
        path = folder.path / name
        entry = folder.existing.get(name)
        if "/" in name or (entry is not None and not entry.is_file(follow_symlinks=False)):
            changed = _write_if_changed(path, text)
        else:
            data = text.encode()
            changed = entry is None or entry.stat(follow_symlinks=False).st_size != len(data) \
                or path.read_bytes() != data
            if changed:
                replace_file(path, data)
        written += changed
        unchanged += not changed
    return written, unchanged


def write_build(out_dir: Path, fabric_name: str, source_hash: str, rendered: list[RenderedDevice]) -> BuildResult:
    """One folder per device plus ``manifest.json``; files are rewritten only when their bytes change.

    Every path is checked before anything is written, so a refused one (UnsafePath) leaves the folder as it was.
    """
    root = out_dir.resolve()
    folders = [_checked_folder(out_dir, root, r) for r in rendered]
    manifest_path = inside(out_dir, MANIFEST)
    written = unchanged = 0
    for folder in folders:
        w, u = _write_folder(folder)
        written, unchanged = written + w, unchanged + u
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
