"""What a room tells ``roceops telemetry`` about streaming its counters over gNMI: the target, the paths to
subscribe to in SAMPLE mode, and how one update's JSON value becomes neutral readings. The room's module (named by
``Platform.gnmi_paths``) holds its ``GNMI`` object; every path and field name there carries its source."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple


class Reading(NamedTuple):
    """One counter value: a metric of roceops.monitoring.metrics (without its prefix), its labels beside the
    device's place labels, and the value. ``queue`` labels are queue indexes as text."""

    metric: str
    labels: tuple[tuple[str, str], ...]
    value: float


@dataclass(frozen=True)
class Interest:
    """Which counters are exported while still zero: those of the lossless priorities and queues (the alerts' and
    health's inputs). Any other counter is exported once it moves: a 128-port switch would otherwise send ~3,000
    series of zeros per sample, and decoding them costs the collector more than the gNMI message itself."""

    priorities: frozenset[int] = frozenset()
    queues: frozenset[int] = frozenset()


@dataclass(frozen=True)
class GnmiPaths:
    target: str  # the gNMI prefix target ("" for none)
    paths: tuple[str, ...]  # subscribed in one SubscriptionList, SAMPLE mode
    default_port: int
    # (update path as pygnmi prints it, JSON value, what to keep) -> readings; queue drops carry ``lossless``
    decode: Callable[[str, Any, Interest], Iterator[Reading]]
