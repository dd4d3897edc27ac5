"""Lab personality for Cumulus Linux (NVUE): a bash prompt, ``nv set``/``unset``/``config``/``show``.

State (one per device, shared by its sessions; see :class:`CumulusState`):

* the **applied** revision (a flat NVUE tree, :mod:`lab_schema`), a **pending** revision that
  ``nv set``/``nv unset`` edit (created on the first edit after an apply, dropped by
  ``nv config detach``), a revision **history** (compressed command text per revision) and the
  **startup** (saved) copy; revision ids grow from 1 (the factory config);
* an open **confirm window** after ``nv config apply --confirm <t>``: unless
  ``nv config apply --confirm-yes`` arrives before the deadline, the previous applied revision
  comes back (checked lazily on every command: ``handle`` never sleeps); ``--confirm-no`` reverts
  now; ``--confirm-status`` shows the time left;
* the shared :class:`~roceops.lab.physical.Physical` layer (ports, LLDP wiring, moving counters).

The shell understands ``;``, ``&&`` and ``||`` between commands, ``echo``, ``hostname`` and
``sudo``, as bash on a Cumulus switch does; the driver uses that to batch its reads.

Output texts: ``applied [rev_id: N]``, ``saved [rev_id: applied]``, ``Invalid config [rev_id: N]`` /
``  Config invalid at a.b.c: ...`` and the ``nv config revision`` table are NVUE's documented texts;
``Error: Invalid Command: set ...`` follows NVIDIA's own NVUE test expectations; the
``--confirm-status``/``--confirm-yes``/``--confirm-no`` texts are the lab's (no public capture).
Faults: see :data:`CumulusState.PERSONALITY_FAULTS` and :mod:`lab_faults`.
"""

from __future__ import annotations

import itertools
import re
import shlex
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from roceops.lab.personality import CloseSession, DeviceState, LabError, Reply, Session, SessionInfo
from roceops.lab.physical import Physical
from roceops.platforms.cumulus import lab_show as show
from roceops.platforms.cumulus.lab_faults import CONFIG_FAULTS, OPER_FAULTS, apply_config_fault
from roceops.platforms.cumulus.lab_nv import run_nv
from roceops.platforms.cumulus.lab_schema import Tree, apply_set, commands_text, parse_commands, resolve
from roceops.platforms.cumulus.lab_view import View, build_view, speed_text

USER = "cumulus"
MAX_REVISIONS = 32  # history kept per device (the applied one and a confirm's fallback always stay)
VIEW_CACHE = 256  # effective-state views kept for the most recently used devices (memory stays flat)

_views: OrderedDict[tuple[int, int], View] = OrderedDict()
_views_lock = threading.Lock()
_serials = itertools.count()


@dataclass
class Revision:
    rev_id: int
    text_z: bytes = b""
    state: str = "pending"
    applies: int = 0
    date: str = ""
    user: str = USER

    def tree(self) -> Tree:
        return parse_commands(zlib.decompress(self.text_z).decode()) if self.text_z else {}


@dataclass
class ConfirmWindow:
    rev_id: int
    previous_rev: int
    previous: Tree
    deadline: float


def _pack(tree: Tree) -> bytes:
    return zlib.compress(commands_text(tree).encode(), 6)


