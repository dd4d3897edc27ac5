"""What a switch platform's rendering can express of the load-balancing intent (docs/platforms.md, "Load
balancing"). Each room sets ``Platform.load_balancing`` with the source of its syntax or the reason it is
missing; lint (LB003) refuses anything else, never a silent omission. Whether the SKU's ASIC can do it is
the hardware profile's business.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from roceops.model.load_balancing import HashField, LoadBalancingMode


@dataclass(frozen=True)
class LbSupport:
    hash_fields: frozenset[HashField] = frozenset()  # fields the rendered config can switch on and off
    hash_seed: bool = False
    modes: frozenset[LoadBalancingMode] = field(default_factory=lambda: frozenset({"ecmp"}))
    why_not: str = "this platform renders no load-balancing settings"  # for the lint message


RENDERS_NOTHING = LbSupport()  # a platform that leaves hashing and path selection at the device defaults
