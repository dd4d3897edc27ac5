"""The Cumulus device's state: NVUE revisions (applied, pending, history, startup), the confirm window and
the physical layer. The bottom layer of the simulated switch: the shell, show and faults build on it."""

from __future__ import annotations

import itertools
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from roceops.lab.devices.cumulus.releases import views_tree
from roceops.lab.devices.cumulus.schema import (
    SCHEMA_515,
    Tree,
    apply_set,
    commands_text,
    parse_commands,
    resolve,
    schema_for,
)
from roceops.lab.devices.cumulus.view import View, build_view, speed_text
from roceops.lab.personality import DeviceState, lab_release
from roceops.lab.physical import Physical
from roceops.util.sorting import port_key

RELEASE = "5.14.0"  # the release of the captures in shared/fixtures/cumulus (a fabric's nos_version replaces it)

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


class CumulusStateCore(DeviceState):
    """The switch's revisions, confirm window and physical layer (no shell, no faults: see device.py)."""

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(name, platform, extra)
        self.clock = clock
        self.started = clock()
        self.hostname = str(self.extra.get("hostname", name))
        self.model = str(self.extra.get("model", "generic"))
        hwsku = self.extra.get("hwsku")
        self.platform_id = str(hwsku if hwsku and hwsku != "generic" else self.model)  # nv show system platform
        self.release = lab_release(self.extra.get("nos_version"), RELEASE, ".0")
        self.schema = schema_for(self.release)  # the words this release accepts (5.15+: `state enabled`, `ipv4`)
        self.new_words = self.schema is SCHEMA_515
        ports = list(self.extra.get("ports", []))
        self.physical = Physical(name, ports, self.extra.get("lossless", (3,)), clock=clock)
        self.port_names = ["eth0", "lo", *sorted(self.physical.ports, key=port_key)]
        # sub-port -> (cage, split count) for ports the SKU breaks out (swp1s0 -> ("swp1", 2))
        self.cage_of: dict[str, tuple[str, int]] = {
            str(p["name"]): (str(p["cage"]), int(p["breakout"])) for p in ports
            if p.get("cage") and int(p.get("breakout", 1)) > 1}
        self.port_speeds = {p.name: speed_text(p.speed) for p in self.physical.ports.values()}
        factory: Tree = {}
        ip = "ipv4" if self.new_words else "ip"
        for line in (f"interface eth0 {ip} address dhcp", "interface eth0 ip vrf mgmt", "interface eth0 type eth",
                     f"system hostname {self.hostname}"):
            apply_set(factory, resolve("set", line.split(), self.schema))
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
        view = build_view(views_tree(self.applied, self.new_words), self.port_names, self.port_speeds)
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

    @property
    def rejecting(self) -> bool:
        return "reject_config" in self.faults.extra






def _now() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S")
