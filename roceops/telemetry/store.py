"""The collector's memory: the latest sample of each device, nothing older, and a prometheus-client collector
that exposes it. Memory is bounded: one sample per device, at most ``max_series`` series each (the rest are
counted in ``roceops_telemetry_dropped_series_total``), whatever a device sends and however long the run."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from roceops.monitoring.metrics import COUNTERS, GAUGES, PLACE_LABELS, name
from roceops.platforms.gnmi_paths import Reading

MAX_SERIES_PER_DEVICE = 20_000


@dataclass
class _Device:
    platform: str
    place: tuple[str, ...]
    own_place: bool = False  # its readings may carry place labels of their own (a host NIC's rail)
    up: bool = False
    # part (e.g. the gNMI path an update came from) -> metric -> [(place + label values, value)]
    parts: dict[str, dict[str, list[tuple[tuple[str, ...], float]]]] | None = None
    at: float = 0.0  # monotonic time of the last sample


def _row(place: tuple[str, ...], labels: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """Place values then the reading's own; a reading may override a place label (a host NIC's ``rail``)."""
    own = [(k, v) for k, v in labels if k not in _PLACE_INDEX]
    if len(own) != len(labels):
        values = list(place)
        for k, v in labels:
            if k in _PLACE_INDEX:
                values[_PLACE_INDEX[k]] = v
        place = tuple(values)
    return (*place, *(v for _, v in own))


_PLACE_INDEX = {label: i for i, label in enumerate(PLACE_LABELS)}


class Store(Collector):
    """Thread-safe: workers ``put``/``down`` their device; the HTTP thread ``collect``s."""

    def __init__(self, max_series: int = MAX_SERIES_PER_DEVICE) -> None:
        self.max_series = max_series
        self._lock = threading.Lock()
        self._devices: dict[str, _Device] = {}
        self._dropped = 0
        self._samples = 0

    def register(self, device: str, platform: str, place: tuple[str, ...], own_place: bool = False) -> None:
        with self._lock:
            self._devices[device] = _Device(platform, place, own_place)

    def put(self, device: str, readings: Iterable[Reading], part: str = "") -> int:
        """Replace the device's ``part`` (one gNMI path's update, or a whole SSH sample) with ``readings``;
        returns how many series it keeps. The device's series over all parts stay under ``max_series``."""
        with self._lock:
            dev = self._devices[device]
            own_place = dev.own_place
            place, others = dev.place, sum(len(r) for p, m in (dev.parts or {}).items() if p != part
                                           for r in m.values())
        room = max(0, self.max_series - others)
        series: dict[str, list[tuple[tuple[str, ...], float]]] = {}
        kept = dropped = 0
        for metric, labels, value in readings:
            if kept >= room:
                dropped += 1
                continue
            row = _row(place, labels) if own_place else (*place, *(v for _, v in labels))
            series.setdefault(metric, []).append((row, value))
            kept += 1
        with self._lock:
            dev.parts = {**(dev.parts or {}), part: series}
            dev.up, dev.at = True, time.monotonic()
            self._dropped += dropped
            self._samples += 1
        return kept

    def down(self, device: str) -> None:
        """The device's last sample is not fresh: ``target_up`` 0; its counters stay as last read (never 0)."""
        with self._lock:
            self._devices[device].up = False

    def is_up(self, device: str) -> bool:
        with self._lock:
            return self._devices[device].up

    def series_count(self) -> int:
        with self._lock:
            return sum(len(r) for d in self._devices.values() for m in (d.parts or {}).values() for r in m.values())

    def describe(self) -> Iterator[Metric]:
        return iter(())  # families depend on what devices send; prometheus-client then calls collect lazily

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            devices = [(d.platform, d.place, d.up, list((d.parts or {}).values())) for d in self._devices.values()]
            dropped, samples = self._dropped, self._samples
        families = {metric: CounterMetricFamily(name(metric).removesuffix("_total"), help_text,
                                                labels=[*PLACE_LABELS, *labels])
                    for metric, (help_text, labels) in COUNTERS.items()}
        up = GaugeMetricFamily(name("target_up"), GAUGES["target_up"][0], labels=[*PLACE_LABELS, "platform"])
        for platform, place, is_up, parts in devices:
            up.add_metric([*place, platform], 1.0 if is_up else 0.0)
            for series in parts:
                for metric, rows in series.items():
                    family = families.get(metric)
                    if family is None:
                        continue
                    for values, value in rows:
                        family.add_metric(values, value)
        yield up
        yield from (f for f in families.values() if f.samples)
        yield CounterMetricFamily(name("telemetry_dropped_series"), "series dropped over the per-device cap",
                                  value=dropped)
        yield CounterMetricFamily(name("telemetry_samples"), "device samples received", value=samples)
