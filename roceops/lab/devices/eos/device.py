"""Arista EOS lab personality: device state (running-config tree, configuration sessions with commit timers,
physical ports) and the CLI interpreter Netmiko's ``arista_eos`` driver talks to.

Modes and prompts: ``host>`` -> ``enable`` -> ``host#`` -> ``configure`` -> ``host(config)#``, sub-modes
``host(config-if-Et1/1)#``, ``host(config-if-Et1/1-txq-3)#``, ``host(config-router-bgp)#``; inside
``configure session NAME`` the prompt carries ``-s-`` and the first six characters of the name
(``host(config-s-roceop-if-Et1/1)#``). As on EOS, a command the current mode does not know is tried in the
parent modes (``interface Ethernet2/1`` typed inside ``tx-queue 3`` moves to that interface).

Configuration sessions (``configure session``) work on a snapshot of running-config. ``commit`` replaces
running-config with it; ``commit timer hh:mm:ss`` does too but keeps the previous running-config and puts it
back when the timer runs out before ``configure session NAME commit`` (from exec). The timer is checked at the
start of every command any session sends to the device, so expiry is exact as far as any client can observe.
``abort`` (inside, or ``configure session NAME abort`` from exec) discards the session or reverts a pending
commit timer; ``rollback clean-config`` resets the session to the factory default.

Faults (``PERSONALITY_FAULTS``): ``pfc_off`` (port=, priority=), ``ecn_changed`` (min=, max= bytes, port=),
``mtu_mismatch`` (port=, mtu=1500) change running-config through this CLI, as an operator would;
``reject_config`` makes every configuration command fail with EOS's "Unavailable command" error;
``link_down``/``link_flap``/``pause_storm``/``crc_errors`` (port=) go to the shared :class:`Physical`;
``facts`` (hwsku=, version=) makes ``show version`` report another model or release; ``status_columns`` makes
``show interfaces status`` print newer EOS's Flags and Encapsulation columns.
``clear_faults`` stops rejection and the operational faults; configuration changes stay until re-deployed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from roceops.lab.devices.eos import show as lab_show
from roceops.lab.devices.eos.state import ConfigSession, EosStateCore
from roceops.lab.devices.eos.tree import (
    ConfigError,
    Failed,
    Matched,
    Node,
    apply,
    match,
    short_ifname,
    walk,
)
from roceops.lab.personality import (
    FACTS_FAULT,
    FACTS_PARAMS,
    CloseSession,
    DeviceState,
    LabError,
    Reply,
    Session,
    SessionInfo,
    canonical_fault_name,
)
from roceops.lab.physical import OPER_FAULTS

REJECT_ERROR = "% Unavailable command (not supported on this hardware platform)"
PRIVILEGED_ERROR = "% Invalid input (privileged mode required)"
MAX_PENDING_SESSIONS = 5
CONFIG_FAULTS = frozenset({"pfc_off", "ecn_changed", "mtu_mismatch", "reject_config"})
FAULT_PARAMS: dict[str, frozenset[str]] = {
    "pfc_off": frozenset({"port", "priority"}),
    "ecn_changed": frozenset({"port", "min", "max"}),
    "mtu_mismatch": frozenset({"port", "mtu"}),
    "reject_config": frozenset(),
    FACTS_FAULT: FACTS_PARAMS,
    **{f: frozenset({"port"}) for f in OPER_FAULTS},
}


class EosState(EosStateCore):
    """An EOS switch as the lab serves it: the state plus preloading through the CLI and faults."""

    PERSONALITY_FAULTS: ClassVar[frozenset[str]] = CONFIG_FAULTS | OPER_FAULTS | {FACTS_FAULT, "status_columns"}
    FAULT_PARAMS = {**FAULT_PARAMS, "status_columns": frozenset()}

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        preload = (extra or {}).get("preload_files")
        super().__init__(name, platform, extra)
        if preload:
            self._preload(preload)

    def _preload(self, files: Mapping[str, str]) -> None:
        """Apply rendered files at start through the same CLI path as a push (a configuration session)."""
        text = files.get("config.eos") or next(iter(files.values()), "")
        lines = [ln for ln in config_file_commands(text) if ln != "end"]
        self.cli(["configure session roceops-preload", *lines, "commit", "write memory"])

    def cli(self, commands: list[str], bypass_faults: bool = True) -> None:
        """Run ``commands`` on an internal privileged session; raise LabError on the first EOS error."""
        cli = EosCli(self, SessionInfo(username="admin", pty=False), internal=bypass_faults)
        cli.enabled = True
        for cmd in commands:
            reply = cli.handle(cmd)
            out = reply.text if isinstance(reply, Reply) else reply
            errors = [ln for ln in out.splitlines() if ln.startswith("%")]
            if errors:
                raise LabError(f"{self.name}: EOS refused {cmd!r}: {errors[0]}")
        if cli.frames:
            cli.handle("end")

    # ---- faults

    def apply_fault(self, name: str, **params: Any) -> None:
        fault = canonical_fault_name(name)
        if fault in FAULT_PARAMS:
            bad = sorted(set(params) - FAULT_PARAMS[fault])
            if bad:
                raise LabError(f"fault '{fault}' takes {', '.join(sorted(FAULT_PARAMS[fault])) or 'no parameters'}"
                               f" (got: {', '.join(bad)})")
            port = params.get("port")
            if port is not None and port not in self.port_names:
                raise LabError(f"{self.name} has no port {port!r}")
        if fault in OPER_FAULTS:
            super().apply_fault(fault, **params)
            self.physical.apply(fault, params.get("port"))
        elif fault == "pfc_off":
            self._pfc_off(params.get("port"), params.get("priority"))
            super().apply_fault(fault, **params)
        elif fault == "ecn_changed":
            self._ecn_changed(params.get("port"), params.get("min"), params.get("max"))
            super().apply_fault(fault, **params)
        elif fault == "mtu_mismatch":
            port = params.get("port") or self.ports_sorted[0]
            self.cli(["configure", f"interface {port}", f"mtu {int(params.get('mtu', 1500))}"])
            super().apply_fault(fault, **params)
        else:
            super().apply_fault(name, **params)  # transport faults, reject_config, unknown names

    def clear_faults(self) -> None:
        super().clear_faults()
        self.physical.clear()

    def _pfc_off(self, port: str | None, priority: Any) -> None:
        candidates = [port] if port else [p for p in self.ports_sorted if self._no_drop(p)]
        if not candidates or not self._no_drop(candidates[0]):
            raise LabError(f"{self.name}: no port with PFC to turn off{f' on {port}' if port else ''}")
        target = candidates[0]
        prios = self._no_drop(target)
        drop = [int(priority)] if priority is not None else prios
        if not set(drop) <= set(prios):
            raise LabError(f"{self.name}: PFC is not on for priority {priority} on {target} (on: {prios})")
        cmds = ["configure", f"interface {target}", *(f"no priority-flow-control priority {p} no-drop" for p in drop)]
        if not set(prios) - set(drop):
            cmds.append("no priority-flow-control on")
        self.cli(cmds)

    def _ecn_changed(self, port: str | None, min_b: Any, max_b: Any) -> None:
        cmds = ["configure"]
        for name in [port] if port else self.ports_sorted:
            for qkey, q in self._interface(name).children.items():
                if not (isinstance(q, Node) and int(qkey.split()[-1]) in self.physical.lossless):
                    continue
                line = q.children.get("random-detect ecn minimum-threshold")
                if not isinstance(line, str):
                    continue
                words = line.split()
                lo = _kbytes(int(min_b)) if min_b is not None else int(words[3]) * 2
                hi = _kbytes(int(max_b)) if max_b is not None else int(words[6]) * 2
                tail = " ".join(words[8:])
                new = f"random-detect ecn minimum-threshold {lo} kbytes maximum-threshold {hi} kbytes {tail}"
                cmds += [f"interface {name}", qkey, new.strip()]
        if len(cmds) == 1:
            raise LabError(f"{self.name}: no lossless queue with ECN thresholds to change (deploy first)")
        self.cli(cmds)


FrameT = tuple[str, tuple[str, ...], str]  # (mode, path of keys from the root, prompt tag)


class EosCli(Session):
    """One SSH session: the privilege level, config target (running-config or a named session) and mode stack."""

    state: EosState

    def __init__(self, state: DeviceState, info: SessionInfo, internal: bool = False) -> None:
        super().__init__(state, info)
        self.enabled = False
        self.target: str | None = None  # None: configure terminal; else the configuration session's name
        self.frames: list[FrameT] = []  # empty: exec mode
        self.internal = internal
        self.state.terminals += 1
        self.terminal = f"vty{self.state.terminals}"

    def prompt(self) -> str:
        host = self.state.hostname
        if not self.frames:
            return f"{host}{'#' if self.enabled else '>'}"
        sess = f"-s-{self.target[:6]}" if self.target else ""
        tag = self.frames[-1][2]
        return f"{host}(config{sess}{'-' + tag if tag else ''})#"

    def handle(self, line: str) -> str | Reply:
        self.state.tick()
        text = line.strip()
        if not text or text.startswith("!"):
            return ""
        tokens = text.split()
        if tokens[0] == "do" and len(tokens) > 1:
            text, tokens = text[2:].strip(), tokens[1:]
        if tokens[0] in ("show", "sh"):
            if not self.enabled and lab_show.needs_privilege(tokens):
                return PRIVILEGED_ERROR
            return lab_show.show(self, text)
        if not self.frames:
            return self._exec(tokens, line)
        return self._config(tokens, line)

    # ---- errors

    def invalid(self, raw: str, token: int) -> str:
        """EOS's ``% Invalid input`` with the ``^`` under the offending word of the echoed command."""
        starts = [m.start() for m in re.finditer(r"\S+", raw)]
        pos = starts[min(token, len(starts) - 1)] if starts else 0
        return " " * (len(self.prompt()) + pos) + "^\n% Invalid input"

    # ---- exec mode

    def _exec(self, tokens: list[str], raw: str) -> str:
        cmd = {"en": "enable", "conf": "configure", "config": "configure", "wr": "write"}.get(tokens[0], tokens[0])
        args = tokens[1:]
        if cmd in ("exit", "logout", "quit"):
            raise CloseSession("")
        if cmd == "enable":
            self.enabled = True
            return ""
        if cmd == "disable":
            self.enabled = False
            return ""
        if cmd == "terminal" and len(args) == 2 and args[1].isdigit():
            if args[0] == "length":
                return "Pagination disabled." if args[1] == "0" else ""
            if args[0] == "width":
                return f"Width set to {args[1]} columns."
        if cmd not in ("configure", "write", "copy", "clear", "no"):
            return self.invalid(raw, 0)
        if not self.enabled:
            return PRIVILEGED_ERROR
        if cmd == "configure":
            if not args or args in (["terminal"], ["t"], ["term"]):
                self.frames, self.target = [("config", (), "")], None
                return ""
            if args[0] == "session":
                return self._session_command(args[1:], raw)
            return self.invalid(raw, 1)
        if cmd == "no" and args[:1] == ["configure"] and len(args) == 3 and args[1] == "session":
            sess = self.state.sessions.get(args[2])
            if sess is not None:
                self.state.abort(sess)
            return ""
        if (cmd == "write" and args in ([], ["memory"])) or (cmd == "copy" and args == ["running-config",
                                                                                          "startup-config"]):
            self.state.save()
            return "Copy completed successfully."
        if cmd == "clear" and args == ["counters"]:
            return ""
        return self.invalid(raw, 1)

    def _session_command(self, args: list[str], raw: str) -> str:
        st = self.state
        if not args:
            st.auto_sessions += 1
            args = [f"session{st.auto_sessions}"]
        name, action = args[0], args[1] if len(args) > 1 else None
        sess = st.sessions.get(name)
        if len(args) > 2 or action not in (None, "commit", "abort"):
            return self.invalid(raw, 3)
        if action == "abort":
            if sess is None:
                return f"% Session {name} does not exist"
            st.abort(sess)
            return ""
        if sess is None:
            if len(st.sessions) >= MAX_PENDING_SESSIONS:
                return "% Maximum number of pending sessions has been reached"
            sess = ConfigSession(name, st.running.copy(), self.info.username, self.terminal)
            st.sessions[name] = sess
        if action == "commit":
            if sess.state == "pendingCommitTimer":
                st.confirm(sess)
            else:
                st.commit(sess, None)
            return ""
        if sess.state == "pendingCommitTimer":
            return f"% Cannot enter session {name} (pending commit timer; commit or abort it first)"
        self.frames, self.target = [("config", (), "")], name
        return ""

    # ---- configuration modes

    def _root(self) -> Node | None:
        if self.target is None:
            return self.state.own_running()
        sess = self.state.sessions.get(self.target)
        return sess.config if sess is not None else None

    def _leave(self) -> None:
        self.frames, self.target = [], None

    def _config(self, tokens: list[str], raw: str) -> str:
        if tokens == ["end"]:
            self._leave()
            return ""
        if tokens == ["exit"]:
            self.frames.pop()
            if not self.frames:
                self._leave()
            return ""
        if tokens[0] in ("commit", "abort", "rollback"):
            return self._session_control(tokens, raw)
        root = self._root()
        if root is None:
            self._leave()
            return "% Configuration session no longer exists"
        if "reject_config" in self.state.faults.extra and not self.internal:
            return REJECT_ERROR
        failures: list[Failed] = []
        for depth in range(len(self.frames) - 1, -1, -1):
            m = match(self.frames[depth][0], tokens)
            if isinstance(m, Matched):
                return self._apply(root, depth, m)
            failures.append(m)
        worst = max(failures, key=lambda f: (bool(f.error), f.token))
        return worst.error or self.invalid(raw, worst.token)

    def _apply(self, root: Node, depth: int, m: Matched) -> str:
        _, path, tag = self.frames[depth]
        node = walk(root, path)
        if node is None:  # the section went away under us (timer revert, another session)
            self.frames = self.frames[:1]
            return "% Configuration mode no longer exists"
        try:
            sub = apply(node, m, self.state.port_names)
        except ConfigError as exc:
            return str(exc)
        if depth + 1 < len(self.frames):
            del self.frames[depth + 1:]
        if sub is not None:
            key = m.key
            if m.rule.enter == "if":
                new_tag = f"if-{short_ifname(m.body[1])}"
            elif m.rule.enter == "txq":
                new_tag = f"{tag}-txq-{m.body[1]}"
            else:
                new_tag = "router-bgp"
            self.frames.append((m.rule.enter or "config", (*path, key), new_tag))
        return ""

    def _session_control(self, tokens: list[str], raw: str) -> str:
        sess = self.state.sessions.get(self.target) if self.target else None
        if sess is None:
            return self.invalid(raw, 0)
        if tokens == ["abort"]:
            self.state.abort(sess)
            self._leave()
            return ""
        if tokens == ["rollback", "clean-config"]:
            sess.config = self.state.clean_config()
            self.frames = self.frames[:1]
            return ""
        if tokens == ["commit"]:
            self.state.commit(sess, None)
            self._leave()
            return ""
        if tokens[:2] == ["commit", "timer"]:
            if len(tokens) != 3:
                return "% Incomplete command" if len(tokens) == 2 else self.invalid(raw, 3)
            seconds = _hms(tokens[2])
            if seconds is None:
                return self.invalid(raw, 2)
            self.state.commit(sess, seconds)
            self._leave()
            return ""
        return "% Incomplete command" if len(tokens) == 1 else self.invalid(raw, 1)


