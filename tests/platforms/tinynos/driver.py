"""TinyNOS device I/O: one read-only command, its JSON answer as an ObservedSwitch."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, ClassVar, NoReturn

from roceops.device.change import Change, DriverError, RenderedDevice, Snapshot
from roceops.device.intent import Intent, SwitchIntent
from roceops.device.observed import ObservedSwitch, as_observed
from roceops.device.oper import OperState, PortOper
from roceops.platforms.driver import RoomDriver

SHOW_CONFIG = "show-config"


def _read_only() -> NoReturn:
    raise DriverError("TinyNOS is read-only: roceops audits it but pushes nothing to it")


class TinyDriver(RoomDriver):
    """A read-only room: the audit's half of the Driver protocol; every push step refuses with a DriverError."""

    commit_timer: ClassVar[bool] = False

    def diff(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        _read_only()

    def restore(self, current: Snapshot, backup: Snapshot) -> Change:
        _read_only()

    def read_config(self, conn: Any) -> Snapshot:
        _read_only()

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        _read_only()

    def confirm(self, conn: Any, txn: str) -> None:
        _read_only()

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        _read_only()

    def collect(self, conn: Any, intent: Any, ports: Collection[str] | None = None) -> dict[str, str]:
        return {SHOW_CONFIG: conn.send_command(SHOW_CONFIG)}

    def collect_counters(self, conn: Any, intent: Any, ports: Collection[str] | None = None) -> dict[str, str]:
        return self.collect(conn, intent, ports)

    def observe(self, outputs: dict[str, str]) -> ObservedSwitch:
        config = json.loads(outputs[SHOW_CONFIG])
        return ObservedSwitch.model_validate({"ports": {name: {"mtu": p["mtu"], "pfc_priorities": p["pfc"]}
                                                        for name, p in config["ports"].items()}})

    def expected(self, intent: Intent) -> ObservedSwitch:
        if not isinstance(intent, SwitchIntent):
            raise TypeError("TinyNOS manages switches only")
        return as_observed(intent, ObservedSwitch)

    def operational(self, outputs: dict[str, str]) -> OperState:
        config = json.loads(outputs[SHOW_CONFIG])
        return OperState(device=config["hostname"], ports={n: PortOper(name=n, mtu=p["mtu"])
                                                           for n, p in config["ports"].items()})


DRIVER = TinyDriver()
