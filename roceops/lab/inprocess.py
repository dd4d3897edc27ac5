"""A lab personality's session behind just enough of a Netmiko connection for the drivers' reads, in this
process: each written line is answered at once, echoed and followed by the prompt, as the SSH lab does. Tests
and the parse benches use it to run drivers against the lab without SSH."""

from __future__ import annotations

import time
from typing import Any

from roceops.lab.personality import Session


class InProcessConnection:
    """``lines``: every line written; ``server_s``: CPU seconds the personality spent answering them."""

    RETURN = "\n"
    remote_conn = None
    read_timeout_override = None

    def __init__(self, session: Session) -> None:
        self.session = session
        self.pending = ""
        self.lines: list[str] = []
        self.server_s = 0.0
        self.base_prompt = session.prompt().rstrip().rstrip("#$>").strip()

    def write_channel(self, data: str) -> None:
        lines = data.split("\n")
        for line in lines[:-1] if data.endswith("\n") else lines:
            self.lines.append(line)
            t0 = time.process_time()
            reply: Any = self.session.handle(line)
            self.server_s += time.process_time() - t0
            text = str(getattr(reply, "text", reply))
            self.pending += f"{line}\n{text}{'' if not text or text.endswith(chr(10)) else chr(10)}"
            self.pending += self.session.prompt()

    def read_channel(self) -> str:
        out, self.pending = self.pending, ""
        return out

    def normalize_cmd(self, command: str) -> str:
        return command.rstrip("\n") + "\n"

    def find_prompt(self) -> str:
        return self.session.prompt().strip()

    def enable(self, check_state: bool = True) -> None:  # Netmiko's keyword; the lab's enable needs no check
        self.write_channel("enable\n")
        self.read_channel()
