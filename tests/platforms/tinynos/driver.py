"""TinyNOS device I/O: one read-only command, its JSON answer as an ObservedSwitch."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedSwitch, as_observed
from roceops.device.oper import OperState, PortOper
from roceops.platforms.driver import RoomDriver

SHOW_CONFIG = "show-config"


class TinyDriver(RoomDriver):
    def collect(self, conn: Any, intent: Any, ports: Collection[str] | None = None) -> dict[str, str]:
        return {SHOW_CONFIG: conn.send_command(SHOW_CONFIG)}

    def collect_counters(self, conn: Any, intent: Any, ports: Collection[str] | None = None) -> dict[str, str]:
        return self.collect(conn, intent, ports)

    def observe(self, outputs: dict[str, str]) -> ObservedSwitch:
        config = json.loads(outputs[SHOW_CONFIG])
        return ObservedSwitch.model_validate({"ports": {name: {"mtu": p["mtu"], "pfc_priorities": p["pfc"]}
                                                        for name, p in config["ports"].items()}})

    def expected(self, intent: SwitchIntent) -> ObservedSwitch:
        return as_observed(intent, ObservedSwitch)

    def operational(self, outputs: dict[str, str]) -> OperState:
        config = json.loads(outputs[SHOW_CONFIG])
        return OperState(device=config["hostname"], ports={n: PortOper(name=n, mtu=p["mtu"])
                                                           for n, p in config["ports"].items()})


DRIVER = TinyDriver()
