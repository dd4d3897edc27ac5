"""``echo``: a tiny Linux-like personality for testing the lab transport.

Prompt ``admin@NAME:~$ `` (the SSH username and the device's hostname). Commands:

* ``hostname``          -> the device hostname (``extra["hostname"]``, default: device name)
* ``echo WORDS...``     -> WORDS joined by single spaces (like bash word splitting)
* ``sleep-ms N``        -> waits N ms (without blocking other sessions), prints nothing
* ``set KEY VALUE...``  -> stores VALUE under KEY in the *device* state (seen by all sessions)
* ``get KEY``           -> the stored value (``extra["kv"]`` seeds the store)
* ``exit`` / ``logout`` -> ends the session
* anything else         -> ``-bash: CMD: command not found`` (exit status 127)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.lab.personality import CloseSession, DeviceState, Personality, Reply, Session


class EchoState(DeviceState):
    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, platform, extra)
        self.hostname: str = str(self.extra.get("hostname", name))
        self.kv: dict[str, str] = {str(k): str(v) for k, v in dict(self.extra.get("kv", {})).items()}


class EchoSession(Session):
    state: EchoState

    def prompt(self) -> str:
        return f"{self.info.username}@{self.state.hostname}:~$ "

    def handle(self, line: str) -> str | Reply:
        words = line.split()
        if not words:
            return ""
        cmd, args = words[0], words[1:]
        if cmd == "hostname":
            return self.state.hostname
        if cmd == "echo":
            return " ".join(args)
        if cmd == "sleep-ms" and len(args) == 1 and args[0].isdigit():
            return Reply("", delay_ms=int(args[0]))
        if cmd == "set" and len(args) >= 2:
            self.state.kv[args[0]] = " ".join(args[1:])
            return ""
        if cmd == "get" and len(args) == 1:
            if args[0] in self.state.kv:
                return self.state.kv[args[0]]
            return Reply(f"get: {args[0]}: not set", exit_status=1)
        if cmd in ("exit", "logout"):
            raise CloseSession("logout")
        return Reply(f"-bash: {cmd}: command not found", exit_status=127)


DEVICE = Personality(EchoState, EchoSession)
