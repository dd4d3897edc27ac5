"""Render many devices into a build folder with a manifest. The only file I/O of rendering."""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from roceops.device.change import RenderedDevice
from roceops.parallel import fork_map
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.templating import environment, render_device
from roceops.topology.fabric import Fabric, Host, Switch
from roceops.util.safe_write import WriteRefused, create_file, make_folder, replace_file, write_file

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


def _write_if_changed(path: Path, data: str | bytes) -> bool:
    return write_file(path, data, only_if_changed=True)  # only onto a regular file or a new path (WriteRefused)


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
    """One device's folder, checked: what the folder held before (empty: new or missing), the file names checked."""

    path: Path
    existing: dict[str, os.DirEntry[str]]
    names: frozenset[str]


def _checked_folder(out_dir: Path, root: Path, device: str, names: Iterable[str],
                    top: dict[str, os.DirEntry[str]] | None = None) -> _DeviceFolder:
    """The device's folder, refused (UnsafePath) unless it resolves inside ``root``; one ``resolve`` and one
    directory listing per device instead of a ``resolve`` per file. A file that is a symbolic link already is
    checked on its own, as before: it must resolve inside the build folder too. ``top``, the build folder's
    listing, spares the ``resolve`` of a plain name that is no symbolic link there: it is ``root / device``."""
    folder = out_dir / device
    plain = top is not None and "/" not in device and device not in ("", ".", "..") \
        and not (device in top and top[device].is_symlink())
    if not plain and ((resolved := folder.resolve()) == root or not resolved.is_relative_to(root)):
        raise UnsafePath(f"refusing to write {folder}: it resolves to {resolved}, outside {root}")
    unlisted = plain and top is not None and device not in top  # not in the build folder's listing: no folder yet
    try:
        existing = {} if unlisted else {e.name: e for e in os.scandir(folder)}
    except (FileNotFoundError, NotADirectoryError):  # not there yet; a file in its place fails when written
        existing = {}
    names = frozenset(names)
    for name in names:
        if "/" in name or (name in existing and existing[name].is_symlink()):
            inside(out_dir, device, name)
    return _DeviceFolder(path=folder, existing=existing, names=names)


_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # never a link; never wait on a FIFO


def _holds(path: Path, data: bytes) -> bool:
    """Whether the regular file at ``path`` holds exactly ``data``: one open and one read of a byte more than
    ``data`` (a longer file reads differently), no stat and no Python file object. False when it cannot be read."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return False  # the write that follows says why, if it fails too
    try:
        return os.read(fd, len(data) + 1) == data
    except OSError:
        return False
    finally:
        os.close(fd)


def _write_folder(folder: _DeviceFolder, files: list[tuple[str, bytes]]) -> tuple[int, int]:
    """(written, unchanged) for one checked device folder and its files (name, bytes), in order: made once (a
    non-folder there is refused), each file rewritten only if its bytes differ (:func:`_holds`). A path that holds
    anything but a regular file (a link, FIFO, device, folder), or a file in a subfolder, goes through the per-file
    writer, which refuses the former (WriteRefused)."""
    if not folder.existing:
        make_folder(folder.path)
    written = unchanged = 0
    for name, data in files:
        path = folder.path / name
        entry = folder.existing.get(name)
        if "/" in name or (entry is not None and not entry.is_file(follow_symlinks=False)):
            changed = _write_if_changed(path, data)
        else:
            changed = entry is None or not _holds(path, data)
            if entry is None:
                create_file(path, data)
            elif changed:
                replace_file(path, data)
        written += changed
        unchanged += not changed
    return written, unchanged


def _manifest_text(fabric_name: str, source_hash: str, entries: list[tuple[str, str, dict[str, str]]]) -> str:
    """``manifest.json``'s text from (device, platform, file hashes) entries."""
    body = {
        "fabric": fabric_name,
        "fabric_sha256": source_hash,
        "devices": [{"device": d, "platform": p, "files": h} for d, p, h in sorted(entries, key=lambda e: e[0])],
    }
    return json.dumps(body, indent=2, sort_keys=True) + "\n"


def write_build(out_dir: Path, fabric_name: str, source_hash: str, rendered: list[RenderedDevice]) -> BuildResult:
    """One folder per device plus ``manifest.json``; files are rewritten only when their bytes change.

    Every path is checked before anything is written, so a refused one (UnsafePath) leaves the folder as it was.
    """
    root = out_dir.resolve()
    folders = [(_checked_folder(out_dir, root, r.name, r.files),
                [(name, text.encode()) for name, text in sorted(r.files.items())]) for r in rendered]
    manifest_path = inside(out_dir, MANIFEST)
    written = unchanged = 0
    for folder, files in folders:
        w, u = _write_folder(folder, files)
        written, unchanged = written + w, unchanged + u
    body = _manifest_text(fabric_name, source_hash, [(r.name, r.platform, r.hashes()) for r in rendered])
    _write_if_changed(manifest_path, body)
    return BuildResult(out_dir=out_dir, devices=rendered, written=written, unchanged=unchanged)


class DeviceFailed(Exception):
    """A device could not be rendered or written while the build streamed: one line naming it and why. Plain
    text, because exceptions with their own constructors do not survive the way back from a forked worker."""


