"""TinyNOS simulated device: holds its config JSON and answers ``show-config``; ``set-mtu PORT N`` changes it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from roceops.lab.personality import CloseSession, DeviceState, Personality, Reply, Session


class TinyState(DeviceState):
    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        data = dict(extra or {})
        preload = dict(data.pop("preload_files", None) or {})
        super().__init__(name, platform, data)
        ports = {str(p["name"]): {"mtu": 9100, "pfc": []} for p in data.get("ports") or []}
        self.config: dict[str, Any] = {"hostname": name, "ports": ports}
        if "config.json" in preload:
            self.config = json.loads(preload["config.json"])


class TinySession(Session):
    state: TinyState

    def prompt(self) -> str:
        return f"admin@{self.state.config['hostname']}:~$ "

    def handle(self, line: str) -> str | Reply:
        words = line.split()
        if not words:
            return ""
        if words == ["show-config"]:
            return json.dumps(self.state.config, sort_keys=True)
        if words[0] == "set-mtu" and len(words) == 3 and words[1] in self.state.config["ports"]:
            self.state.config["ports"][words[1]]["mtu"] = int(words[2])
            return ""
        if words[0] in ("exit", "logout"):
            raise CloseSession("logout")
        return Reply(f"error: unknown command {words[0]}", exit_status=1)


DEVICE = Personality(TinyState, TinySession)