def config_file_commands(text: str) -> list[str]:
    """A saved config file as the commands EOS replays: indentation opens a sub-mode, a dedent leaves it.

    >>> config_file_commands("hostname a\\n!\\ninterface Et1\\n   tx-queue 3\\n      priority strict\\nip routing\\n")
    ['hostname a', 'interface Et1', 'tx-queue 3', 'priority strict', 'exit', 'exit', 'ip routing']
    """
    commands: list[str] = []
    depths: list[int] = []  # indentation of each open sub-mode's first line
    for raw in text.splitlines():
        command = raw.strip()
        if not command or command.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while depths and indent < depths[-1]:
            depths.pop()
            commands.append("exit")
        if not depths or indent > depths[-1]:
            depths.append(indent)
        commands.append(command)
    return commands


def _kbytes(value: int) -> int:
    """A byte count (fault parameter) in the kbytes EOS thresholds take, at least 1."""
    return max(1, (value + 512) // 1024)  # rounded half up


def _hms(value: str) -> int | None:
    """``hh:mm:ss`` -> seconds (at least one second).

    >>> _hms("00:05:00"), _hms("0:0:2"), _hms("00:00:00"), _hms("5m")
    (300, 2, None, None)
    """
    parts = value.split(":")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    h, m, s = (int(p) for p in parts)
    if m > 59 or s > 59:
        return None
    total = h * 3600 + m * 60 + s
    return total or None
