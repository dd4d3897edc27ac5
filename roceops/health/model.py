"""Health: its results (:class:`roceops.report.result.Result`, one per node, check and item: ``device`` is the node,
``path`` the item) and a verdict per node."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from roceops.health.defaults import BER_MAX, PAUSE_RATE_MAX, TRAFFIC_MIN_FRACTION
from roceops.model.types import StrictModel

# the statuses health gives (of Result's): warn is reported, never drains a node; skipped: not run, why in the message
ResultStatus = Literal["ok", "warn", "fail", "unknown", "skipped"]
VerdictStatus = Literal["ok", "drain", "unknown"]


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node: str
    status: VerdictStatus
    reasons: list[str] = Field(default_factory=list)


class Thresholds(StrictModel):
    """Defaults from domain.md §7 (NVSentinel link-counter detection, IBTA BER, SONiC pfcwd)."""

    pause_rate_max: float = Field(default=PAUSE_RATE_MAX,
                                  description="PFC pause frames/s on a lossless priority (storm)")
    ber_max: float = Field(default=BER_MAX, description="post-FEC bit error ratio bound for CRC/FCS errors")
    fec_uncorrected_max: int = Field(default=0, description="uncorrectable FEC blocks allowed in the window")
    symbol_error_rate_max: float = Field(default=10.0, description="pre-FEC symbol errors/s")
    carrier_changes_max: int = Field(default=0, description="link flaps allowed in the window")
    watchdog_events_max: int = Field(default=0, description="PFC watchdog storm detections in the window")
    uplink_imbalance_max: float = Field(
        default=0.5, description="a leaf uplink's TX rate above the leaf's uplink mean by more than this fraction "
                                 "is hot (roceops choice; no published bound)")
    uplink_busy_min_pps: float = Field(default=10_000.0, description="uplink mean TX packets/s below which a "
                                                                     "leaf is idle and not judged")
    uplink_busy_min_marks: float = Field(default=1.0, description="the same floor in ECN marks/s, where a "
                                                                   "platform reports marks but not TX packets")
    traffic_min_fraction: float = Field(
        default=TRAFFIC_MIN_FRACTION, gt=0, le=1,
        description="health --traffic: a rail's ib_write_bw average below this fraction "
                    "of its NIC's link speed fails (roceops choice; no published bound)")
    rx_power_min_dbm: float = -10.0
    rx_power_max_dbm: float = 4.0