class CumulusState(DeviceState):
    PERSONALITY_FAULTS: ClassVar[frozenset[str]] = CONFIG_FAULTS | OPER_FAULTS

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(name, platform, extra)
        self.clock = clock
        self.started = clock()
        self.hostname = str(self.extra.get("hostname", name))
        self.model = str(self.extra.get("model", "generic"))
        ports = list(self.extra.get("ports", []))
        self.physical = Physical(name, ports, self.extra.get("lossless", (3,)), clock=clock)
        self.port_names = ["eth0", "lo", *sorted(self.physical.ports, key=_natural)]
        # sub-port -> (cage, split count) for ports the SKU breaks out (swp1s0 -> ("swp1", 2))
        self.cage_of: dict[str, tuple[str, int]] = {
            str(p["name"]): (str(p["cage"]), int(p["breakout"])) for p in ports
            if p.get("cage") and int(p.get("breakout", 1)) > 1}
        self.port_speeds = {p.name: speed_text(p.speed) for p in self.physical.ports.values()}
        factory: Tree = {}
        for line in ("interface eth0 ip address dhcp", "interface eth0 ip vrf mgmt", "interface eth0 type eth",
                     f"system hostname {self.hostname}"):
            apply_set(factory, resolve("set", line.split()))
        self.applied: Tree = factory
        self.applied_rev = 1
        self.revisions: dict[int, Revision] = {1: Revision(1, _pack(factory), "applied_and_saved", 1, _now(), "root")}
        self.next_rev = 2
        self.startup_z = self.revisions[1].text_z
        self.pending: Tree | None = None
        self.pending_rev: int | None = None
        self.confirm: ConfirmWindow | None = None
        self._serial = next(_serials)
        self._generation = 0
        preload = dict(self.extra.get("preload_files") or {}).get("nvue.commands")
        if preload:
            self._preload(str(preload))

    # ---- preload: the rendered file, through the same code path as a push

    def _preload(self, text: str) -> None:
        for line in text.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                out, status = run_line(self, line, USER)
                if status:
                    raise LabError(f"{self.name}: preloaded nvue.commands refused: {out.strip()[:200]}")
        out, status = run_line(self, "nv config apply -y", USER)
        if status:
            raise LabError(f"{self.name}: preloaded configuration did not apply: {out.strip()[:200]}")

    # ---- revisions

    def tick(self) -> None:
        """Expire an unconfirmed apply whose deadline passed (called before every command)."""
        if self.confirm is not None and self.clock() >= self.confirm.deadline:
            self.revert_confirm()

    def view(self) -> View:
        """The effective state of the applied revision, from a small LRU shared by all devices."""
        key = (self._serial, self._generation)
        with _views_lock:
            view = _views.get(key)
            if view is not None:
                _views.move_to_end(key)
                return view
        view = build_view(self.applied, self.port_names, self.port_speeds)
        with _views_lock:
            _views[key] = view
            while len(_views) > VIEW_CACHE:
                _views.popitem(last=False)
        return view

    def set_applied(self, tree: Tree, rev_id: int) -> None:
        self.applied, self.applied_rev = tree, rev_id
        self._generation += 1

    def ensure_pending(self) -> Tree:
        if self.pending is None:
            self.pending, self.pending_rev = dict(self.applied), self.next_rev
            self.revisions[self.next_rev] = Revision(self.next_rev)
            self.next_rev += 1
        return self.pending

    def detach(self) -> None:
        if self.pending_rev is not None:
            self.revisions.pop(self.pending_rev, None)
        self.pending = self.pending_rev = None

    def commit(self, tree: Tree, rev_id: int, user: str, confirm_s: float | None) -> None:
        previous_rev, previous = self.applied_rev, self.applied
        rev = self.revisions.setdefault(rev_id, Revision(rev_id))
        rev.text_z, rev.applies, rev.date, rev.user = _pack(tree), rev.applies + 1, _now(), user
        rev.state = "confirm" if confirm_s is not None else "applied_and_saved"
        self.set_applied(tree, rev_id)
        if confirm_s is not None:
            self.confirm = ConfirmWindow(rev_id, previous_rev, previous, self.clock() + confirm_s)
        else:
            self.startup_z = rev.text_z
        self._prune()

    def _prune(self) -> None:
        keep = {self.applied_rev, self.pending_rev, self.confirm.previous_rev if self.confirm else None}
        for old in sorted(self.revisions)[: max(0, len(self.revisions) - MAX_REVISIONS)]:
            if old not in keep:
                del self.revisions[old]

    def confirm_yes(self) -> int:
        assert self.confirm is not None
        rev = self.revisions[self.confirm.rev_id]
        rev.state, self.startup_z = "applied_and_saved", rev.text_z
        self.confirm = None
        return rev.rev_id

    def revert_confirm(self) -> int:
        assert self.confirm is not None
        window, self.confirm = self.confirm, None
        self.revisions[window.rev_id].state = "rolled_back"
        prev = self.revisions.get(window.previous_rev)
        if prev is not None:
            prev.applies, prev.date, prev.state = prev.applies + 1, _now(), "applied_and_saved"
        self.set_applied(window.previous, window.previous_rev)
        return window.previous_rev

    def operator_change(self, edit: Callable[[Tree], None]) -> None:
        """A configuration change as an operator would make it (nv set/unset + nv config apply)."""
        tree = dict(self.applied)
        edit(tree)
        rev_id = self.next_rev
        self.next_rev += 1
        self.commit(tree, rev_id, USER, None)

    # ---- faults

    def apply_fault(self, name: str, **params: Any) -> None:
        fault = name.strip().lower().replace("-", "_")
        if fault in CONFIG_FAULTS:
            apply_config_fault(self, fault, params)
            self.faults.extra[fault] = dict(params)
        elif fault in OPER_FAULTS:
            bad = sorted(set(params) - {"port"})
            if bad:
                raise LabError(f"fault '{fault}' takes port (got: {', '.join(bad)})")
            try:
                self.physical.apply(fault, params.get("port"))
            except KeyError as exc:
                raise LabError(str(exc.args[0])) from None
            self.faults.extra[fault] = dict(params)
        else:
            super().apply_fault(name, **params)

    def clear_faults(self) -> None:
        super().clear_faults()
        self.physical.clear()

    @property
    def rejecting(self) -> bool:
        return "reject_config" in self.faults.extra