@dataclass(frozen=True)
class StreamedBuild:
    """What :func:`render_build` wrote: devices rendered, files written and unchanged (manifest not counted)."""

    out_dir: Path
    devices: int
    written: int
    unchanged: int


class _Gate:
    """Writing waits for the parent's word (lint passed), made before the workers fork: rendering starts at
    once, and nothing is written until ``open`` is called; after ``close``, a worker stops before writing."""

    def __init__(self) -> None:
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        self._decided, self._ok = ctx.Event(), ctx.Value("b", 0, lock=False)
        self._open = False  # this process has seen it open: no more waiting
        self._parent = os.getpid()

    def decide(self, ok: bool) -> None:
        self._ok.value = int(ok)
        self._decided.set()

    def wait(self) -> bool:
        if not self._open:
            while not self._decided.wait(timeout=1.0):
                if os.getppid() != self._parent:  # the parent died before deciding: write nothing
                    return False
            self._open = bool(self._ok.value)
        return self._open


class _Stopped(Exception):
    """A worker found the gate closed (lint failed): it writes nothing."""


def _render_and_write(fabric: Fabric, name: str, folder: _DeviceFolder, gate: _Gate
                      ) -> tuple[str, str, dict[str, str], int, int]:
    """Plan, render and, once the gate is open, write one device into its checked folder; (device, platform,
    file hashes, written, unchanged). Every failure is a :class:`DeviceFailed`."""
    try:
        rendered = render_device(plan(fabric, name))
        if unchecked := sorted(set(rendered.files) - folder.names):  # the platform's outputs were checked
            raise UnsafePath(f"{name}: files {unchecked} were not among the paths checked before writing")
        files = [(f, text.encode()) for f, text in sorted(rendered.files.items())]
        if not gate.wait():
            raise _Stopped
        written, unchanged = _write_folder(folder, files)
    except _Stopped:
        raise
    except (UnsafePath, WriteRefused) as exc:
        raise DeviceFailed(str(exc)) from None
    except OSError as exc:
        raise DeviceFailed(f"cannot write {folder.path}: {exc.strerror or exc}") from None
    except Exception as exc:  # a planning or template error: named, never a traceback from a worker
        raise DeviceFailed(f"cannot render {name}: {exc}") from None
    hashes = {f: hashlib.sha256(data).hexdigest() for f, data in files}
    return rendered.name, rendered.platform, hashes, written, unchanged


def render_build(fabric: Fabric, devices: list[Switch | Host], out_dir: Path, source_hash: str,
                 workers: int | None = None, check: Callable[[], bool] | None = None) -> StreamedBuild | None:
    """Plan, render and write every device, then ``manifest.json``: :func:`render_devices` and
    :func:`write_build` in one pass, each worker writing the folders of the devices it renders (so writing
    overlaps rendering and only file hashes travel back).

    ``check`` (lint) runs in this process while the workers render; they write nothing until it has returned
    True. When it returns False nothing is written and the result is None. Every path is checked before anything
    is rendered (UnsafePath), as in :func:`write_build`; a device that fails later (DeviceFailed) leaves the
    manifest as it was, but folders written before it stay written: pass a ``check`` that finds the render
    errors beforehand (lint's HDRM003 and HW001), else render first with :func:`render_devices`.
    """
    root = out_dir.resolve()
    outputs = {p: [o.filename for o in get_platform(p).outputs] for p in {d.platform for d in devices}}
    try:
        top = {e.name: e for e in os.scandir(out_dir)}
    except (FileNotFoundError, NotADirectoryError):
        top = {}
    folders = {d.name: _checked_folder(out_dir, root, d.name, outputs[d.platform], top) for d in devices}
    manifest_path = inside(out_dir, MANIFEST)
    if len(devices) >= PARALLEL_THRESHOLD:
        for platform in outputs:
            warm_templates(platform)  # compile once here; forked workers inherit the compiled templates
    gate = _Gate()

    def decide() -> None:
        ok = False
        try:
            ok = check() if check is not None else True
        finally:  # a check that raised closes the gate too: no worker waits for ever
            gate.decide(ok)
        if not ok:
            raise _Stopped

    try:
        done = fork_map(lambda n: _render_and_write(fabric, n, folders[n], gate), [d.name for d in devices],
                        min_items=PARALLEL_THRESHOLD, workers=workers, meanwhile=decide)
    except _Stopped:
        return None
    _write_if_changed(manifest_path, _manifest_text(fabric.intent.name, source_hash, [e[:3] for e in done]))
    return StreamedBuild(out_dir=out_dir, devices=len(done), written=sum(e[3] for e in done),
                         unchanged=sum(e[4] for e in done))


def write_folder(out_dir: Path, folder: str, files: dict[str, str]) -> tuple[int, int]:
    """Write ``files`` (name -> text) under ``out_dir/folder``, each only when its bytes change; (written, unchanged).

    Paths are checked before anything is written, as in :func:`write_build`.
    """
    targets = [(inside(out_dir, folder, name), text) for name, text in sorted(files.items())]
    written = sum(_write_if_changed(path, text) for path, text in targets)
    return written, len(targets) - written
