"""Lab personality for Cumulus Linux (NVUE): a bash prompt, ``nv set``/``unset``/``config``/``show``.

State (one per device, shared by its sessions; see :class:`CumulusState`):

* the **applied** revision (a flat NVUE tree, :mod:`.schema`), a **pending** revision that
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
Faults: see :data:`CumulusState.PERSONALITY_FAULTS` and :mod:`.faults`; ``facts`` (hwsku=, version=) makes
``nv show system`` report another platform or release (the switch answers the fabric's by default).
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from roceops.lab.devices.cumulus import show
from roceops.lab.devices.cumulus.faults import CONFIG_FAULTS, OPER_FAULTS, PARAMS, apply_config_fault
from roceops.lab.devices.cumulus.neigh import ip_command
from roceops.lab.devices.cumulus.nv import run_nv
from roceops.lab.devices.cumulus.state import USER, CumulusStateCore
from roceops.lab.personality import (
    FACTS_FAULT,
    FACTS_PARAMS,
    CloseSession,
    DeviceState,
    LabError,
    Reply,
    Session,
    SessionInfo,
)


class CumulusState(CumulusStateCore):
    """A Cumulus switch as the lab serves it: the state plus preloading through the shell and faults."""

    PERSONALITY_FAULTS: ClassVar[frozenset[str]] = CONFIG_FAULTS | OPER_FAULTS | {FACTS_FAULT}
    FAULT_PARAMS = {**{f: frozenset(p) for f, p in PARAMS.items()}, **{f: frozenset({"port"}) for f in OPER_FAULTS},
                    FACTS_FAULT: FACTS_PARAMS}

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(name, platform, extra, clock)
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
            if fault == FACTS_FAULT and (bad := sorted(set(params) - FACTS_PARAMS)):
                raise LabError(f"fault '{fault}' takes hwsku, version (got: {', '.join(bad)})")
            super().apply_fault(name, **params)

    def clear_faults(self) -> None:
        super().clear_faults()
        self.physical.clear()


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
    if cmd == "ip":
        return ip_command(state, args)
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
