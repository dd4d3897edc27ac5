"""Monitoring policy: how Prometheus scrapes ``roceops telemetry`` and when the rendered alerts fire.

Every threshold has a default with its source; ``roceops render`` turns this into
``<out>/monitoring/`` (rules, their promtool tests, a Grafana dashboard, a scrape config).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from roceops.model.types import StrictModel

Seconds = Annotated[int, Field(ge=1, le=86_400)]
PerSecond = Annotated[float, Field(ge=0)]
Count = Annotated[int, Field(ge=0)]
# host:port of an exporter as Prometheus writes a static target (no scheme, no path)
Target = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.\-\[\]:]{1,253}:[0-9]{1,5}$")]


class MonitoringPolicy(StrictModel):
    """What ``fabric.yaml``'s ``monitoring:`` holds; every field is optional."""

    scrape_interval_s: Seconds = Field(
        default=10, description="Prometheus scrape interval and the collector's sample interval (roceops choice: "
                                "the 10 s gNMI SAMPLE interval bench/telemetry_scale.py measures)")
    rate_window_s: Seconds = Field(
        default=60, description="range of rate()/increase() in the rules; at least 2 scrapes (rate() needs two "
                                "samples: https://prometheus.io/docs/prometheus/latest/querying/functions/#rate)")
    alert_for_s: Annotated[int, Field(ge=0, le=86_400)] = Field(
        default=60, description="how long a condition holds before its alert fires (roceops choice)")
    pause_storm_pps: PerSecond = Field(
        default=1000.0, description="PFC pause frames/s on a lossless priority that make a storm (the health check's "
                                    "counters.pause bound, roceops.health.model.Thresholds; domain.md §4.4/§7)")
    lossy_pfc_pps: PerSecond = Field(
        default=0.0, description="PFC frames/s tolerated on a priority that is not lossless (domain.md §7.3: "
                                 "no PFC on any priority but the lossless one)")
    ecn_marks_min_pps: PerSecond = Field(
        default=1.0, description="ECN marks/s on a rail's leaves above which its NICs must send CNPs (domain.md "
                                 "§7.2: marks with CNPs = working DCQCN; the floor is a roceops choice)")
    pfcwd_storms_max: Count = Field(
        default=0, description="PFC watchdog storm detections allowed in the window (domain.md §7.3: no stormed "
                               "queues)")
    lossless_drops_max: Count = Field(
        default=0, description="drops allowed on a lossless queue in the window (domain.md §7.1: any buffer "
                               "overrun breaks the lossless contract)")
    link_flaps_max: Count = Field(
        default=2, description="carrier changes allowed per fabric link in the window (domain.md §7.1, NVSentinel: "
                               "carrier_changes > 2 per poll interval = degrade)")
    exporters: list[Target] = Field(
        default_factory=lambda: ["localhost:9105"], min_length=1,
        description="where Prometheus scrapes `roceops telemetry` (one per --shard; port 9105 is a roceops "
                    "choice, not a registered default)")

    @model_validator(mode="after")
    def _window_holds_two_scrapes(self) -> MonitoringPolicy:
        if self.rate_window_s < 2 * self.scrape_interval_s:
            raise ValueError(f"monitoring.rate_window_s ({self.rate_window_s}) must be at least twice "
                             f"monitoring.scrape_interval_s ({self.scrape_interval_s}): rate() needs two samples")
        return self
