"""Load-balancing intent: which header fields the switches hash on, per-tier hash seeds, the
path-selection mode and how many RoCE QPs NCCL opens per connection (flow entropy).

Vendor-neutral: platforms translate these names into their own hash-field spelling and refuse
(lint error) a field or mode their SKU cannot do.

>>> lb = LoadBalancingPolicy.model_validate({"mode": "dynamic", "qps_per_connection": 4})
>>> lb.fields
('src_ip', 'dst_ip', 'ip_protocol', 'l4_src_port', 'l4_dst_port')
>>> lb.seed_for("spine") is None
True
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field, field_validator

from roceops.model.types import StrictModel, SwitchRole

HashField = Literal["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port", "roce_dest_qp"]
"""``roce_dest_qp``: the 24-bit destination QP of the RoCEv2 Base Transport Header (UDP dport 4791),
hashed through UDF/custom fields where the ASIC offers them (Meta's "enhanced ECMP")."""

LoadBalancingMode = Literal["ecmp", "dynamic", "adaptive"]
"""``ecmp``: static per-flow hash; ``dynamic``: flowlet/DLB (path chosen per idle gap by port load);
``adaptive``: per-packet adaptive routing (e.g. Spectrum-X ``router adaptive-routing``)."""

FIVE_TUPLE: tuple[HashField, ...] = ("src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port")
"""RoCEv2 gets its flow entropy from the UDP source port the NIC derives per QP."""

HashSeed = Annotated[int, Field(strict=True, ge=0, le=4_294_967_295, description="32-bit hash seed")]


class HashSeeds(StrictModel):
    """One seed per tier so leaves and spines do not pick correlated next hops (polarisation)."""

    leaf: HashSeed | None = Field(default=None, description="0-4294967295; null keeps the device default")
    spine: HashSeed | None = Field(default=None, description="0-4294967295; null keeps the device default")
    core: HashSeed | None = Field(default=None, description="0-4294967295; null keeps the device default")


class SwitchLoadBalancing(StrictModel):
    """A group or device override of the switch-side settings (``overrides.groups.cumulus.load_balancing``)."""

    mode: LoadBalancingMode | None = None
    hash_fields: Annotated[list[HashField], Field(min_length=1)] | None = None
    hash_seed: HashSeed | None = Field(default=None, description="this group's seed (replaces the tier's)")

    @field_validator("hash_fields")
    @classmethod
    def _unique(cls, v: list[HashField] | None) -> list[HashField] | None:
        return _unique_fields(v)


def _unique_fields(v: list[HashField] | None) -> list[HashField] | None:
    if v is not None and len(set(v)) != len(v):
        dupes = sorted({f for f in v if v.count(f) > 1})
        raise ValueError(f"hash_fields lists {', '.join(dupes)} more than once")
    return v


def canonical_fields(fields: list[HashField] | tuple[HashField, ...]) -> list[HashField]:
    """Hash fields in one fixed order (a hash uses a set of fields; devices list them in their own order)."""
    order = get_args(HashField)
    return sorted(fields, key=order.index)


class EntropyScenario(StrictModel):
    """The collective the entropy planner and lint rule LB001 assume (see docs/entropy.md)."""

    algorithm: Literal["ring", "tree"] = Field(
        default="ring", description="ring, or NCCL's double binary tree (reduce phase)"
    )
    placement: Literal["spread", "packed"] = Field(
        default="spread",
        description="spread: consecutive ranks on different leaves (fragmented jobs, the worst case); "
        "packed: ranks fill one leaf after another",
    )
    nodes: Annotated[int, Field(strict=True, ge=2)] | None = Field(
        default=None, description="nodes in the job; null = every node of the fabric"
    )
    channels: Annotated[int, Field(strict=True, ge=1, le=64)] = Field(
        default=1, description="NCCL channels (connections) per NIC and peer"
    )
    target_load: Annotated[float, Field(strict=True, ge=1.0, le=64.0)] = Field(
        default=2.0, description="worst-uplink load, in flows' worth, the recommended QP count keeps the fabric under"
    )
    max_collision_probability: Annotated[float, Field(strict=True, gt=0.0, lt=1.0)] = Field(
        default=0.1, description="lint LB001 warns above this probability of a colliding uplink"
    )


class LoadBalancingPolicy(StrictModel):
    """How traffic is spread over equal-cost uplinks, and how much entropy the hosts give it."""

    mode: LoadBalancingMode = Field(
        default="ecmp", description="ecmp (static hash), dynamic (flowlet/DLB) or adaptive (per-packet AR)"
    )
    hash_fields: Annotated[list[HashField], Field(min_length=1)] | None = Field(
        default=None,
        description="fields the ECMP hash uses; null keeps the platform default (not rendered). "
        "roce_dest_qp needs UDF/custom-field hashing on the SKU",
    )
    hash_seed: HashSeeds = Field(default_factory=HashSeeds, description="per-tier hash seed")
    qps_per_connection: Annotated[int, Field(strict=True, ge=1, le=128)] = Field(
        default=1, description="RoCE QPs NCCL opens per connection (NCCL_IB_QPS_PER_CONNECTION)"
    )

    entropy: EntropyScenario = Field(default_factory=EntropyScenario)

    @field_validator("hash_fields")
    @classmethod
    def _unique(cls, v: list[HashField] | None) -> list[HashField] | None:
        return _unique_fields(v)

    @property
    def fields(self) -> tuple[HashField, ...]:
        """The hash fields in effect (the platform default is taken to be the 5-tuple)."""
        return tuple(self.hash_fields) if self.hash_fields is not None else FIVE_TUPLE

    @property
    def qp_entropy(self) -> bool:
        """True when more QPs per connection can land on different paths (the hash sees the QP)."""
        return "l4_src_port" in self.fields or "roce_dest_qp" in self.fields

    def seed_for(self, role: SwitchRole) -> int | None:
        seed: int | None = getattr(self.hash_seed, role)
        return seed
