"""Decide how many switches each tier needs, from radix and oversubscription alone.

The rules reproduce NVIDIA's published SuperPOD tables (see docs and the tests):
a leaf splits its ports between hosts and uplinks by the oversubscription;
spines are the leaf uplinks at the *target* size divided by spine radix,
rounded up so every leaf has the same number of links to every spine; when
a 2-tier Clos cannot hold the leaves, leaves and spines form pods and a core
tier joins the pods.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from roceops.model.intent import FabricIntent
from roceops.model.types import breakout_parts
from roceops.util.picklable import PicklableError


class TopologyError(PicklableError, ValueError):
    """The intent cannot be built as a Clos fabric; the message says why and what to change."""

    def __init__(self, message: str, path: str = "tiers") -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class Sizing:
    tiers: int
    leaf_down: int  # host-facing ports per leaf
    leaf_up: int  # uplinks per leaf
    leaves_per_rail: int  # leaves per rail per SU per plane
    nodes_per_leaf: int
    leaves_per_su: int  # per plane
    # 2-tier: one pod holding every leaf; 3-tier: pods of whole SUs
    sus_per_pod: int
    pods: int  # pods built now
    spines_per_pod: int  # per plane
    leaf_spine_links: int  # parallel links between one leaf and one spine
    spine_down: int
    spine_up: int
    cores_per_group: int  # per plane; core groups = spines_per_pod
    spine_core_links: int
    host_cages: int | None = None  # leaf cages broken out for hosts (switch_models.<m>.host_breakout)

    @property
    def leaf_down_cages(self) -> int:
        """Leaf cages the host ports take: uplinks start at this front-panel position."""
        return self.leaf_down if self.host_cages is None else self.host_cages

    @property
    def cores(self) -> int:
        return self.cores_per_group * self.spines_per_pod if self.tiers == 3 else 0


def split_ports(radix: int, oversubscription: float) -> tuple[int, int]:
    """Host-facing and uplink port counts for a leaf of ``radix`` ports."""
    down = math.floor(radix * oversubscription / (1 + oversubscription))
    return down, radix - down


def split_cages(radix: int, oversubscription: float, cage_speed: int, host_breakout: str) -> tuple[int, int, int]:
    """(host cages, host ports, uplink cages) for a leaf whose host cages are broken out (``2x400G``) and whose
    uplinks are whole cages at ``cage_speed``: the most host cages whose bandwidth stays within
    ``oversubscription`` x the uplinks'.

    >>> split_cages(64, 1.0, 800_000, "2x400G")
    (32, 64, 32)
    """
    n, speed = breakout_parts(host_breakout)
    host_bw = n * speed
    cages = math.floor(radix * oversubscription * cage_speed / (host_bw + oversubscription * cage_speed))
    return cages, cages * n, radix - cages


def _smallest_divisor_at_least(n: int, minimum: int) -> int | None:
    for d in range(max(1, minimum), n + 1):
        if n % d == 0:
            return d
    return None


def leaf_ports(intent: FabricIntent) -> tuple[int, int, int]:
    """(host-facing ports, uplinks, cages the host ports take) of every leaf."""
    leaf_model = intent.switch_models[intent.tiers.leaf.model]
    oversubscription = intent.tiers.leaf.oversubscription
    if leaf_model.host_breakout is None:
        down, up = (leaf_model.radix, 0) if intent.rail_only else split_ports(leaf_model.radix, oversubscription)
        return down, up, down
    if intent.rail_only:
        return leaf_model.radix * breakout_parts(leaf_model.host_breakout)[0], 0, leaf_model.radix
    cages, down, up = split_cages(leaf_model.radix, oversubscription, leaf_model.port_speed, leaf_model.host_breakout)
    return down, up, cages


def size_fabric(intent: FabricIntent) -> Sizing:
    sizing = _size(intent)
    host_cages = leaf_ports(intent)[2]
    return sizing if host_cages == sizing.leaf_down else replace(sizing, host_cages=host_cages)


def _size(intent: FabricIntent) -> Sizing:
    su = intent.scalable_units
    rails = intent.node.rails
    down, up, _cages = leaf_ports(intent)
    if down < 1:
        raise TopologyError("leaf has no host-facing ports at this oversubscription", "tiers.leaf")
    leaves_per_rail = math.ceil(su.nodes_per_su / down)
    nodes_per_leaf = math.ceil(su.nodes_per_su / leaves_per_rail)
    leaves_per_su = rails * leaves_per_rail
    target_leaves = su.sized_for * leaves_per_su
    if intent.rail_only:
        return Sizing(1, down, 0, leaves_per_rail, nodes_per_leaf, leaves_per_su, su.count, 1, 0, 0, 0, 0, 0, 0)

    spine_model = intent.switch_models[intent.tiers.spine.model]
    spine_radix = spine_model.radix
    two_tier = _two_tier(intent, up, target_leaves, spine_radix)
    if two_tier is not None:
        spines, links = two_tier
        return Sizing(2, down, up, leaves_per_rail, nodes_per_leaf, leaves_per_su, su.count, 1,
                      spines, links, spine_radix, 0, 0, 0)
    return _three_tier(intent, down, up, leaves_per_rail, nodes_per_leaf, leaves_per_su)


def _two_tier(intent: FabricIntent, up: int, target_leaves: int, spine_radix: int) -> tuple[int, int] | None:
    """Spine count and leaf-spine parallel links for a 2-tier Clos, or None if it cannot hold the leaves."""
    explicit = intent.tiers.spine.count
    if explicit is not None:
        if up % explicit:
            raise TopologyError(
                f"tiers.spine.count {explicit} does not divide the {up} uplinks of each leaf evenly",
                "tiers.spine.count",
            )
        links = up // explicit
        if target_leaves * links > spine_radix:
            if intent.tiers.core is None:
                raise TopologyError(
                    f"{explicit} spines of {spine_radix} ports cannot take {target_leaves} leaves x {links} "
                    "links; add spines or a core tier",
                    "tiers.spine.count",
                )
            return None
        return explicit, links
    minimum = math.ceil(target_leaves * up / spine_radix)
    spines = _smallest_divisor_at_least(up, minimum)
    if spines is None:
        return None
    links = up // spines
    if target_leaves * links > spine_radix:
        return None
    return spines, links


def _three_tier(intent: FabricIntent, down: int, up: int, leaves_per_rail: int, nodes_per_leaf: int,
                leaves_per_su: int) -> Sizing:
    su = intent.scalable_units
    if intent.tiers.core is None:
        raise TopologyError(
            f"{su.sized_for} SUs need {su.sized_for * leaves_per_su} leaves per plane, more than a 2-tier "
            "Clos of these spines can hold: add tiers.core",
            "tiers.core",
        )
    spine_model = intent.switch_models[intent.tiers.spine.model]
    core_model = intent.switch_models[intent.tiers.core.model]
    spine_down, spine_up = split_ports(spine_model.radix, intent.tiers.spine.oversubscription)
    # one link from every leaf to every spine of its pod
    spines_per_pod = up
    leaves_per_pod = spine_down
    sus_per_pod = leaves_per_pod // leaves_per_su
    if sus_per_pod < 1:
        raise TopologyError(
            f"a spine with {spine_down} leaf-facing ports cannot hold one SU ({leaves_per_su} leaves): "
            "use a larger spine",
            "tiers.spine.model",
        )
    pods_target = math.ceil(su.sized_for / sus_per_pod)
    pods = math.ceil(su.count / sus_per_pod)
    minimum = math.ceil(pods_target * spine_up / core_model.radix)
    explicit = intent.tiers.core.count
    if explicit is not None:
        if explicit % spines_per_pod:
            raise TopologyError(
                f"tiers.core.count {explicit} must be a multiple of the {spines_per_pod} spines per pod",
                "tiers.core.count",
            )
        minimum = max(minimum, explicit // spines_per_pod)
    per_group = _smallest_divisor_at_least(spine_up, minimum)
    if per_group is None or pods_target * (spine_up // per_group) > core_model.radix:
        raise TopologyError(
            f"{pods_target} pods exceed what a 3-tier fabric of {core_model.radix}-port cores can join",
            "scalable_units.count",
        )
    return Sizing(3, down, up, leaves_per_rail, nodes_per_leaf, leaves_per_su, sus_per_pod, pods,
                  spines_per_pod, 1, spine_down, spine_up, per_group, spine_up // per_group)
