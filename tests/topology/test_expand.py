"""Expansion: NVIDIA's published SuperPOD counts, the golden snapshot, rail alignment, scaling."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import GOLDEN, check_golden, example_dict

from roceops.model.intent import FabricIntent
from roceops.topology.addressing import PoolExhausted
from roceops.topology.expand import expand
from roceops.topology.sizing import TopologyError


def superpod(sus: int, *, core: bool = True, target: int | None = None, nodes: int = 32) -> FabricIntent:
    data = {
        "name": "b200",
        "scalable_units": {"count": sus, "nodes_per_su": nodes, **({"target_count": target} if target else {})},
        "switch_models": {"qm9700": {"radix": 64, "port_speed": "400G"}},
        "tiers": {"leaf": {"model": "qm9700", "platform": "sonic"}, "spine": {"model": "qm9700", "platform": "sonic"},
                  **({"core": {"model": "qm9700", "platform": "sonic"}} if core else {})},
        "addressing": {"p2p": "10.64.0.0/10", "hosts": "10.128.0.0/9", "management": "172.16.0.0/12",
                       "loopbacks": "10.0.0.0/16"},
    }
    return FabricIntent.model_validate(data)


# NVIDIA DGX B200 SuperPOD reference architecture table (domain.md §1.3):
# SUs: (leaf, spine, core, node-leaf, leaf-spine, spine-core)
B200 = {
    2: (16, 8, 0, 512, 512, 0),
    4: (32, 16, 0, 1024, 1024, 0),
    8: (64, 32, 0, 2048, 2048, 0),
    16: (128, 128, 64, 4096, 4096, 4096),
    32: (256, 256, 128, 8192, 8192, 8192),
    64: (512, 512, 256, 16384, 16384, 16384),
}


@pytest.mark.parametrize("sus", sorted(B200))
def test_reproduces_nvidia_b200_superpod_counts(sus: int) -> None:
    fab = expand(superpod(sus))
    roles = Counter(s.role for s in fab.switches)
    cables = Counter(link.tier for link in fab.links)
    got = (roles["leaf"], roles["spine"], roles["core"], cables["host-leaf"], cables["leaf-spine"],
           cables["spine-core"])
    assert got == B200[sus]
    assert len(fab.hosts) == sus * 32
    assert fab.tiers == (3 if sus >= 16 else 2)


def test_h100_three_sus_sized_for_growth_uses_sixteen_spines() -> None:
    """NVIDIA's H100 table: 3 SUs get 16 spines because spines are sized for 4 (domain.md §1.4)."""
    assert Counter(s.role for s in expand(superpod(3, core=False, target=4)).switches)["spine"] == 16
    # without a target, spines must still divide the 32 uplinks evenly: 24 leaves x 32 / 64 = 12 -> 16
    assert Counter(s.role for s in expand(superpod(3, core=False)).switches)["spine"] == 16


def test_core_tier_required_when_two_tiers_cannot_hold_the_fabric() -> None:
    with pytest.raises(TopologyError, match=r"add tiers\.core") as exc:
        expand(superpod(16, core=False))
    assert exc.value.path == "tiers.core"


def test_core_tier_not_built_when_two_tiers_suffice() -> None:
    fab = expand(superpod(8, core=True))
    assert fab.tiers == 2 and not [s for s in fab.switches if s.role == "core"]


def test_scales_to_128_sus() -> None:
    fab = expand(superpod(128))
    roles = Counter(s.role for s in fab.switches)
    assert (roles["leaf"], roles["spine"], roles["core"]) == (1024, 1024, 512)
    assert len(fab.links) == 3 * 32768


def test_radix_never_exceeded_and_ports_unique() -> None:
    fab = expand(superpod(16))
    used: Counter[tuple[str, str]] = Counter()
    for link in fab.links:
        used[(link.a.device, link.a.port)] += 1
        used[(link.b.device, link.b.port)] += 1
    assert max(used.values()) == 1
    per_switch = Counter(dev for dev, _ in used)
    for sw in fab.switches:
        assert per_switch[sw.name] <= sw.radix


def test_every_leaf_reaches_every_spine_of_its_pod() -> None:
    fab = expand(superpod(16))
    spines_by_pod = {}
    for s in fab.switches:
        if s.role == "spine":
            spines_by_pod.setdefault(s.pod, set()).add(s.name)
    reach: dict[str, set[str]] = {}
    for link in fab.links:
        if link.tier == "leaf-spine":
            reach.setdefault(link.a.device, set()).add(link.b.device)
    for leaf in (s for s in fab.switches if s.role == "leaf"):
        assert reach[leaf.name] == spines_by_pod[leaf.pod]


def test_pool_too_small_names_the_pool() -> None:
    data = superpod(2).model_dump(mode="json")
    data["addressing"]["p2p"] = "10.1.0.0/24"
    with pytest.raises(PoolExhausted) as exc:
        expand(FabricIntent.model_validate(data))
    assert exc.value.path == "addressing.p2p"


def test_two_planes_are_disjoint_fabrics() -> None:
    data = superpod(2, core=False).model_dump(mode="json")
    data["planes"] = 2
    fab = expand(FabricIntent.model_validate(data))
    assert Counter(s.role for s in fab.switches) == {"leaf": 32, "spine": 16}
    for link in fab.links:
        assert fab.device(link.a.device).plane == fab.device(link.b.device).plane if link.tier != "host-leaf" else True
    assert all(len(h.nics) == 16 for h in fab.hosts)
    assert len(set(fab.rail_subnets.values())) == 16


def test_asns_follow_rfc7938() -> None:
    fab = expand(superpod(16))
    leaves = [s.asn for s in fab.switches if s.role == "leaf"]
    assert len(set(leaves)) == len(leaves)
    by_pod: dict[int | None, set[int]] = {}
    for s in fab.switches:
        if s.role == "spine":
            by_pod.setdefault(s.pod, set()).add(s.asn)
    assert all(len(v) == 1 for v in by_pod.values()) and len(by_pod) == 4
    assert len({s.asn for s in fab.switches if s.role == "core"}) == 1


def test_golden_snapshot_of_example_fabric(update_golden: bool) -> None:
    fab = expand(FabricIntent.model_validate(example_dict("fabric")))
    text = json.dumps(fab.to_dict(), indent=1, sort_keys=True) + "\n"
    check_golden(GOLDEN / "fabric.expanded.json", text, update_golden)
