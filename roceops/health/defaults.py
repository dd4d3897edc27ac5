"""Default thresholds that CLI options show (`health --help`): here, so that building the help does not import
the pydantic models (:class:`roceops.health.model.Thresholds` takes its defaults from these)."""

from __future__ import annotations

PAUSE_RATE_MAX = 1000.0  # PFC pause frames/s on a lossless priority (storm); domain.md §7
BER_MAX = 1e-12  # post-FEC bit error ratio bound for CRC/FCS errors; domain.md §7 (IBTA)
TRAFFIC_MIN_FRACTION = 0.8  # health --traffic: roceops choice, no published bound
