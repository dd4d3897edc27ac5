"""Builtins and coreutils of the lab shell: echo, cat, grep, head/tail/wc/tee, ls, mkdir/rmdir (configfs),
sudo (``sudo CMD``, ``sudo -s``/``-i``/``su -``), ``sh -c``, exit, hostname/uname/id/whoami, which, sleep."""

from __future__ import annotations

import re
from collections.abc import Callable

from roceops.lab.devices.linux_mlx5 import fs as lab_fs
from roceops.lab.devices.linux_mlx5.fs import is_store_path
from roceops.lab.devices.linux_mlx5.model import EACCES, ENOENT, FsError
from roceops.lab.devices.linux_mlx5.shell import BUILTINS, PROGRAMS, Level, Result, Shell, fail, ok
from roceops.lab.personality import CloseSession


def _echo(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    newline = True
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in args[0]
        args = args[1:]
    text = " ".join(args)
    return Result(out=text + ("\n" if newline else ""))


def _exit(sh: Shell, argv: list[str], stdin: str) -> Result:
    status = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else sh.last_status
    if len(sh.levels) > 1:
        sh.levels.pop()
        return Result(out="exit\n" if argv[0] == "exit" else "logout\n", status=status)
    raise CloseSession("logout", exit_status=status)


def _sudo(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    shell = login = False
    while args and args[0].startswith("-") and args[0] != "--":
        opt = args.pop(0)
        if opt in ("-u", "-g", "-C", "-p"):
            if args:
                args.pop(0)
            continue
        shell = shell or "s" in opt
        login = login or "i" in opt
    if args[:1] == ["--"]:
        args = args[1:]
    if not args and not (shell or login):
        return fail("usage: sudo -h | -K | -k | -V\nusage: sudo [-AbEHknPS] [-u user] [command [arg ...]]")
    if not args or (args[0] in ("su", "bash", "sh") and args[1:] in ([], ["-"], ["-l"], ["-i"], ["--login"])):
        login = login or args[1:] in (["-"], ["-l"], ["-i"], ["--login"])
        cwd = "~" if login or sh.root else f"/home/{sh.user}" if sh.levels[-1].cwd == "~" else sh.levels[-1].cwd
        sh.levels.append(Level("root", cwd))
        return Result()
    if args[0] not in BUILTINS and args[0].rsplit("/", 1)[-1] not in PROGRAMS:
        return fail(f"sudo: {args[0]}: command not found")
    return sh.as_root(args, stdin)


def _sh_c(sh: Shell, argv: list[str], stdin: str) -> Result:
    """``sh -c 'LINE'``: LINE in a child shell (its ``exit`` ends only the child)."""
    if len(argv) >= 3 and argv[1] == "-c":
        child = Shell(sh.state, sh.user)
        child.levels = [Level(sh.user, sh.levels[-1].cwd)]
        child.last_status = sh.last_status
        try:
            res = child.run_line(argv[2])
        except CloseSession as close:
            return Result(status=close.exit_status)
        sh.delay_ms += child.delay_ms
        return res
    return fail(f"{argv[0]}: interactive sub-shells are not simulated in this lab", 2)


def _read_files(sh: Shell, who: str, paths: list[tuple[str, str | FsError | None]],
                stdin: str) -> tuple[list[tuple[str, str]], str, bool]:
    """[(path, content)], error text, any_error — the way cat/grep report unreadable files.

    ``paths`` pairs each path with its content (or the error reading it) when already read, None otherwise.
    """
    files: list[tuple[str, str]] = []
    err, bad = "", False
    for path, known in paths or [("-", None)]:
        if path == "-" and known is None:
            files.append(("(standard input)", stdin))
            continue
        content = known
        if content is None:
            try:
                content = lab_fs.read(sh.state, path)
            except FsError as exc:
                content = exc
        if isinstance(content, FsError):
            err += f"{who}: {path}: {content.strerror}\n"
            bad = True
        else:
            files.append((path, content))
    return files, err, bad


def _cat(sh: Shell, argv: list[str], stdin: str) -> Result:
    files, err, bad = _read_files(sh, "cat", [(a, None) for a in argv[1:] if not a.startswith("-")], stdin)
    return Result(out="".join(c for _, c in files), err=err, status=1 if bad else 0)


def _grep(sh: Shell, argv: list[str], stdin: str) -> Result:
    flags: set[str] = set()
    pattern: str | None = None
    paths: list[str] = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "-e" and args:
            pattern = args.pop(0)
        elif a.startswith("--"):
            flags.add({"--recursive": "r", "--with-filename": "H", "--no-filename": "h",
                       "--no-messages": "s", "--ignore-case": "i"}.get(a, "?"))
        elif a.startswith("-") and len(a) > 1:
            flags.update(a[1:])
        elif pattern is None:
            pattern = a
        else:
            paths.append(a)
    if pattern is None or "?" in flags:
        return fail("Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.", 2)
    recursive = bool(flags & {"r", "R"})
    expanded: list[tuple[str, str | FsError | None]] = []
    err, bad = "", False
    for p in paths:
        if recursive and p != "-":  # "-" is standard input, also for grep -r
            expanded.extend(lab_fs.read_tree(sh.state, p))
        elif not recursive and lab_fs.listdir(sh.state, p) is not None:
            err += f"grep: {p}: Is a directory\n"
        else:
            expanded.append((p, None))
    files, read_err, bad = _read_files(sh, "grep", expanded, stdin)
    err += read_err
    if "s" in flags:
        err = ""
    try:
        rx = re.compile(re.escape(pattern) if "F" in flags else pattern, re.IGNORECASE if "i" in flags else 0)
    except re.error:
        return fail("grep: Invalid regular expression", 2)
    show_name = ("H" in flags or recursive or len(expanded) > 1) and "h" not in flags
    invert = "v" in flags
    found = [(path, line) for path, content in files for line in content.splitlines()
             if (rx.search(line) is None) is invert]
    out = [f"{path}:{line}" for path, line in found] if show_name else [line for _, line in found]
    count = len(out)
    status = 2 if bad and not (count and "q" in flags) else (0 if count else 1)
    if "q" in flags:
        return Result(status=status)
    if "c" in flags:
        return Result(out=f"{count}\n", err=err, status=status)
    return Result(out="".join(f"{line}\n" for line in out), err=err, status=status)


def _head_tail(sh: Shell, argv: list[str], stdin: str) -> Result:
    n = 10
    args = argv[1:]
    if args[:1] == ["-n"] and len(args) > 1 and args[1].lstrip("-").isdigit():
        n = int(args[1])
    elif args and args[0].startswith("-") and args[0][1:].isdigit():
        n = int(args[0][1:])
    lines = stdin.splitlines(keepends=True)
    return Result(out="".join(lines[:n] if argv[0] == "head" else lines[-n:] if n else []))


def _wc(sh: Shell, argv: list[str], stdin: str) -> Result:
    return ok(str(stdin.count("\n")) if "-l" in argv else f"{stdin.count(chr(10))} {len(stdin.split())} "
              f"{len(stdin.encode())}")


def _tee(sh: Shell, argv: list[str], stdin: str) -> Result:
    err = ""
    for path in [a for a in argv[1:] if not a.startswith("-")]:
        problem = sh.open_for_write(path) if path != "/dev/null" else None
        if problem:
            err += f"tee: {path}: {problem}\n"
            continue
        if path != "/dev/null":
            try:
                lab_fs.write(sh.state, path, stdin)
            except FsError as exc:
                err += f"tee: {path}: {exc.strerror}\n"
    return Result(out=stdin, err=err, status=1 if err else 0)


def _ls(sh: Shell, argv: list[str], stdin: str) -> Result:
    paths = [a for a in argv[1:] if not a.startswith("-")] or ["/"]
    out, err = [], ""
    for p in paths:
        entries = lab_fs.listdir(sh.state, p)
        if entries is None:
            if lab_fs.exists(sh.state, p):
                out.append(p)
            else:
                err += f"ls: cannot access '{p}': {ENOENT}\n"
            continue
        if len(paths) > 1:
            out.append(f"{p}:")
        out.extend(sorted(entries))
    return Result(out="".join(f"{line}\n" for line in out), err=err, status=2 if err else 0)


def _mkdir_rmdir(sh: Shell, argv: list[str], stdin: str) -> Result:
    """Only configfs rdma_cm/<dev> directories can be created/removed (as ``cma_roce_*`` do)."""
    verb = argv[0]
    err = ""
    targets = [a for a in argv[1:] if a != "-p"]
    if verb == "mkdir" and "-p" in argv and targets and all(is_store_path(t.rstrip("/") + "/") for t in targets):
        # directories of regular files exist implicitly (see fs.STORE_ROOTS)
        return Result() if sh.can_write else fail(f"mkdir: cannot create directory '{targets[0]}': {EACCES}")
    for path in [a for a in argv[1:] if not a.startswith("-")]:
        parts = lab_fs.split(path)
        dev = parts[4] if len(parts) == 5 and parts[:4] == ["sys", "kernel", "config", "rdma_cm"] else None
        if dev is None:
            err += f"{verb}: cannot {'create' if verb == 'mkdir' else 'remove'} directory '{path}': {EACCES}\n"
        elif not sh.can_write:
            err += f"{verb}: {'cannot create directory' if verb == 'mkdir' else 'failed to remove'} '{path}': " \
                   f"{'Permission denied' if verb == 'mkdir' else 'Operation not permitted'}\n"
        elif verb == "mkdir":
            if dev not in sh.state.host.by_rdma:
                err += f"mkdir: cannot create directory '{path}': No such device\n"
            elif dev in sh.state.host.configfs:
                err += f"mkdir: cannot create directory '{path}': File exists\n"
            else:
                sh.state.host.configfs.add(dev)
        elif dev in sh.state.host.configfs:
            sh.state.host.configfs.discard(dev)
        else:
            err += f"rmdir: failed to remove '{path}': {ENOENT}\n"
    return Result(err=err, status=1 if err else 0)


def _simple(text: Callable[[Shell, list[str]], str]) -> Callable[[Shell, list[str], str], Result]:
    return lambda sh, argv, stdin: ok(text(sh, argv))


def _hostname(sh: Shell, argv: list[str]) -> str:
    return str(sh.state.host.hostname)


def _uname(sh: Shell, argv: list[str]) -> str:
    if "-a" in argv:
        return f"Linux {sh.state.host.hostname} {lab_fs.KERNEL} #123-Ubuntu SMP Mon Jun 10 08:16:17 UTC 2024 " \
               "x86_64 x86_64 x86_64 GNU/Linux"
    return lab_fs.KERNEL if "-r" in argv else "Linux"


def _id(sh: Shell, argv: list[str]) -> str:
    uid = 0 if sh.root else 1000
    if "-u" in argv:
        return str(uid)
    if "-n" in argv or "-un" in argv:
        return sh.user
    return f"uid={uid}({sh.user}) gid={uid}({sh.user}) groups={uid}({sh.user})"


def _which(sh: Shell, argv: list[str], stdin: str) -> Result:
    found = [f"/usr/{'s' if a in PROGRAMS else ''}bin/{a}" for a in argv[1:] if a in PROGRAMS or a in BUILTINS]
    return Result(out="".join(f"{p}\n" for p in found), status=0 if len(found) == len(argv) - 1 else 1)


def _sleep(sh: Shell, argv: list[str], stdin: str) -> Result:
    try:
        sh.delay_ms += int(float(argv[1]) * 1000) if len(argv) > 1 else 0
    except ValueError:
        return fail(f"sleep: invalid time interval '{argv[1]}'")
    return Result()


BUILTINS.update({
    "echo": _echo, "exit": _exit, "logout": _exit, "sudo": _sudo, "sh": _sh_c, "bash": _sh_c, "cat": _cat,
    "grep": _grep, "head": _head_tail, "tail": _head_tail, "wc": _wc, "tee": _tee, "ls": _ls,
    "mkdir": _mkdir_rmdir, "rmdir": _mkdir_rmdir, "which": _which, "sleep": _sleep,
    "true": lambda sh, argv, stdin: Result(), "false": lambda sh, argv, stdin: Result(status=1),
    "cd": lambda sh, argv, stdin: Result(), "pwd": _simple(lambda sh, argv: sh.home()),
    "hostname": _simple(_hostname), "uname": _simple(_uname),
    "id": _simple(_id), "whoami": _simple(lambda sh, argv: sh.user),
})