def _natural(name: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _now() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S")


# --------------------------------------------------------------------------- the shell


_PLAIN = re.compile(r"[^'\"\\;&|`$<>()]*")


# words of plain characters and '...' quotes, separated by blanks, `;`, `&&` or `||`: how roceops' batched
# reads look (`echo MARK-0'' ; nv show ...`). Anything else goes through shlex, which is exact but slow.
_SIMPLE = re.compile(r"(?:[^'\"\\;&|`$<>()\s]+|'[^']*'|;|&&|\|\||\s+)*")
_SIMPLE_TOKEN = re.compile(r"(;|&&|\|\|)|((?:[^'\"\\;&|`$<>()\s]+|'[^']*')+)")


# every '...' quote free of blanks and separators: then the separators and blanks split the line as they are
_QUOTES_INERT = re.compile(r"(?:[^']++|'[^'\s;&|]*+')*+")
_SEPARATOR = re.compile(r"(;|&&|\|\|)")


def _split_simple(line: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    sep, argv = "", []
    if _QUOTES_INERT.fullmatch(line):
        for i, part in enumerate(_SEPARATOR.split(line)):
            if i % 2:
                sep = part
            elif argv := [w.replace("'", "") for w in part.split()]:
                out.append((sep, argv))
        return out
    for m in _SIMPLE_TOKEN.finditer(line):
        if m.group(1):
            out.append((sep, argv))
            sep, argv = m.group(1), []
        else:
            argv.append(m.group(2).replace("'", ""))
    out.append((sep, argv))
    return [(s, a) for s, a in out if a]


def _split_line(line: str) -> list[tuple[str, list[str]]]:
    """``a && b; c`` -> [("", [a...]), ("&&", [b...]), (";", [c...])]."""
    if _PLAIN.fullmatch(line):  # nothing for a shell to interpret: plain words
        return [("", line.split())]
    if _SIMPLE.fullmatch(line) and ";;" not in line:
        return _split_simple(line)
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    out: list[tuple[str, list[str]]] = []
    sep = ""
    argv: list[str] = []
    for tok in lex:
        if tok in (";", "&&", "||"):
            out.append((sep, argv))
            sep, argv = tok, []
        else:
            argv.append(tok)
    out.append((sep, argv))
    return [(s, a) for s, a in out if a]


def run_line(state: CumulusState, line: str, user: str) -> tuple[str, int]:
    """Run one shell line; returns (output, exit status of the last command run)."""
    try:
        commands = _split_line(line)
    except ValueError as exc:
        return f"-bash: syntax error: {exc}", 2
    outputs: list[str] = []
    status = 0
    for sep, argv in commands:
        if (sep == "&&" and status != 0) or (sep == "||" and status == 0):
            continue
        text, status = run_command(state, argv, user)
        if text:
            outputs.append(text.rstrip("\n"))
    return "\n".join(outputs), status


def run_command(state: CumulusState, argv: list[str], user: str) -> tuple[str, int]:
    cmd, args = argv[0], argv[1:]
    if cmd == "sudo" and args:
        return run_command(state, args, "root")
    if cmd == "nv":
        return run_nv(state, args, user)
    if cmd == "echo":
        return " ".join(args), 0
    if cmd == "hostname":
        return state.applied.get(("system", "hostname"), state.hostname), 0
    if cmd == "true":
        return "", 0
    if cmd == "false":
        return "", 1
    return f"-bash: {cmd}: command not found", 127


class CumulusSession(Session):
    state: CumulusState

    def __init__(self, state: DeviceState, info: SessionInfo) -> None:
        super().__init__(state, info)
        # bash fixes \\h at login: a hostname change shows in the next session's prompt
        self._prompt = f"{info.username}@{self.state.applied.get(('system', 'hostname'), self.state.hostname)}:mgmt:~$ "

    def banner(self) -> str:
        return f"Linux {self.state.hostname} 6.1.0-cl-1-amd64 #1 SMP Debian x86_64\n\nWelcome to NVIDIA {show.BUILD}\n"

    def prompt(self) -> str:
        return self._prompt

    def handle(self, line: str) -> str | Reply:
        self.state.tick()
        stripped = line.strip()
        if not stripped:
            return ""
        if stripped in ("exit", "logout"):
            raise CloseSession("logout")
        text, status = run_line(self.state, stripped, self.info.username)
        return Reply(text, exit_status=status)


__all__ = ["CumulusSession", "CumulusState", "run_line"]
