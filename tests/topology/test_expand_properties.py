"""Hypothesis: expansion is deterministic and every NIC lands on the leaf of its rail in its SU."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from roceops.model.intent import FabricIntent
from roceops.topology.expand import expand
from roceops.topology.sizing import TopologyError

fabrics = st.fixed_dictionaries({
    "sus": st.integers(1, 6),
    "nodes": st.integers(1, 40),
    "rails": st.integers(1, 8),
    "planes": st.sampled_from([1, 2]),
    "radix": st.sampled_from([16, 32, 64]),
    "oversub": st.sampled_from([1.0, 2.0, 3.0]),
    "leaf_platform": st.sampled_from(["sonic", "cumulus", "eos"]),
})


def build(p: dict) -> FabricIntent:
    return FabricIntent.model_validate({
        "name": "prop",
        "planes": p["planes"],
        "node": {"rails": p["rails"]},
        "scalable_units": {"count": p["sus"], "nodes_per_su": p["nodes"]},
        "switch_models": {"sw": {"radix": p["radix"], "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw", "platform": p["leaf_platform"], "oversubscription": p["oversub"]},
                  "spine": {"model": "sw", "platform": "eos"}, "core": {"model": "sw", "platform": "eos"}},
        "addressing": {"p2p": "10.64.0.0/10", "hosts": "10.128.0.0/9", "management": "172.16.0.0/12"},
    })


@settings(max_examples=40, deadline=None)
@given(fabrics)
def test_expansion_is_deterministic_and_rail_aligned(p: dict) -> None:
    intent = build(p)
    try:
        fab = expand(intent)
    except TopologyError:
        return  # e.g. a spine too small for one SU: reported to the user, nothing to check
    assert fab.to_dict() == expand(intent).to_dict()
    for host in fab.hosts:
        assert len(host.nics) == p["rails"] * p["planes"]
        for nic in host.nics:
            leaf = fab.device(nic.leaf)
            assert (leaf.role, leaf.su, leaf.rail, leaf.plane) == ("leaf", host.su, nic.rail, nic.plane)
            assert fab.peer(host.name, nic.netdev).port == nic.leaf_port
    for sw in fab.switches:
        assert len(fab.links_of(sw.name)) <= sw.radix
