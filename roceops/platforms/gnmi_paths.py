"""What a room tells ``roceops telemetry`` about streaming its counters over gNMI: the target, the paths to
subscribe to in SAMPLE mode, and how one update's JSON value becomes neutral readings. The room's module (named by
``Platform.gnmi_paths``) holds its ``GNMI`` object; every path and field name there carries its source."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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


_KEYS = re.compile(r"\[[^\]]*\]")


def keyless(path: str) -> str:
    """A gNMI path without its list keys, no leading slash.

    >>> keyless("/interfaces/interface[name=Ethernet1]/state/counters/carrier-transitions")
    'interfaces/interface/state/counters/carrier-transitions'
    """
    return _KEYS.sub("", path).strip("/")


@dataclass(frozen=True)
class GnmiPaths:
    target: str  # the gNMI prefix target ("" for none)
    paths: tuple[str, ...]  # subscribed in one SubscriptionList, SAMPLE mode
    default_port: int
    # (update path as pygnmi prints it, JSON value, what to keep) -> readings; queue drops carry ``lossless``
    decode: Callable[[str, Any, Interest], Iterator[Reading]]
    # True: updates are single leaves (OpenConfig); the readings of one notification are merged into the part of
    # the subscription path they match, keeping the part's other series. False: one update replaces its part.
    leaves: bool = False
    # further streams of the same switch, for counters under another target (a gNMI subscription has one target)
    also: tuple[GnmiPaths, ...] = ()
    _parts: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._parts.update({keyless(p) if self.leaves else p.strip("/"): p for p in self.paths})

    def part_of(self, path: str) -> str | None:
        """The subscription path an update's path belongs to, or None for a path this room does not read."""
        return self._parts.get(keyless(path) if self.leaves else path.strip("/"))
