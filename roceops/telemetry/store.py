"""The collector's memory: the latest sample of each device, nothing older, and its Prometheus exposition. Memory
is bounded: one sample per device, at most ``max_series`` series each (the rest are counted in
``roceops_telemetry_dropped_series_total``), whatever a device sends and however long the run.

Exposition is the collector's largest cost at scale (prometheus-client's ``generate_latest`` spends ~11 us per
series formatting ``Sample`` objects: 0.3 million series make a 3 s scrape). So the counter families are written
as text straight from the store, each device part's lines cached until that part changes; prometheus-client
writes the small families (``target_up`` and the collector's own counters) through its registry.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from roceops.monitoring.metrics import COUNTERS, GAUGES, PLACE_LABELS, name
from roceops.platforms.gnmi_paths import Reading

MAX_SERIES_PER_DEVICE = 20_000
STALE_SAMPLES = 2.5  # no sample for this many intervals (and at least STALE_MIN_S): target_up 0
STALE_MIN_S = 3.0  # sub-second test intervals: a sample a loaded machine delays by a second is not a down device

Rows = dict[tuple[str, ...], float]  # place + label values -> value


@dataclass
class _Device:
    platform: str
    place: tuple[str, ...]
    own_place: bool = False  # its readings may carry place labels of their own (a host NIC's rail)
    up: bool = False
    # part (e.g. the gNMI path an update came from) -> metric -> {place + label values: value}
    parts: dict[str, dict[str, Rows]] | None = None
    at: float = 0.0  # monotonic time of the last sample
    text: dict[str, dict[str, str]] = field(default_factory=dict)  # part -> metric -> its exposition lines
    names: dict[str, dict[str, tuple[tuple[tuple[str, ...], ...], list[str]]]] = field(default_factory=dict)


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


def _escape(value: str) -> str:
    """A label value as the text format wants it (backslash, double quote and newline escaped)."""
    if "\\" in value or '"' in value or "\n" in value:
        return value.replace("\\", r"\\").replace('"', r"\"").replace("\n", r"\n")
    return value


def _lines(metric: str, rows: Rows, cache: dict[str, tuple[tuple[tuple[str, ...], ...], list[str]]]) -> str:
    """One metric's series of one device part in the text format (version 0.0.4), one per line. ``cache`` keeps
    the part's series names with their labels: a device sends the same series every sample, only values change.

    >>> _lines("link_flaps_total", {("leaf1", "leaf", "1", "", "Ethernet0"): 3.0}, {})
    'roceops_link_flaps_total{device="leaf1",port="Ethernet0",rail="",su="1",tier="leaf"} 3.0\\n'
    """
    keys = tuple(rows)
    known = cache.get(metric)
    if known is not None and known[0] == keys:
        names = known[1]
    else:
        order = _LABEL_ORDER[metric]
        head = name(metric) + "{"
        names = [head + ",".join([k + _escape(values[i]) + '"' for k, i in order]) + "} " for values in keys]
        cache[metric] = (keys, names)
    return "".join([n + repr(v) + "\n" for n, v in zip(names, rows.values(), strict=True)])


def _label_order(labels: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """('device="', 0), ... in label-name order, as prometheus-client writes them."""
    return tuple((f'{k}="', i) for i, k in sorted(enumerate(labels), key=lambda x: x[1]))


_LABEL_ORDER = {metric: _label_order((*PLACE_LABELS, *labels)) for metric, (_, labels) in COUNTERS.items()}


class Store:
    """Thread-safe: workers ``put``/``down`` their device; the HTTP thread calls ``exposition``."""

    def __init__(self, max_series: int = MAX_SERIES_PER_DEVICE, interval_s: float = 10.0) -> None:
        self.max_series = max_series
        self.stale_s = max(STALE_SAMPLES * interval_s, STALE_MIN_S)
        self._lock = threading.Lock()
        self._render = threading.Lock()  # one scrape renders at a time (the name caches are not shared-safe)
        self._devices: dict[str, _Device] = {}
        self._dropped = 0
        self._samples = 0
        self.registry_collector = _SmallFamilies(self)

    def register(self, device: str, platform: str, place: tuple[str, ...], own_place: bool = False) -> None:
        with self._lock:
            self._devices[device] = _Device(platform, place, own_place)

    def put(self, device: str, readings: Iterable[Reading], part: str = "", merge: bool = False) -> int:
        """Replace the device's ``part`` (one gNMI path's update, or a whole SSH sample) with ``readings``, or with
        ``merge`` update the part's series (OpenConfig leaves: a notification may carry some of them); returns
        how many series the part keeps. The device's series over all parts stay under ``max_series``."""
        with self._lock:
            dev = self._devices[device]
            own_place = dev.own_place
            place, others = dev.place, sum(len(r) for p, m in (dev.parts or {}).items() if p != part
                                           for r in m.values())
            old = (dev.parts or {}).get(part) if merge else None
        series: dict[str, Rows] = {m: dict(rows) for m, rows in old.items()} if old else {}
        kept = sum(len(rows) for rows in series.values())
        room = max(0, self.max_series - others)
        dropped = 0
        for metric, labels, value in readings:
            row = _row(place, labels) if own_place else place + tuple([v for _, v in labels])
            rows = series.get(metric)
            if rows is None:
                rows = series[metric] = {}
            if row not in rows:
                if kept >= room:
                    dropped += 1
                    continue
                kept += 1
            rows[row] = value
        with self._lock:
            dev.parts = {**(dev.parts or {}), part: series}
            dev.text.pop(part, None)
            dev.up, dev.at = True, time.monotonic()
            self._dropped += dropped
            self._samples += 1
        return kept

    def down(self, device: str) -> None:
        """The device's last sample is not fresh: ``target_up`` 0; its counters stay as last read (never 0)."""
        with self._lock:
            self._devices[device].up = False

    def _fresh(self, dev: _Device, now: float) -> bool:
        return dev.up and now - dev.at <= self.stale_s

    def is_up(self, device: str) -> bool:
        with self._lock:
            return self._fresh(self._devices[device], time.monotonic())

    def series_count(self) -> int:
        with self._lock:
            return sum(len(r) for d in self._devices.values() for m in (d.parts or {}).values() for r in m.values())

    def counter_text(self) -> str:
        """The counter families in the text format: per family its HELP/TYPE, then every device's series (each
        device part's lines rendered once per new sample, at the first scrape that sees it)."""
        with self._render:
            return self._counter_text()

    def _counter_text(self) -> str:
        with self._lock:
            devices = list(self._devices.values())
            pending = [(d, p, s) for d in devices for p, s in (d.parts or {}).items() if p not in d.text]
        rendered = [(d, p, {m: _lines(m, rows, d.names.setdefault(p, {})) for m, rows in s.items() if m in COUNTERS})
                    for d, p, s in pending]
        with self._lock:
            for d, p, text in rendered:
                if d.parts is not None and p in d.parts:  # not replaced meanwhile (else the next scrape renders)
                    d.text[p] = text
            blocks: dict[str, list[str]] = {}
            for d in devices:
                for text in d.text.values():
                    for metric, lines in text.items():
                        if lines:
                            blocks.setdefault(metric, []).append(lines)
        out = []
        for metric, (help_text, _) in COUNTERS.items():
            if metric in blocks:
                full = name(metric)
                out.append(f"# HELP {full} {help_text}\n# TYPE {full} counter\n")
                out.extend(blocks[metric])
        return "".join(out)


class _SmallFamilies(Collector):
    """``target_up`` per device and the collector's own counters, through prometheus-client's registry."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def describe(self) -> Iterator[Metric]:
        return iter(())

    def collect(self) -> Iterator[Metric]:
        store, now = self.store, time.monotonic()
        with store._lock:
            rows = [(d.place, d.platform, store._fresh(d, now)) for d in store._devices.values()]
            dropped, samples = store._dropped, store._samples
        up = GaugeMetricFamily(name("target_up"), GAUGES["target_up"][0], labels=[*PLACE_LABELS, "platform"])
        for place, platform, fresh in rows:
            up.add_metric([*place, platform], 1.0 if fresh else 0.0)
        yield up
        yield CounterMetricFamily(name("telemetry_dropped_series"), "series dropped over the per-device cap",
                                  value=dropped)
        yield CounterMetricFamily(name("telemetry_samples"), "device samples received", value=samples)
