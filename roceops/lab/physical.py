"""The physical layer every lab personality shares: ports, link state, LLDP wiring and moving counters.

Counters advance with wall-clock time at realistic rates (so a health check can sample
twice and see deltas), stay monotonic when rates change, and react to operational faults:

==============  =============================================================
fault           effect on the port (``port=`` selects one, default: all)
==============  =============================================================
link_down       oper down; traffic counters stop
link_flap       oper state toggles every second; carrier_changes climbs
pause_storm     PFC pause frames on the lossless priorities at ~50,000/s
crc_errors      CRC and uncorrectable FEC errors at ~200/s
hash_polarized  ``port=`` (required) carries the traffic of HOT_FACTOR uplinks: TX and ECN marks x4
==============  =============================================================

Config-level faults (PFC off, ECN changed, NIC reset, MTU mismatch) change the
personality's configuration state instead; they live in each personality.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Clock = Callable[[], float]

OPER_FAULTS = frozenset({"link_down", "link_flap", "pause_storm", "crc_errors", "hash_polarized"})

# steady-state rates per second on a healthy, busy 400G RoCE port
BASE_RATES: dict[str, float] = {
    "rx_packets": 1_200_000.0,
    "tx_packets": 1_150_000.0,
    "ecn_marked": 40.0,
    "cnp_sent": 8.0,
    "cnp_handled": 8.0,
    "fec_corrected": 150.0,
    "crc_errors": 0.0,
    "fec_uncorrected": 0.0,
    "symbol_errors": 0.0,
    "carrier_changes": 0.0,
    "pfcwd_storms": 0.0,
}
PFC_RATE = 2.0  # pause frames/s per lossless priority in normal operation (brief congestion)
STORM_RATE = 50_000.0
CRC_RATE = 200.0
FLAP_PERIOD_S = 1.0
HOT_FACTOR = 4.0  # hash_polarized: the hot port's TX and ECN-mark rates, as a multiple of a healthy port's


@dataclass(slots=True)
class RateCounter:
    """``value(now) = base + rate * (now - since)``; changing the rate folds the past into ``base``."""

    base: float
    rate: float
    since: float

    def value(self, now: float) -> int:
        return int(self.base + self.rate * max(0.0, now - self.since))

    def set_rate(self, now: float, rate: float) -> None:
        self.base = self.base + self.rate * max(0.0, now - self.since)
        self.rate, self.since = rate, now


COUNTER_KEYS: tuple[str, ...] = (*BASE_RATES, *(f"pfc_{d}_{p}" for d in ("rx", "tx") for p in range(8)))
_SORTED_KEYS = tuple(sorted(COUNTER_KEYS))

# Where an untouched counter starts, as an index into PortPhysics._bases(): zero, seed % 100,000,
# seed % 1,000, seed % 700, one. With the rate, that is all a counter nobody changed needs.
_ZERO, _SEED, _SEED_RX, _SEED_TX, _ONE = range(5)
_TEMPLATES: dict[tuple[int, ...], dict[str, tuple[float, int]]] = {}
_PLANS: dict[tuple[int, ...], tuple[dict[str, int], tuple[tuple[str, int, float], ...]]] = {}


def _template(lossless: tuple[int, ...]) -> dict[str, tuple[float, int]]:
    """key -> (rate, start index) of every counter, in sorted key order, for ports with these lossless priorities."""
    found = _TEMPLATES.get(lossless)
    if found is None:
        found = {}
        for key in _SORTED_KEYS:
            if key.startswith("pfc_"):
                rate = PFC_RATE if int(key[-1]) in lossless else 0.0
                found[key] = (rate, (_SEED_RX if key[4] == "r" else _SEED_TX) if rate else _ZERO)
            elif key == "carrier_changes":
                found[key] = (BASE_RATES[key], _ONE)  # the link came up once
            else:
                found[key] = (BASE_RATES[key], _SEED if BASE_RATES[key] else _ZERO)
        _TEMPLATES[lossless] = found
    return found


def _plan(lossless: tuple[int, ...]) -> tuple[dict[str, int], tuple[tuple[str, int, float], ...]]:
    """The template split for :meth:`PortPhysics.read`: every counter's value on an untouched port that does not
    move (0 or 1, in sorted key order), and (key, start index, rate) of the ones that do."""
    found = _PLANS.get(lossless)
    if found is None:
        fixed = {k: 0 for k in _SORTED_KEYS}
        moving = []
        for k, (rate, start) in _template(lossless).items():
            if rate == 0.0 and start in (_ZERO, _ONE):
                fixed[k] = 1 if start == _ONE else 0
            else:
                moving.append((k, start, rate))
        found = _PLANS[lossless] = (fixed, tuple(moving))
    return found


class _Counters:
    """Mapping-like view of a port's counters; a counter becomes an object only when touched.

    1,000 simulated switches x 64 ports x 27 counters would otherwise be ~1.7 M objects: untouched
    counters are computed from the port's seed and the healthy rates instead.
    """

    __slots__ = ("_port",)

    def __init__(self, port: PortPhysics) -> None:
        self._port = port

    def __getitem__(self, key: str) -> RateCounter:
        return self._port.counter(key)

    def __contains__(self, key: object) -> bool:
        return key in COUNTER_KEYS

    def __iter__(self) -> Iterator[str]:
        return iter(COUNTER_KEYS)

    def items(self) -> Iterator[tuple[str, RateCounter]]:
        return ((k, self._port.counter(k)) for k in COUNTER_KEYS)


@dataclass(slots=True)
class PortPhysics:
    name: str
    speed: int  # Mb/s
    neighbor: tuple[str, str] | None = None  # (device, port) from the cabling plan
    seed: int = 0
    since: float = 0.0
    lossless: tuple[int, ...] = (3,)
    touched: dict[str, RateCounter] | None = None
    down: bool = False
    flapping_since: float | None = None

    @property
    def counters(self) -> _Counters:
        return _Counters(self)

    def _bases(self) -> tuple[float, float, float, float, float]:
        seed = self.seed
        return 0.0, float(seed % 100_000), float(seed % 1000), float(seed % 700), 1.0

    def default(self, key: str) -> tuple[float, float]:
        """(base, rate) of a counter nobody has changed yet."""
        rate, start = _template(self.lossless)[key]
        return self._bases()[start], rate

    def counter(self, key: str) -> RateCounter:
        if self.touched is None:
            self.touched = {}
        found = self.touched.get(key)
        if found is None:
            base, rate = self.default(key)
            found = self.touched[key] = RateCounter(base=base, rate=rate, since=self.since)
        return found

    def value(self, key: str, now: float) -> int:
        if self.touched is not None and key in self.touched:
            return self.touched[key].value(now)
        base, rate = self.default(key)
        return int(base + rate * max(0.0, now - self.since))

    def oper_up(self, now: float, admin_up: bool = True) -> bool:
        if not admin_up or self.down:
            return False
        if self.flapping_since is not None:
            return int((now - self.flapping_since) / FLAP_PERIOD_S) % 2 == 1
        return True

    def read(self, now: float) -> dict[str, int]:
        """Every counter's value at ``now``, in sorted key order (the hot path of every show command)."""
        dt = now - self.since
        if dt < 0.0:
            dt = 0.0
        bases = self._bases()
        fixed, moving = _plan(self.lossless)
        out = fixed.copy()
        for k, start, rate in moving:  # replacing a value keeps the key's (sorted) place
            out[k] = int(bases[start] + rate * dt)
        if self.touched:
            for k, counter in self.touched.items():
                out[k] = counter.value(now)
        return out


