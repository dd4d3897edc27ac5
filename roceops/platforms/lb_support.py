"""What a switch platform's rendering can express of the load-balancing intent (each room's PLATFORM carries
its own, with the source of that syntax or the reason it is missing: docs/platforms.md, "Load balancing").

Data only, read by lint (LB003): a setting a platform cannot render is an error, never a silent
omission. Whether the SKU's ASIC can do it at all is the hardware profile's business (LB004).
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


ECMP_ONLY = LbSupport(frozenset(), False, frozenset({"ecmp"}),
                      "the platform renders no hash-field, seed, adaptive-routing or DLB configuration")
