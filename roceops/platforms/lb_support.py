"""What each switch platform's rendering can express of the load-balancing intent, with the source of
that syntax or the reason it is missing (docs/platforms.md, "Load balancing").

Each room's ``Platform.lb_support`` holds its data; lint reads it: a setting a platform cannot render is an
error (LB003), never a silent omission; adaptive routing on ports at a speed the platform does not run it at is
an error (LB005); a seed whose apply disrupts the switch is a warning (LB006). Whether the SKU's ASIC can do it
at all is the hardware profile's business (LB004).
"""

from __future__ import annotations

from dataclasses import dataclass

from roceops.model.load_balancing import HashField, LoadBalancingMode


@dataclass(frozen=True)
class LbSupport:
    hash_fields: frozenset[HashField]  # fields the rendered config can switch on and off
    hash_seed: bool
    modes: frozenset[LoadBalancingMode]
    why_not: str  # what is missing and why, for the lint message
    # port speeds (Mb/s) at which the platform runs adaptive routing on its fabric ports; empty: no limit known
    adaptive_speeds: frozenset[int] = frozenset()
    adaptive_speeds_source: str = ""  # where that limit is written, for the lint message
    # what applying a hash seed does to the running switch besides setting it ("" = nothing known)
    seed_disruption: str = ""


def no_support(title: str) -> LbSupport:
    """What a platform without load-balancing rendering can express: ECMP with its default hash."""
    return LbSupport(frozenset(), False, frozenset({"ecmp"}), f"{title}: roceops renders no load-balancing settings")