def port_mac(device: str, port: str) -> str:
    """The MAC address of a lab device's port (a host NIC's own; what the far end's neighbour table learns).

    >>> port_mac("gpu001", "eth0") == port_mac("gpu001", "eth0") != port_mac("gpu001", "eth1")
    True
    """
    seed = zlib.crc32(f"{device}:{port}".encode())
    return "b8:ce:f6:{:02x}:{:02x}:{:02x}".format(*(seed.to_bytes(4, "big")[1:]))


def link_local(mac: str) -> str:
    """The IPv6 link-local address Linux derives from a MAC (modified EUI-64, RFC 4291 appendix A).

    >>> link_local("b8:ce:f6:01:02:03")
    'fe80::bace:f6ff:fe01:203'
    """
    b = [int(x, 16) for x in mac.split(":")]
    words = [(b[0] ^ 0x02) << 8 | b[1], b[2] << 8 | 0xFF, 0xFE << 8 | b[3], b[4] << 8 | b[5]]
    return "fe80::" + ":".join(f"{w:x}" for w in words)


class Physical:
    """All ports of one simulated device. ``clock`` is injectable for tests. ``silent`` names the devices that
    send no LLDP (a host without lldpd): a port cabled to one of them hears no LLDP neighbour."""

    def __init__(self, device: str, ports: Iterable[Mapping[str, Any]], lossless: Iterable[int] = (3,),
                 clock: Clock = time.monotonic) -> None:
        self.device = device
        self.clock = clock
        self.lossless = sorted(set(lossless))
        self.ports: dict[str, PortPhysics] = {}
        self.silent: set[str] = set()
        now = clock()
        lossless_t = tuple(self.lossless)
        for p in ports:
            neighbor = p.get("neighbor")
            self.ports[p["name"]] = PortPhysics(
                name=p["name"], speed=int(p.get("speed", 400_000)),
                neighbor=(str(neighbor[0]), str(neighbor[1])) if neighbor else None,
                seed=zlib.crc32(f"{device}:{p['name']}".encode()), since=now, lossless=lossless_t)

    def _targets(self, port: str | None) -> list[PortPhysics]:
        if port is None:
            return list(self.ports.values())
        if port not in self.ports:
            raise KeyError(f"{self.device} has no port {port!r} (ports: {', '.join(sorted(self.ports)[:8])}...)")
        return [self.ports[port]]

    def apply(self, fault: str, port: str | None = None) -> None:
        now = self.clock()
        if fault == "hash_polarized" and port is None:
            raise KeyError("hash_polarized needs port=<the uplink the hash piles traffic onto>")
        for p in self._targets(port):
            if fault == "link_down":
                p.down = True
                p.counters["carrier_changes"].set_rate(now, 0.0)
                p.counters["carrier_changes"].base += 1
                for key in ("rx_packets", "tx_packets"):
                    p.counters[key].set_rate(now, 0.0)
            elif fault == "link_flap":
                p.flapping_since = now
                p.counters["carrier_changes"].set_rate(now, 1.0 / FLAP_PERIOD_S)
            elif fault == "pause_storm":
                for prio in self.lossless:
                    p.counters[f"pfc_rx_{prio}"].set_rate(now, STORM_RATE)
                p.counters["pfcwd_storms"].base += 1
            elif fault == "crc_errors":
                p.counters["crc_errors"].set_rate(now, CRC_RATE)
                p.counters["fec_uncorrected"].set_rate(now, CRC_RATE / 4)
                p.counters["symbol_errors"].set_rate(now, CRC_RATE * 10)
            elif fault == "hash_polarized":
                for key in ("tx_packets", "ecn_marked"):
                    p.counters[key].set_rate(now, BASE_RATES[key] * HOT_FACTOR)
            else:
                raise KeyError(f"not an operational fault: {fault}")

    def clear(self) -> None:
        """Back to healthy rates (counters keep their accumulated values, as real ones do)."""
        now = self.clock()
        for p in self.ports.values():
            if p.down or p.flapping_since is not None:
                p.counter("carrier_changes").base += 1
            p.down, p.flapping_since = False, None
            for key, counter in (p.touched or {}).items():
                counter.set_rate(now, p.default(key)[1])

    def snapshot(self, port: str) -> dict[str, int]:
        return self.ports[port].read(self.clock())

    def value(self, port: str, key: str) -> int:
        """One counter of ``port`` now: ``snapshot(port)[key]`` without computing the others."""
        return self.ports[port].value(key, self.clock())

    def oper_up(self, port: str, admin_up: bool = True) -> bool:
        return self.ports[port].oper_up(self.clock(), admin_up)

    def lldp_neighbor(self, port: str) -> tuple[str, str] | None:
        """What LLDP hears on ``port``: its cable's far end, unless that device sends no LLDP."""
        neighbor = self.ports[port].neighbor
        return None if neighbor is None or neighbor[0] in self.silent else neighbor
