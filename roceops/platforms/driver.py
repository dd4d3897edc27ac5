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

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from roceops.audit.compare import Drift, compare
from roceops.plan.model import HostIntent, SwitchIntent
from roceops.plan.observed import Observed
from roceops.render.engine import RenderedDevice

Intent = SwitchIntent | HostIntent


class DriverError(Exception):
    """A device refused or failed an operation; the message is safe to show (no secrets)."""


class ConfirmNotTaken(DriverError):
    """The platform reported success but read-back shows the change was reverted or is still pending."""


@dataclass(frozen=True)
class Snapshot:
    """A device's configuration at one moment, exactly as read: the backup that restores it.

    ``text`` is stored verbatim in the journal; ``format`` says how to read it.
    """

    format: str  # the room's name for how ``text`` is written (a CONFIG_DB JSON document, a CLI config, ...)
    text: str


@dataclass(frozen=True)
class Change:
    """What ``apply`` will send, and the diff an operator reviews in a dry run."""

    diff: str  # human-readable: JSON Patch, hier_config remediation, nv config diff, before/after values
    payload: Any  # platform-specific: patch ops, CLI lines, nv commands, shell commands
    summary: dict[str, int] = field(default_factory=dict)  # e.g. {"add": 3, "replace": 1, "remove": 0}

    @property
    def empty(self) -> bool:
        return not self.payload


@dataclass(frozen=True)
class DeviceFacts:
    """What a switch says it is, read before anything is pushed (``Driver.read_facts``).

    ``hardware`` is the identity the NOS reports and a fabric's ``hwsku`` names: SONiC ``HwSKU``, NVUE
    ``platform``, EOS ``modelName``. ``ports`` are the front-panel ports the device has (None: not readable).
    """

    nos_version: str | None
    hardware: str | None
    ports: frozenset[str] | None


class Driver(Protocol):
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

    def operational(self, outputs: dict[str, str], intent: Intent) -> OperState:
        """Parse the same outputs into operational state for health checks."""
        ...

    # --- device I/O (conn is a netmiko BaseConnection) ---------------------------------------
    def read_config(self, conn: Any) -> Snapshot:
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


    def verify(self, conn: Any, intent: Intent, skip: Collection[str] = ()) -> list[Drift]:
        """Read the device back: every departure of what ``observe`` sees from ``expected`` (``skip``: top-level
        parts a deploy did not set). Rooms get it from :class:`ReadBack`."""
        ...


class ReadBack:
    """``Driver.verify`` as every room does it: collect, observe, compare with expected (a mixin)."""

    def verify(self, conn: Any, intent: Intent, skip: Collection[str] = ()) -> list[Drift]:
        driver: Driver = self  # type: ignore[assignment]  # the room's driver class mixes this in
        return compare(driver.expected(intent), driver.observe(driver.collect(conn, intent)), skip=skip)

class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PortOper(_M):
    """Operational state of a switch port or NIC. Counter names are platform-neutral:

    ``pfc_rx_<p>``/``pfc_tx_<p>`` pause frames per priority, ``ecn_marked``, ``cnp_sent``,
    ``cnp_handled``, ``crc_errors``, ``fec_uncorrected``, ``symbol_errors``, ``carrier_changes``,
    ``pfcwd_storms``, ``rx_packets``, ``tx_packets``, ``pause_rx``/``pause_tx`` (link-level 802.3x pause).
    """

    name: str
    oper_up: bool | None = None
    speed: int | None = Field(default=None, description="Mb/s")
    mtu: int | None = None
    counters: dict[str, int] = Field(default_factory=dict)
    unread: dict[str, str] = Field(default_factory=dict,
                                   description="counter the platform has but could not be read -> why (never 0)")
    rx_power_dbm: list[float] | None = None


class LldpNeighbor(_M):
    device: str
    port: str


class BgpSession(_M):
    state: str  # "Established" when up; anything else is down
    remote_asn: int | None = None


class PcieGpuPath(_M):
    """A host NIC's PCIe path to its GPU (GPUDirect RDMA): bridges between them, those with ACS redirect on, and
    why nothing was judged (``skipped``: no GPU, no shared switch, lspci not readable)."""

    gpu: str | None = None
    bridges: list[str] = Field(default_factory=list)
    redirecting: list[str] = Field(default_factory=list)
    skipped: str | None = None


class OperState(_M):
    device: str
    ports: dict[str, PortOper] = Field(default_factory=dict)
    lldp: dict[str, LldpNeighbor] = Field(default_factory=dict, description="local port -> neighbour")
    bgp: dict[str, BgpSession] = Field(default_factory=dict, description="neighbour IP -> session")
    gpu_paths: dict[str, PcieGpuPath] = Field(default_factory=dict, description="host NIC -> its path to its GPU")
    firmware: str | None = None
    driver: str | None = None
    os_version: str | None = None


@dataclass(frozen=True)
class RdmaEnd:
    """One rail NIC's part in an RDMA bandwidth test: its RDMA device, GID index, the rail's TCP port and the
    ToS byte the traffic carries."""

    rdma_dev: str
    gid_index: int
    port: int
    tclass: int


@dataclass(frozen=True)
class RdmaBandwidth:
    """What one bandwidth test measured (Gb/s = 10^9 bits/s)."""

    msg_bytes: int
    iterations: int
    peak_gbps: float
    average_gbps: float
    msg_rate_mpps: float


@runtime_checkable
class TrafficDriver(Protocol):
    """A host driver that can run an RDMA bandwidth test between two hosts (``health --traffic``)."""

    traffic_overhead_s: float  # time a test takes beyond its duration (connection setup, head start)

    def traffic_serve(self, conn: Any, ends: list[RdmaEnd], duration_s: int) -> None:
        """Start a server per rail in the background and return at once."""
        ...

    def traffic_send(self, conn: Any, runs: list[tuple[RdmaEnd, str]],
                     duration_s: int) -> dict[str, RdmaBandwidth | str]:
        """Run every rail's client to its peer address at once: RDMA device -> result, or why there is none."""
        ...
