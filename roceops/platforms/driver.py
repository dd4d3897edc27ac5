"""Device I/O contract of a platform room: read, change, confirm, roll back, collect.

Each room provides ``DRIVER`` (an object satisfying :class:`Driver`) next to ``PLATFORM``.
The split follows the project rule *config building does no I/O; device I/O does
no config building*: ``diff``/``restore``/``observe``/``expected``/``operational``
are pure functions of text or intent; ``read_config``/``apply``/``confirm``/``abort``/``collect``/``verify``
talk to an open Netmiko connection and build nothing.

Transactions are the platform's own:

============  =========================================  ==============================
platform      apply(...) starts                          confirm / abort
============  =========================================  ==============================
sonic         ``config checkpoint`` + ``apply-patch``     ``config save`` / ``config rollback``
cumulus       ``nv config apply --confirm <t>``           ``--confirm-yes`` / ``--confirm-no``
eos           ``configure session`` + ``commit timer``    ``configure session X commit`` / ``abort``
linux_mlx5    captures values, runs the setup commands    nothing / re-apply captured values
============  =========================================  ==============================
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from roceops.device.change import Change, DeviceFacts, RenderedDevice, Snapshot
from roceops.device.compare import Drift, compare
from roceops.device.intent import Intent
from roceops.device.observed import Observed
from roceops.device.oper import OperState, RdmaBandwidth, RdmaEnd
from roceops.platforms.change_path import ChangePath


class Driver(Protocol):
    """Everything deploy, audit, health and verify call on a room's driver; :class:`RoomDriver` gives the parts
    most rooms share (``verify``, and the defaults of the parts a platform may lack)."""

    commit_timer: ClassVar[bool]  # an unconfirmed change reverts by itself (a platform commit timer)

    # --- pure ------------------------------------------------------------------------------
    def diff(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        """Diff between the device's current configuration and the rendered one (managed parts only)."""
        ...

    def restore(self, current: Snapshot, backup: Snapshot) -> Change:
        """The change that brings a device from ``current`` back to ``backup`` (journal rollback)."""
        ...

    def observe(self, outputs: dict[str, str]) -> Observed:
        """Parse ``collect``'s outputs, and nothing else, into the room's Observed model (only what is visible)."""
        ...

    def expected(self, intent: Intent) -> Observed:
        """The intent as this platform shows it, in the Observed model ``observe`` returns (every field set)."""
        ...

    def operational(self, outputs: dict[str, str]) -> OperState:
        """Parse the same outputs, and nothing else, into operational state for health checks: every port, NIC
        and neighbour they show, unnamed (``roceops.device.oper.for_intent`` keeps what the intent plans)."""
        ...

    def facts(self, outputs: dict[str, str]) -> DeviceFacts | None:
        """What the device says it is (release, hardware, ports), from ``collect``'s outputs; None: a platform
        whose devices report no NOS facts (hosts)."""
        ...

    def unverified(self, rendered: RenderedDevice) -> Collection[str]:
        """Top-level parts of the Observed model a deploy of ``rendered`` does not set (its read-back skips them)."""
        ...

    def route(self, current: Snapshot, change: Change, intent: Intent, facts: DeviceFacts | None) -> ChangePath | None:
        """The platform change engine's verdict on ``change``: in place or the bring-up path (None: no such rules,
        the platform's transaction takes every change)."""
        ...

    def mode_problems(self, outputs: dict[str, str], intent: Intent) -> list[str]:
        """Modes the device's configuration asks for that it does not run (they take effect only at a restart)."""
        ...

    # --- device I/O (conn is a netmiko BaseConnection) ---------------------------------------
    def read_config(self, conn: Any) -> Snapshot:
        ...

    def read_facts(self, conn: Any, current: Snapshot) -> DeviceFacts | None:
        """Read the device's facts before a push (``current``: the configuration just read); None: no NOS facts."""
        ...

    def read_mode_problems(self, conn: Any, intent: Intent, current: Snapshot | None = None) -> list[str]:
        """Read the device and return :meth:`mode_problems` (``current``: its configuration, when already read)."""
        ...

    def nic_mode_problems(self, conn: Any, intent: Intent) -> list[str]:
        """NICs whose operation mode keeps host-side settings from taking effect (a BlueField in DPU mode:
        ``nic.mode``)."""
        ...

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        """Start the platform transaction named ``txn`` and push ``change``; raise DriverError on refusal."""
        ...

    def confirm(self, conn: Any, txn: str) -> None:
        """Make the change permanent and read back that it really is (raise ConfirmNotTaken otherwise)."""
        ...

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        """Undo an unconfirmed change so the device is exactly at ``backup``."""
        ...

    def collect(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        """Run the read-only commands ``observe``/``operational`` need; command -> raw output.

        ``ports`` narrows the per-port reads of platforms that read port by port (None: every port);
        device-wide commands are always run.
        """
        ...

    def collect_counters(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        """Only the reads ``operational`` needs for link state and counters (a health check's second sample).

        ``operational`` on these outputs gives the ports' state and counters; configuration, LLDP, BGP and
        versions are left out.
        """
        ...

    def collect_rest(self, conn: Any, intent: Intent, counters: dict[str, str],
                     ports: Collection[str] | None = None) -> dict[str, str]:
        """``collect``'s outputs, given ``counters`` that ``collect_counters`` read just before: only the reads those
        lack are made. Health takes a first sample this way, counters when its window starts and the rest while
        the window runs (``observe``/``operational`` give what they give for ``collect``'s outputs)."""
        ...

    def verify(self, conn: Any, intent: Intent, skip: Collection[str] = ()) -> list[Drift]:
        """Read the device back: every departure of what ``observe`` sees from ``expected`` (``skip``: top-level
        parts a deploy did not set). Rooms get it from :class:`RoomDriver`."""
        ...


class RoomDriver:
    """What every room's driver class derives from: ``Driver.verify`` as every room does it (collect, observe,
    compare with expected), and the defaults of the parts a platform may not have: no commit timer, every part
    of a deploy verified, no NOS facts, no change-path rules, no restart-only modes (a room overrides what its
    platform has)."""

    commit_timer: ClassVar[bool] = False

    def unverified(self, rendered: RenderedDevice) -> Collection[str]:
        return ()

    def facts(self, outputs: dict[str, str]) -> DeviceFacts | None:
        return None

    def read_facts(self, conn: Any, current: Snapshot) -> DeviceFacts | None:
        return None

    def route(self, current: Snapshot, change: Change, intent: Intent, facts: DeviceFacts | None) -> ChangePath | None:
        return None

    def mode_problems(self, outputs: dict[str, str], intent: Intent) -> list[str]:
        return []

    def read_mode_problems(self, conn: Any, intent: Intent, current: Snapshot | None = None) -> list[str]:
        return []

    def nic_mode_problems(self, conn: Any, intent: Intent) -> list[str]:
        return []

    def collect_rest(self, conn: Any, intent: Intent, counters: dict[str, str],
                     ports: Collection[str] | None = None) -> dict[str, str]:
        """All of ``collect`` read again, with the earlier ``counters`` in place of the same commands' new outputs:
        right for a room whose counter reads are commands ``collect`` runs too (rooms read only the rest)."""
        driver: Driver = self  # type: ignore[assignment]  # the room's driver class mixes this in
        return {cmd: counters.get(cmd, text) for cmd, text in driver.collect(conn, intent, ports).items()}

    def verify(self, conn: Any, intent: Intent, skip: Collection[str] = ()) -> list[Drift]:
        driver: Driver = self  # type: ignore[assignment]  # the room's driver class mixes this in
        return compare(driver.expected(intent), driver.observe(driver.collect(conn, intent)), skip=skip)


def first_sample(commands: Sequence[str], counters: Mapping[str, str],
                 read: Callable[[list[str]], dict[str, str]]) -> dict[str, str]:
    """``commands``' outputs in their order: those ``counters`` holds from there, the others from one ``read`` of
    them (a room's ``collect_rest``)."""
    missing = [cmd for cmd in commands if cmd not in counters]
    rest = read(missing) if missing else {}
    return {cmd: counters[cmd] if cmd in counters else rest[cmd] for cmd in commands}


class TrafficDriver(Protocol):
    """A host driver that can run an RDMA bandwidth test between two hosts (``health --traffic``); a room that
    can names it in ``PlatformCode.traffic``."""

    traffic_overhead_s: float  # time a test takes beyond its duration (connection setup, head start)

    def traffic_serve(self, conn: Any, ends: list[RdmaEnd], duration_s: int) -> None:
        """Start a server per rail in the background and return at once."""
        ...

    def traffic_send(self, conn: Any, runs: list[tuple[RdmaEnd, str]],
                     duration_s: int) -> dict[str, RdmaBandwidth | str]:
        """Run every rail's client to its peer address at once: RDMA device -> result, or why there is none."""
        ...
