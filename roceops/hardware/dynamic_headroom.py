"""Lossless PG headroom as SONiC's dynamic buffer model computes it on NVIDIA Spectrum switches.

A line-by-line port of sonic-net/sonic-swss ``cfgmgr/buffer_headroom_mellanox.lua`` @
e6b0c5b5d2ab52354c4ec941f7c9005aeec3f779 (buffermgrd runs it per port in the dynamic model), with its inputs:

* ``ASIC_TABLE`` (STATE_DB) per ASIC: sonic-net/sonic-buildimage ``platform/mellanox/asic_table.j2`` @
  086b03bd70f9e211aaaf5f6aefe0790b508d2a94 (cell_size, pipeline_latency and mac_phy_delay in KiB,
  peer_response_time), chosen by the platform string as that template's ``platform2asic`` does;
* ``LOSSLESS_TRAFFIC_PATTERN`` (mtu 1024, small_packet_percentage 50) and ``DEFAULT_LOSSLESS_BUFFER_PARAMETER``
  (over_subscribe_ratio only with a shared headroom pool): ``files/build_templates/buffers_config.j2`` @ 086b03bd
  (lines 331-347, written in dynamic mode);
* the shared headroom pool size: the SKU's ``ingress_lossless_pool`` ``xoff``.

>>> h = mellanox_headroom(asic="MELLANOX-SPECTRUM-4", speed_mbps=400_000, cable_m=30, port_mtu=9216, lanes=4)
>>> (h.xon, h.xoff, h.size)
(19456, 113664, 133120)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# platform/mellanox/asic_table.j2 @ 086b03bd: platform2asic (the platforms of the shipped SKUs and their siblings).
PLATFORM_ASIC: dict[str, str] = {
    "x86_64-mlnx_msn4700-r0": "MELLANOX-SPECTRUM-3", "x86_64-mlnx_msn4600c-r0": "MELLANOX-SPECTRUM-3",
    "x86_64-mlnx_msn4600-r0": "MELLANOX-SPECTRUM-3", "x86_64-mlnx_msn4410-r0": "MELLANOX-SPECTRUM-3",
    "x86_64-nvidia_sn4280-r0": "MELLANOX-SPECTRUM-3", "x86_64-nvidia_sn4800-r0": "MELLANOX-SPECTRUM-3",
    "x86_64-nvidia_sn5400-r0": "MELLANOX-SPECTRUM-4", "x86_64-nvidia_sn5600-r0": "MELLANOX-SPECTRUM-4",
    "x86_64-nvidia_sn5610n-r0": "MELLANOX-SPECTRUM-4", "x86_64-nvidia_sn5640-r0": "MELLANOX-SPECTRUM-5",
}


@dataclass(frozen=True)
class AsicTable:
    """One ``ASIC_TABLE:<asic>`` entry of asic_table.j2 (latencies in KiB, as the template writes them)."""

    cell_size: int
    pipeline_latency_kb: float
    mac_phy_delay_kb: float
    peer_response_time_kb: float


ASIC_TABLE: dict[str, AsicTable] = {  # platform/mellanox/asic_table.j2 @ 086b03bd
    "MELLANOX-SPECTRUM": AsicTable(96, 19, 0.8, 3.8),
    "MELLANOX-SPECTRUM-2": AsicTable(144, 19, 0.8, 3.8),
    "MELLANOX-SPECTRUM-3": AsicTable(144, 19, 0.8, 3.8),
    "MELLANOX-SPECTRUM-4": AsicTable(192, 19, 0.8, 3.8),
    "MELLANOX-SPECTRUM-5": AsicTable(192, 19, 0.8, 3.8),
    "MELLANOX-SPECTRUM-6": AsicTable(256, 42, 0.8, 3.8),
}
# buffers_config.j2 @ 086b03bd, LOSSLESS_TRAFFIC_PATTERN|AZURE in dynamic mode.
LOSSLESS_MTU, SMALL_PACKET_PERCENTAGE = 1024, 50
# buffer_headroom_mellanox.lua: pause quanta per speed (IEEE 802.3 31B.3.7) and its constants.
PAUSE_QUANTA: dict[int, int] = {800_000: 905, 400_000: 905, 200_000: 453, 100_000: 394, 50_000: 147,
                                40_000: 118, 25_000: 80, 10_000: 67, 1000: 2, 100: 1}
SPEED_OF_LIGHT, MINIMAL_PACKET, HEADROOM_COMPENSATION, SPECTRUM6_COMPENSATION = 198_000_000, 64, 2 * 1024, 18 * 1024
# Ported from sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua @ e6b0c5b5d2ab52354c4ec941f7c9005aeec3f779


@dataclass(frozen=True)
class DynamicHeadroom:
    xon: int
    xoff: int
    size: int


def asic_of(platform: str) -> str | None:
    """The ``ASIC_TABLE`` key asic_table.j2 gives ``platform``; None when it is not a Mellanox platform listed."""
    return PLATFORM_ASIC.get(platform)


def _ceil1024(value: float) -> int:
    return math.ceil(value / 1024) * 1024


def _worst_case_factor(cell_size: int) -> int:
    factor = cell_size / MINIMAL_PACKET if cell_size > 2 * MINIMAL_PACKET else (2 * cell_size) / (1 + cell_size)
    return math.ceil(factor)


def mellanox_headroom(*, asic: str, speed_mbps: int, cable_m: int, port_mtu: int, lanes: int,
                      gearbox_delay: float = 0, shared_headroom: bool = False) -> DynamicHeadroom:
    """xon/xoff/size buffermgrd writes for a port: the lua's arithmetic, step by step (``lanes`` 8: 8-lane port)."""
    t = ASIC_TABLE[asic]
    pipeline_latency = t.pipeline_latency_kb * 1024
    mac_phy_delay = t.mac_phy_delay_kb * 1024
    pause_quanta = PAUSE_QUANTA.get(speed_mbps)
    peer_response = pause_quanta * 512 / 8 if pause_quanta is not None else t.peer_response_time_kb * 1024
    kb_on_tile = speed_mbps / 1000 * 120 / 8 if asic[-1] in "45" else 0  # Spectrum-4 and -5 only
    speed_overhead = 0
    if lanes == 8:
        pipeline_latency *= 2
        speed_overhead = port_mtu
    worst = _worst_case_factor(t.cell_size)
    small_by_byte = 100 * MINIMAL_PACKET / ((SMALL_PACKET_PERCENTAGE * MINIMAL_PACKET
                                             + (100 - SMALL_PACKET_PERCENTAGE) * LOSSLESS_MTU) / 100)
    occupancy = (100 - small_by_byte + small_by_byte * worst) / 100
    on_gearbox = speed_mbps * gearbox_delay / (8 * 1024) if gearbox_delay else 0
    on_cable = 2 * cable_m * speed_mbps * 1_000_000_000 / SPEED_OF_LIGHT / (8 * 1000)
    propagation = port_mtu + on_cable + 2 * on_gearbox + mac_phy_delay + peer_response + kb_on_tile
    xoff = _ceil1024(LOSSLESS_MTU + propagation * occupancy)
    if asic[-1] == "6":
        xoff += SPECTRUM6_COMPENSATION
    if not shared_headroom and SMALL_PACKET_PERCENTAGE != 100:
        full_small = _ceil1024(LOSSLESS_MTU + propagation * worst)
        if xoff + HEADROOM_COMPENSATION < full_small:
            xoff += HEADROOM_COMPENSATION
    xon = _ceil1024(pipeline_latency)
    size = _ceil1024(xon if shared_headroom else xoff + xon + speed_overhead)
    return DynamicHeadroom(xon=xon, xoff=xoff, size=size)
