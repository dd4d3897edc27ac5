"""Operational state (observed only, used by health checks): ports' link state and counters, LLDP neighbours,
BGP sessions, versions; and the RDMA ends and measured bandwidth of a traffic test. A counter that cannot be read
is named in ``unread``, never 0."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from roceops.device.intent import HostIntent, Intent

_HEX = re.compile(r"[0-9a-f]{12}")
_SEPARATORS = re.compile(r"[.:-]")
_CANONICAL = re.compile(r"(?:[0-9a-f]{2}:){5}[0-9a-f]{2}")  # already aa:bb:cc:dd:ee:ff (most tables print that)


def canonical_mac(text: str) -> str | None:
    """A MAC address in any of the usual spellings as ``aa:bb:cc:dd:ee:ff`` (None when it is not one).

    >>> canonical_mac("0005.8671.5B01"), canonical_mac("52:54:00:87:8f:2c"), canonical_mac("failed")
    ('00:05:86:71:5b:01', '52:54:00:87:8f:2c', None)
    """
    if _CANONICAL.fullmatch(text):  # the general path below would give it back unchanged
        return None if text == "00:00:00:00:00:00" else text
    digits = _SEPARATORS.sub("", text.strip().lower())
    if not _HEX.fullmatch(digits) or digits == "0" * 12:
        return None
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2))


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PortOper(_M):
    """Operational state of a switch port or NIC. Counter names are platform-neutral:

    ``pfc_rx_<p>``/``pfc_tx_<p>`` pause frames per priority (``pfc_rx_total``/``pfc_tx_total`` over every priority
    where a platform shows totals only), ``ecn_marked``, ``cnp_sent``,
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
    mac: str | None = Field(default=None, description="a host NIC's own MAC address (aa:bb:cc:dd:ee:ff)")


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
    nearest_gpu: str | None = Field(default=None, description="nvidia-smi topo -m: 'GPU0 PIX' (None: not read)")


class OperState(_M):
    """What a room's ``operational(outputs)`` reads: every port, NIC and neighbour the device shows, unnamed (the
    device's output does not say which planned device it is); :func:`for_intent` keeps the planned part."""

    device: str = ""
    ports: dict[str, PortOper] = Field(default_factory=dict)
    lldp: dict[str, LldpNeighbor] = Field(default_factory=dict, description="local port -> neighbour")
    bgp: dict[str, BgpSession] = Field(default_factory=dict, description="neighbour IP -> session")
    gpu_paths: dict[str, PcieGpuPath] = Field(default_factory=dict, description="host NIC -> its path to its GPU")
    neighbor_macs: dict[str, list[str]] = Field(
        default_factory=dict, description="switch port -> MAC addresses in its IPv6 neighbour table (what is cabled "
                                          "there when LLDP is absent; see canonical_mac)")
    firmware: str | None = None
    driver: str | None = None
    os_version: str | None = None


def for_intent(state: OperState, intent: Intent) -> OperState:
    """The part of a device's operational state its intent plans, named as the intent names the device: the
    planned switch ports (in the intent's order) or host NICs (by netdev, sorted) the device shows, and those
    NICs' GPU paths. LLDP, BGP and versions are device-wide and kept whole."""
    if isinstance(intent, HostIntent):
        names: list[str] = sorted(intent.nics)
        paths = {n: p for n, p in state.gpu_paths.items() if n in intent.nics}
    else:
        names, paths = list(intent.ports), {}
    ports = {n: state.ports[n] for n in names if n in state.ports}
    return state.model_copy(update={"device": intent.name, "ports": ports, "gpu_paths": paths})


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
