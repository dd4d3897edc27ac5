"""A tiny bash for the simulated host: quoting, ``;``/``&&``/``||`` lists, pipes, ``>``/``>>``/``2>&1``
redirections, ``$?``, globs over the simulated filesystem, ``sudo`` and ``sh -c``.

Only what the deploy path, the audit collectors and a curious operator type is interpreted;
everything else answers like bash does for a missing program (``-bash: X: command not found``,
exit status 127). Writes to sysfs/procfs need root (``sudo``, ``sudo -s``) and fail for everyone
while the ``reject_config`` fault is active, with the kernel's errno text.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from roceops.lab.devices.linux_mlx5 import fs as lab_fs
from roceops.lab.devices.linux_mlx5.model import EACCES, ENOENT, FsError

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.state import LinuxMlx5StateCore


@dataclass
class Result:
    out: str = ""
    err: str = ""
    status: int = 0

    @property
    def text(self) -> str:
        return self.out + self.err


def ok(out: str = "") -> Result:
    return Result(out=_nl(out))


def fail(err: str, status: int = 1, out: str = "") -> Result:
    return Result(out=_nl(out), err=_nl(err), status=status)


def _nl(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


Program = Callable[["Shell", list[str], str], Result]


@dataclass(frozen=True)
class Commands:
    """What a shell can run: ``builtins`` (shell builtins and coreutils) and external ``programs`` by name; the
    device's dispatcher assembles them from the command modules' tables."""

    builtins: Mapping[str, Program]
    programs: Mapping[str, Program]

WRITABLE_ROOTS = ("/sys/", "/proc/sys/")


# ------------------------------------------------------------------------------------ parsing


@dataclass
class Word:
    text: str
    glob: bool = False


@dataclass
class Simple:
    words: list[Word] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (op, target): ">", ">>", "2>", "2>&1", "&>"
    background: bool = False  # ended by ``&``: runs at once, its run time does not hold the prompt


class ShellSyntaxError(Exception):
    pass


_OPS = ("&&", "||", "2>&1", "&>", ">>", "2>", ";", "|", ">", "<", "&")
_VAR = re.compile(r"\$(\?|[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")


_MARK = re.compile("\x00([^\x00]*)\x00")
_PLAIN = re.compile(r"[^\s'\"\\$;&|<>`*?\[~]+")
# Lines of only blanks, operators and words of plain characters, '...' quotes and $? (batched reads look like
# that: ``echo ':RO1:''begin'; cmd; echo ':RO1:'$?``) are tokenized by one regex instead of the loop.
_OPS_RE = "|".join(re.escape(o) for o in _OPS)
# possessive (no backtracking): a failed match is linear in the line's length, whatever the line
_FAST_WORD = r"(?:[^\s'\"\\$;&|<>`*?\[~#(]++|'[^'#(]*+'|\$\?)++"
_FAST_LINE = re.compile(rf"(?:{_OPS_RE}|{_FAST_WORD}|[ \t]++)*+")
_FAST_TOKEN = re.compile(rf"({_OPS_RE})|({_FAST_WORD})|[ \t]++")


def _fast_word(word: str) -> str:
    """A word of :data:`_FAST_LINE` as ``tokenize`` gives it: quotes removed, ``$?`` outside quotes marked."""
    if "$" not in word:
        return word.replace("'", "") if "'" in word else word
    parts = word.split("'")  # odd indexes: inside quotes
    return "".join(part if i % 2 else part.replace("$?", "\x00?\x00") for i, part in enumerate(parts))


def _tokenize_fast(line: str) -> list[Word | str] | None:
    """``tokenize`` for lines made only of what :data:`_FAST_LINE` knows; None for any other line."""
    if not _FAST_LINE.fullmatch(line):
        return None
    return [op or Word(_fast_word(word)) for op, word in _FAST_TOKEN.findall(line) if op or word]


def tokenize(line: str) -> list[Word | str]:
    """Words and operator strings; variables stay as ``\\x00NAME\\x00`` marks, expanded when the command runs."""
    fast = _tokenize_fast(line)
    if fast is not None:
        return fast
    tokens: list[Word | str] = []
    i, n = 0, len(line)
    cur: list[str] = []
    glob = False
    started = False

    def expand(text: str) -> str:
        return _VAR.sub(lambda m: "\x00" + m.group(1).strip("{}") + "\x00", text)

    def flush() -> None:
        nonlocal cur, glob, started
        if started:
            tokens.append(Word("".join(cur), glob))
        cur, glob, started = [], False, False

    while i < n:
        c = line[i]
        if c in " \t":
            flush()
            i += 1
            continue
        if c == "#" and not started:
            break
        if c in ";&|<>" or (c == "2" and not started and line.startswith("2>", i)):
            op = next(o for o in _OPS if line.startswith(o, i))
            flush()
            tokens.append(op)
            i += len(op)
            continue
        if c in "`(" and not started:
            raise ShellSyntaxError(f"syntax error near unexpected token `{c}'")
        started = True
        plain = _PLAIN.match(line, i)
        if plain:
            cur.append(plain.group())
            i = plain.end()
            continue
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unexpected EOF while looking for matching `''")
            cur.append(line[i + 1:end])
            i = end + 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and line[j] != '"':
                if line[j] == "\\" and j + 1 < n and line[j + 1] in '"\\$`':
                    buf.append(line[j + 1])
                    j += 2
                    continue
                buf.append(line[j])
                j += 1
            if j >= n:
                raise ShellSyntaxError('unexpected EOF while looking for matching `"\'')
            cur.append(expand("".join(buf)))
            i = j + 1
        elif c == "\\" and i + 1 < n:
            cur.append(line[i + 1])
            i += 2
        elif c == "$":
            if line.startswith("$(", i):
                raise ShellSyntaxError("command substitution is not supported by this lab shell")
            m = _VAR.match(line, i)
            if m:
                cur.append(expand(m.group()))
                i = m.end()
            else:
                cur.append(c)
                i += 1
        elif c == "`":
            raise ShellSyntaxError("command substitution is not supported by this lab shell")
        else:
            if c == "~" and not cur:
                cur.append("\x00HOME\x00")
            else:
                cur.append(c)
                glob = glob or c in "*?["
            i += 1
    flush()
    return tokens


@lru_cache(maxsize=4096)
def parsed_line(line: str) -> tuple[tuple[str, list[Simple]], ...]:
    """``parse(tokenize(line))``, cached: every host of a lab runs the same setup lines (treat it as read-only)."""
    return tuple(parse(tokenize(line)))


def parse(tokens: list[Word | str]) -> list[tuple[str, list[Simple]]]:
    """[(connector, pipeline)], connector of the first item is ``;``."""
    items: list[tuple[str, list[Simple]]] = []
    connector = ";"
    pipeline: list[Simple] = [Simple()]
    i = 0
    words = pipeline[-1].words
    while i < len(tokens):
        t = tokens[i]
        if isinstance(t, Word):
            words.append(t)
        elif t in (">", ">>", "2>", "&>"):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if not isinstance(nxt, Word):
                raise ShellSyntaxError(f"syntax error near unexpected token `{nxt or 'newline'}'")
            pipeline[-1].redirects.append((t, nxt.text))
            i += 1
        elif t == "2>&1":
            pipeline[-1].redirects.append((t, ""))
        elif t == "|":
            if not pipeline[-1].words:
                raise ShellSyntaxError("syntax error near unexpected token `|'")
            pipeline.append(Simple())
            words = pipeline[-1].words
        elif t in (";", "&&", "||", "&"):
            if not pipeline[-1].words and not pipeline[-1].redirects:
                if t == ";" and len(pipeline) == 1 and not items and i == len(tokens) - 1:
                    break
                raise ShellSyntaxError(f"syntax error near unexpected token `{t}'")
            if t == "&":
                pipeline[-1].background = True
            items.append((connector, pipeline))
            connector, pipeline = (";" if t == "&" else t), [Simple()]
            words = pipeline[-1].words
        else:
            raise ShellSyntaxError(f"`{t}' is not supported by this lab shell")
        i += 1
    if pipeline[-1].words or pipeline[-1].redirects:
        items.append((connector, pipeline))
    elif (connector in ("&&", "||") or len(pipeline) > 1) and not (items and items[-1][1][-1].background):
        raise ShellSyntaxError("syntax error: unexpected end of file")
    return items


# ------------------------------------------------------------------------------------ execution


@dataclass
class Level:
    user: str
    cwd: str  # as the prompt shows it


class Shell:
    """Per-session interpreter state: the user stack (``sudo -s`` pushes root) and ``$?``."""

    def __init__(self, state: LinuxMlx5StateCore, username: str, commands: Commands) -> None:
        self.state = state
        self.commands = commands
        self.levels = [Level(username, "~")]
        self.last_status = 0
        self.delay_ms = 0
        self.jobs_end_ms = 0

    # ---- privilege

    @property
    def user(self) -> str:
        return self.levels[-1].user

    @property
    def root(self) -> bool:
        return self.user == "root"

    @property
    def can_write(self) -> bool:
        """Root and the device does not reject configuration (``reject_config``)."""
        return self.root and not self.state.rejecting

    def home(self) -> str:
        return "/root" if self.root else f"/home/{self.user}"

    # ---- running

    def run_line(self, line: str) -> Result:
        self.delay_ms = 0
        self.jobs_end_ms = 0  # when this line's background jobs end (``wait`` holds until then)
        try:
            items = parsed_line(line)
        except ShellSyntaxError as exc:
            self.last_status = 2
            return fail(f"-bash: {exc}", 2)
        outs: list[str] = []
        errs: list[str] = []
        status = self.last_status
        for connector, pipeline in items:
            if (connector == "&&" and status != 0) or (connector == "||" and status == 0):
                continue
            held_ms = self.delay_ms
            res = self.run_pipeline(pipeline)
            if pipeline[-1].background:  # bash returns at once with status 0 (the job's output still lands)
                self.jobs_end_ms = max(self.jobs_end_ms, self.delay_ms)
                self.delay_ms = held_ms
                res = Result(out=res.out, err=res.err)
            outs.append(res.out)
            errs.append(res.err)
            status = res.status
            self.last_status = status
        return Result(out="".join(outs), err="".join(errs), status=status)

    def run_pipeline(self, pipeline: list[Simple]) -> Result:
        if len(pipeline) == 1:  # no pipe: the command's own result
            return self.run_simple(pipeline[0], "")
        stdin = ""
        err = ""
        res = Result()
        for cmd in pipeline:
            res = self.run_simple(cmd, stdin)
            stdin = res.out
            err += res.err
        return Result(out=res.out, err=err, status=res.status)

    def expand(self, text: str) -> str:
        if "\x00" not in text:
            return text
        env = {"?": str(self.last_status), "USER": self.user, "HOME": self.home(),
               "HOSTNAME": self.state.host.hostname}
        return _MARK.sub(lambda m: env.get(m.group(1), ""), text)

    def expand_words(self, words: list[Word]) -> list[str]:
        argv: list[str] = []
        for w in words:
            text = self.expand(w.text) if "\x00" in w.text else w.text
            if w.glob:
                argv.extend(self.glob(text) or [text])
            else:
                argv.append(text)
        return argv

    def glob(self, pattern: str) -> list[str]:
        if not pattern.startswith("/"):
            return []
        parts = [p for p in pattern.split("/") if p]
        paths = ["/"]
        for part in parts:
            nxt: list[str] = []
            for base in paths:
                prefix = base.rstrip("/")
                if any(ch in part for ch in "*?["):
                    entries = lab_fs.listdir(self.state, base) or []
                    nxt.extend(f"{prefix}/{e}" for e in sorted(entries) if fnmatch.fnmatchcase(e, part))
                else:
                    nxt.append(f"{prefix}/{part}")
            paths = nxt
        trailing = pattern.endswith("/")
        return [p + "/" if trailing else p for p in paths if lab_fs.exists(self.state, p)]

    def run_simple(self, cmd: Simple, stdin: str) -> Result:
        argv = self.expand_words(cmd.words)
        out_target: tuple[str, str] | None = None
        merge_err = drop_err = False
        for op, raw_target in cmd.redirects:
            target = self.expand(raw_target)
            if op in (">", ">>", "&>"):
                out_target = (op, target)
                if op == "&>":
                    merge_err = True
            elif op == "2>&1":
                merge_err = True
            elif op == "2>":
                drop_err = target == "/dev/null"
        if out_target is not None and out_target[1] != "/dev/null":
            problem = self.open_for_write(out_target[1])
            if problem:
                return fail(f"-bash: {out_target[1]}: {problem}")
        res = self.execute(argv, stdin) if argv else Result()
        if merge_err:
            res = Result(out=res.out + res.err, status=res.status)
        elif drop_err:
            res = Result(out=res.out, status=res.status)
        if out_target is not None and lab_fs.is_store_path(out_target[1]):  # a regular file: > truncates
            lab_fs.store_write(self.state, out_target[1], res.out, append=out_target[0] == ">>")
            res = Result(err=res.err, status=res.status)
        elif out_target is not None:
            target = out_target[1]
            if target != "/dev/null" and res.out:
                try:
                    lab_fs.write(self.state, target, res.out)
                except FsError as exc:
                    who = f"-bash: {argv[0]}" if argv and argv[0] in ("echo", "printf") else (argv or ["bash"])[0]
                    return Result(err=res.err + f"{who}: write error: {exc.strerror}\n", status=1)
            res = Result(err=res.err, status=res.status)
        return res

    def open_for_write(self, path: str) -> str | None:
        """errno text if bash could not open ``path`` for writing, else None."""
        if lab_fs.is_store_path(path):  # /tmp is world-writable (sticky), the rest root's
            return None if self.can_write or (path.startswith("/tmp/") and not self.state.rejecting) else EACCES
        if not path.startswith(WRITABLE_ROOTS):
            return "Read-only file system" if path.startswith("/") else EACCES
        if not lab_fs.exists(self.state, path):
            return ENOENT
        if not self.can_write:
            return EACCES
        return None

    def execute(self, argv: list[str], stdin: str) -> Result:
        name = argv[0].rsplit("/", 1)[-1] if argv[0].startswith("/") else argv[0]
        builtin = self.commands.builtins.get(name)
        if builtin is not None:
            return builtin(self, argv, stdin)
        fn = None if name in self.state.absent_programs() else self.commands.programs.get(name)
        if fn is None:
            if "/" in argv[0]:
                return fail(f"-bash: {argv[0]}: {ENOENT}", 127)
            return fail(f"-bash: {argv[0]}: command not found", 127)
        return fn(self, [name, *argv[1:]], stdin)

    def as_root(self, argv: list[str], stdin: str) -> Result:
        self.levels.append(Level("root", self.levels[-1].cwd))
        try:
            return self.execute(argv, stdin)
        finally:
            self.levels.pop()
