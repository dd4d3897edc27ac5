"""roceops' own lossless headroom estimate per priority group, for switches without vendor headroom data.

Used only where no vendor data applies (docs/headroom.md): a SONiC switch on a SKU with ``pg_profile_lookup.ini``
takes its rows, or buffermgrd's own computation in the dynamic model (:mod:`roceops.hardware.dynamic_headroom`,
the exact port of buffer_headroom_mellanox.lua); lint HDRM004 warns when this estimate is below a vendor row.
It is a simplification of that lua (no small-packet-by-byte weighting, no per-tile term, no 8-lane or
Spectrum-6 adjustments; its inputs are qos.buffers' fields):

    peer_response = pause_quanta(speed) * 512 / 8                    (IEEE 802.3 31B.3.7)
    cable         = 2 * length_m * speed_bps / 198e6 / 8             (round trip in fibre)
    propagation   = port_mtu + cable + 2 * gearbox + mac_phy_delay + peer_response
    occupancy     = (100 - small% + small% * cell_size / 64) / 100   (when cell_size > 128, else 1)
    xoff          = ceil1024(lossless_mtu + propagation * occupancy)
    xon           = ceil1024(pipeline_latency)
    size          = xon + xoff   (xon only with a shared headroom pool)

>>> h = compute_headroom(speed_mbps=400_000, cable_m=5, mtu=9216, small_packet_percent=0,
...                      mac_phy_delay=0, pipeline_latency=18_432)
>>> (h.xoff, h.xon, h.size)
(79872, 18432, 98304)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PAUSE_QUANTA: dict[int, int] = {
    10_000: 67, 25_000: 80, 40_000: 118, 50_000: 147, 100_000: 394,
    200_000: 453, 400_000: 905, 800_000: 905, 1_600_000: 905,
}
LIGHT_SPEED_IN_FIBRE = 198e6  # m/s, ~66% of c


@dataclass(frozen=True)
class HeadroomResult:
    xon: int
    xoff: int
    size: int
    propagation: int  # bytes, before cell occupancy


def _ceil1024(value: float) -> int:
    return math.ceil(value / 1024) * 1024


def compute_headroom(
    *,
    speed_mbps: int,
    cable_m: int,
    mtu: int,
    lossless_mtu: int | None = None,
    small_packet_percent: int = 100,
    cell_size: int = 144,
    mac_phy_delay: int = 19_800,
    pipeline_latency: int = 18_432,
    gearbox_delay: int = 0,
    shared_headroom: bool = False,
) -> HeadroomResult:
    if speed_mbps not in PAUSE_QUANTA:
        raise ValueError(f"no IEEE pause-quanta value for {speed_mbps} Mb/s")
    peer_response = PAUSE_QUANTA[speed_mbps] * 512 / 8
    cable = 2 * cable_m * speed_mbps * 1e6 / LIGHT_SPEED_IN_FIBRE / 8
    propagation = mtu + cable + 2 * gearbox_delay + mac_phy_delay + peer_response
    factor = cell_size / 64 if cell_size > 128 else 1.0
    occupancy = (100 - small_packet_percent + small_packet_percent * factor) / 100
    xoff = _ceil1024((lossless_mtu or mtu) + propagation * occupancy)
    xon = _ceil1024(pipeline_latency)
    size = xon if shared_headroom else xon + xoff
    return HeadroomResult(xon=xon, xoff=xoff, size=size, propagation=round(propagation))


def profile_name(speed_mbps: int, cable_m: int) -> str:
    """SONiC's naming convention, used on every platform for readability."""
    return f"pg_lossless_{speed_mbps}_{cable_m}m_profile"
