"""Uplink balance: over the sample window, how evenly a leaf spreads TX (or ECN marks) over its ECMP uplinks.

A static hash that polarises (the same seed on every tier, too few QPs per connection, a hash field
lost) shows as a few hot uplinks beside cold ones. The check is a warning, never a drain: the node is
fine, the fabric's load balancing is not (docs/entropy.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from roceops.device.intent import SwitchIntent
from roceops.health.catalog import Sample, _delta
from roceops.health.model import ResultStatus, Thresholds
from roceops.report.result import Result

CHECK = "leaf.uplink_balance"


@dataclass(frozen=True)
class UplinkBalance:
    leaf: str
    counter: str  # tx_packets or ecn_marked ("-" when none was judged)
    rates: dict[str, float]  # uplink -> that counter per second over the window; empty when unknown
    mean: float
    hot: list[str]
    status: ResultStatus  # ok, warn or unknown
    message: str


def uplinks(leaf: SwitchIntent) -> list[str]:
    """The leaf's fabric-facing ports (its ECMP next hops towards the spines)."""
    return sorted(name for name, port in leaf.ports.items() if port.role == "fabric")


def _rates(sample: Sample, names: list[str], counter: str) -> dict[str, float]:
    rates: dict[str, float] = {}
    for name in names:
        delta = _delta(sample, name, counter)
        if delta is not None:
            rates[name] = delta[0] / delta[1]
    return rates


def uplink_balance(leaf: SwitchIntent, sample: Sample, thresholds: Thresholds) -> UplinkBalance:
    """TX packets where the platform reports them (NVUE, EOS), else ECN marks (SONiC's WRED/ECN counters)."""
    names = uplinks(leaf)
    if len(names) < 2:
        return UplinkBalance(leaf.name, "-", {}, 0.0, [], "ok", "fewer than two uplinks: nothing to balance")
    choices = (("tx_packets", thresholds.uplink_busy_min_pps), ("ecn_marked", thresholds.uplink_busy_min_marks))
    found = [(c, b, r) for c, b in choices if len(r := _rates(sample, names, c)) == len(names)]
    if not found:
        reason = sample.error or f"neither TX nor ECN-mark counters for every uplink of {leaf.name}"
        return UplinkBalance(leaf.name, "-", {}, 0.0, [], "unknown", reason)
    counter, busy, rates = found[0]
    unit = "pkt/s" if counter == "tx_packets" else "marks/s"
    mean = sum(rates.values()) / len(rates)
    if mean < busy:
        return UplinkBalance(leaf.name, counter, rates, mean, [], "ok", f"uplinks idle ({mean:.0f} {unit} mean)")
    limit = mean * (1 + thresholds.uplink_imbalance_max)
    hot = sorted(n for n, r in rates.items() if r > limit)
    if not hot:
        return UplinkBalance(leaf.name, counter, rates, mean, [], "ok", "")
    spread = (max(rates.values()) - min(rates.values())) / mean
    detail = ", ".join(f"{n} {rates[n] / mean:.1f}x" for n in hot)
    return UplinkBalance(leaf.name, counter, rates, mean, hot, "warn",
                         f"{leaf.name} uplinks unbalanced ({counter}, spread {spread:.0%} of the mean): hot {detail} "
                         f"vs mean {mean:,.0f} {unit}; check hash fields, per-tier seeds and QPs per connection")


def balance_results(node: str, balance: UplinkBalance, thresholds: Thresholds) -> Result:
    return Result(device=node, check=CHECK, path=balance.leaf, status=balance.status,
                       expected=f"every uplink within +{thresholds.uplink_imbalance_max:.0%} of the mean",
                       observed={n: round(r) for n, r in sorted(balance.rates.items())} or None,
                       message=balance.message)
