"""Speed-aware congestion defaults: DCQCN parameters per NIC speed from published tuning, and the
BDP-derived ECN floor. Pure data and arithmetic; docs/congestion.md lists every source and gap.

Only 400G has published DCQCN tuning (Barre, USENIX ATC 2025, Table 2: ByteDance's production 400G
BlueField-3 fleet, "Default Value" vs "Tuned Value" ranges). A profile value is the end of the published
tuned range nearest the ConnectX default: the smallest change that lands inside the range (a rule, not
a measurement). 100G and 200G keep NVIDIA's documented defaults; no source gives 800G values, so 800G
has no profile (lint DCQ006 says so) rather than an extrapolated one. No source gives ECN thresholds
per port speed either (NVIDIA's RoCE default 150 KB / 1.5 MB is the same at every speed).

>>> speed_profile(400_000).rp["rpg_min_dec_fac"]
80
>>> speed_profile(800_000).source is None
True
>>> ecn_floor_bytes(400_000, 10.0)
71429
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

BARRE = ("Peng et al., 'Barre: Empowering Simplified and Versatile Programmable Congestion Control in High-Speed "
         "AI Clusters', USENIX ATC 2025, Table 2 (400 Gb/s BlueField-3)")
DCTCP_K = 7  # DCTCP (Alizadeh et al., SIGCOMM 2010): full throughput needs K > C x RTT / 7


@dataclass(frozen=True)
class TunedRange:
    low: int
    high: int

    def nearest(self, default: int) -> int:
        return min(max(default, self.low), self.high)


@dataclass(frozen=True)
class SpeedProfile:
    speed: int  # Mb/s
    source: str | None  # None: no published tuning at this speed
    rp_ranges: dict[str, TunedRange] = field(default_factory=dict)
    np_ranges: dict[str, TunedRange] = field(default_factory=dict)

    @property
    def rp(self) -> dict[str, int]:
        return {k: r.nearest(GENERIC_RP[k]) for k, r in self.rp_ranges.items()}

    @property
    def np(self) -> dict[str, int]:
        return {k: r.nearest(GENERIC_NP[k]) for k, r in self.np_ranges.items()}


# ConnectX defaults (NVIDIA DCQCN parameters page, networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters,
# via shared/reference/domain.md section 3.3) for the parameters a profile tunes; the model's defaults match.
GENERIC_RP = {"rpg_min_dec_fac": 50, "rate_reduce_monitor_period": 4, "rpg_ai_rate": 5, "rpg_time_reset": 300}
GENERIC_NP = {"min_time_between_cnps": 4}

# Barre Table 2 rows; its "rpg_alpha_rate" (default 5, "rate increase magnitude") is taken to be rpg_ai_rate,
# the only ConnectX parameter with that default and meaning.
_BARRE_400G = SpeedProfile(
    speed=400_000, source=BARRE,
    rp_ranges={"rpg_min_dec_fac": TunedRange(80, 98), "rate_reduce_monitor_period": TunedRange(1, 4),
               "rpg_ai_rate": TunedRange(8, 20), "rpg_time_reset": TunedRange(20, 100)},
    np_ranges={"min_time_between_cnps": TunedRange(0, 2)},
)

PROFILES: dict[int, SpeedProfile] = {
    100_000: SpeedProfile(100_000, "NVIDIA ConnectX defaults (no speed-specific tuning published)"),
    200_000: SpeedProfile(200_000, "NVIDIA ConnectX defaults (no speed-specific tuning published)"),
    400_000: _BARRE_400G,
    800_000: SpeedProfile(800_000, None),
}


def speed_profile(speed_mbps: int) -> SpeedProfile:
    """The profile for a NIC speed; speeds without one get an empty profile with no source."""
    return PROFILES.get(speed_mbps, SpeedProfile(speed_mbps, None))


def ecn_floor_bytes(speed_mbps: int, rtt_us: float) -> int:
    """Smallest ECN min that keeps a single flow at line rate: bandwidth-delay product / 7 (DCTCP's K bound)."""
    return math.ceil(speed_mbps * rtt_us / 8 / DCTCP_K)
