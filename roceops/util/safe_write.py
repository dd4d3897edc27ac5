"""The one writer of every output file (reports, drain files, rendered configs, inventory files, profiles).

A file is written to a temporary file in the same folder and renamed over the target, so a reader never sees half of
it. It only ever replaces a regular file, or creates a new one: a symbolic link, FIFO, device node, socket or folder
at the target is refused (:class:`WriteRefused`), never replaced, and nothing is opened there. Symbolic links are
refused rather than followed (README "Output files"): an output path names the file roceops owns, and a link in a
shared or world-writable folder must not redirect a root-run writer elsewhere. Any OS error while writing (ENOSPC,
EACCES, EROFS, ...) is a :class:`WriteRefused` naming the path and the reason, which the CLI reports as exit 3.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from roceops.util.picklable import PicklableError

FILE_MODE = 0o644

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class WriteRefused(PicklableError):
    """An output cannot be written: ``str()`` is ``cannot write PATH: REASON``."""

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path, self.reason = str(path), reason
        super().__init__(f"cannot write {path}: {reason}")


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words (``a FIFO (named pipe)``)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def file_problem(path: Path) -> str | None:
    """Why ``path`` may not be (re)written as a file, or None. Looks at the path itself (``lstat``), opens nothing."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "it is a symbolic link; roceops replaces only regular files (give the link's target instead)"
    return f"it is {kind_of(mode)}, not a regular file"


def folder_problem(path: Path) -> str | None:
    """Why ``path`` may not be used as an output folder, or None. A link to a folder is fine: it is written into,
    never replaced (each file in it still goes through :func:`write_file`)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    return None if stat.S_ISDIR(mode) else f"it is {'a file' if stat.S_ISREG(mode) else kind_of(mode)}, not a folder"


def write_file(path: Path, data: str | bytes, *, only_if_changed: bool = False) -> bool:
    """Write ``data`` to ``path`` atomically (mode 0644); return False when ``only_if_changed`` and the bytes are the
    same already. Raises :class:`WriteRefused` for a target that is not a regular file and for any OS error."""
    path = Path(path)
    body = data.encode() if isinstance(data, str) else data
    if problem := file_problem(path):
        raise WriteRefused(path, problem)
    try:
        if only_if_changed and path.exists() and path.stat().st_size == len(body) and path.read_bytes() == body:
            return False
        _make_parents(path)
    except OSError as exc:
        raise WriteRefused(path, _reason(exc, path)) from None
    replace_file(path, body)
    return True


def replace_file(path: Path, body: bytes) -> None:
    """The atomic write of :func:`write_file`, for a caller that has checked ``path`` (:func:`file_problem`) and
    made its folder already (the render writer does both once per device folder): a temporary file in the same
    folder, mode 0644, renamed over ``path`` after ``path`` is checked again. WriteRefused as write_file."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(body)
            os.chmod(tmp, FILE_MODE)
            if problem := file_problem(path):  # again, right before the rename: something may have appeared there
                raise WriteRefused(path, problem)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise WriteRefused(path, _reason(exc, path)) from None


def create_file(path: Path, body: bytes) -> None:
    """:func:`replace_file` for a path the caller found absent (the files of a new build folder): the same atomic
    write and checks, through a temporary file named after this process (``.NAME.PID.tmp``) made with ``os.open``
    rather than :func:`tempfile.mkstemp` and a Python file object, which cost more than the write itself at ~18,000
    files (a fresh 64-SU build). Where a file of that name is left (a process that died), :func:`replace_file`."""
    tmp = f"{path.parent}{os.sep}.{path.name}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        replace_file(path, body)
        return
    except OSError as exc:
        raise WriteRefused(path, _reason(exc, path)) from None
    try:
        try:
            os.fchmod(fd, FILE_MODE)  # whatever the umask, as replace_file
            view = memoryview(body)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        if problem := file_problem(path):  # right before the rename: something may have appeared there
            raise WriteRefused(path, problem)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WriteRefused(path, _reason(exc, path)) from None
        raise


def make_folder(path: Path) -> None:
    """Create an output folder (and its parents); WriteRefused when it cannot be one."""
    if problem := folder_problem(path):
        raise WriteRefused(path, problem)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteRefused(path, _reason(exc, path)) from None


def _make_parents(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:  # a parent exists but is not a folder (or is a link to something else)
        blocker = Path(exc.filename) if exc.filename else path.parent
        raise WriteRefused(path, f"{blocker} is not a folder") from None


def _reason(exc: OSError, path: Path) -> str:
    reason = exc.strerror or str(exc)
    where = exc.filename
    if where and Path(str(where)) != path and not str(where).startswith(str(path.parent / f".{path.name}.")):
        return f"{where}: {reason}"
    return reason
