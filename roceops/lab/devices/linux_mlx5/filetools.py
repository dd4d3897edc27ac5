"""Regular files of the simulated host (/etc, /usr/local/sbin, /tmp) and the coreutils that handle them:
``base64``, ``sha256sum``, ``stat -c``, ``chmod``, ``mv``, ``rm``, ``mkdir -p``.

Files are kept as (text, mode) in ``Host.files``; directories exist implicitly. Writing needs root and fails
while ``reject_config`` is active; reading a file without the "other" read bit needs root, as on Linux
(netplan files are 0600). Messages follow GNU coreutils 8.32 (Ubuntu 22.04).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import TYPE_CHECKING

from roceops.lab.devices.linux_mlx5.fs import is_store_path, store_read
from roceops.lab.devices.linux_mlx5.model import EACCES, ENOENT, FsError
from roceops.lab.devices.linux_mlx5.shell import Result, fail, program

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.shell import Shell

BASE64_WRAP = 76  # GNU base64 default line length

def _denied(sh: Shell) -> bool:
    return not sh.can_write


def _operands(argv: list[str]) -> tuple[set[str], list[str]]:
    flags = {a for a in argv[1:] if a.startswith("-") and a != "-"}
    return flags, [a for a in argv[1:] if not a.startswith("-") or a == "-"]


@program("base64")
def base64_tool(sh: Shell, argv: list[str], stdin: str) -> Result:
    """``base64 [-w0] FILE`` encodes (wrapped at 76 columns), ``base64 -d FILE`` decodes."""
    flags, paths = _operands(argv)
    text = stdin
    if paths and paths[0] != "-":
        try:
            text = store_read(sh.state, paths[0], sh.root)
        except FsError as exc:
            return fail(f"base64: {paths[0]}: {exc.strerror}")
    if flags & {"-d", "--decode"}:
        try:
            return Result(out=base64.b64decode("".join(text.split()), validate=True).decode())
        except (binascii.Error, UnicodeDecodeError):
            return fail("base64: invalid input")
    encoded = base64.b64encode(text.encode()).decode()
    if "-w0" in flags:
        return Result(out=encoded)
    lines = [encoded[i:i + BASE64_WRAP] for i in range(0, len(encoded), BASE64_WRAP)]
    return Result(out="".join(f"{line}\n" for line in lines))


@program("sha256sum")
def sha256sum(sh: Shell, argv: list[str], stdin: str) -> Result:
    _, paths = _operands(argv)
    out, err = "", ""
    for path in paths:
        try:
            text = store_read(sh.state, path, sh.root)
        except FsError as exc:
            err += f"sha256sum: {path}: {exc.strerror}\n"
            continue
        out += f"{hashlib.sha256(text.encode()).hexdigest()}  {path}\n"
    return Result(out=out, err=err, status=1 if err else 0)


@program("stat")
def stat(sh: Shell, argv: list[str], stdin: str) -> Result:
    """Only ``stat -c %a FILE`` (the permission bits in octal)."""
    if len(argv) != 4 or argv[1] != "-c" or argv[2] != "%a":
        return fail("stat: only 'stat -c %a FILE' is simulated in this lab")
    entry = sh.state.host.files.get(argv[3])
    if entry is None:
        return fail(f"stat: cannot statx '{argv[3]}': {ENOENT}")
    return Result(out=f"{entry[1]:o}\n")


@program("chmod")
def chmod(sh: Shell, argv: list[str], stdin: str) -> Result:
    _, args = _operands(argv)
    if len(args) != 2 or not all(c in "01234567" for c in args[0]):
        return fail("chmod: only 'chmod OCTAL FILE' is simulated in this lab")
    path = args[1]
    if path not in sh.state.host.files:
        return fail(f"chmod: cannot access '{path}': {ENOENT}")
    if _denied(sh):
        return fail(f"chmod: changing permissions of '{path}': Operation not permitted")
    sh.state.host.files[path] = (sh.state.host.files[path][0], int(args[0], 8))
    return Result()


@program("mv")
def mv(sh: Shell, argv: list[str], stdin: str) -> Result:
    """``mv [-f] SRC DST``: an atomic rename (rename(2) on one file system)."""
    _, args = _operands(argv)
    if len(args) != 2:
        return fail("mv: only 'mv [-f] SOURCE DEST' is simulated in this lab")
    src, dst = args
    if src not in sh.state.host.files:
        return fail(f"mv: cannot stat '{src}': {ENOENT}")
    if _denied(sh) or not is_store_path(dst):
        return fail(f"mv: cannot move '{src}' to '{dst}': {EACCES}")
    sh.state.host.files[dst] = sh.state.host.files.pop(src)
    return Result()


@program("rm")
def rm(sh: Shell, argv: list[str], stdin: str) -> Result:
    flags, paths = _operands(argv)
    err = ""
    for path in paths:
        if path not in sh.state.host.files:
            if "-f" not in flags:
                err += f"rm: cannot remove '{path}': {ENOENT}\n"
        elif _denied(sh):
            err += f"rm: cannot remove '{path}': {EACCES}\n"
        else:
            del sh.state.host.files[path]
    return Result(err=err, status=1 if err else 0)
