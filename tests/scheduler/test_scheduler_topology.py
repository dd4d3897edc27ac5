"""Topology for schedulers from intent: Slurm topology.conf, Topograph labels, and reading topology.conf back."""

from __future__ import annotations

import pytest
from labtools import lab_mini

from roceops.audit.scheduler_topology import topology_findings
from roceops.topology.scheduler import (
    TIER_LABEL,
    TopologyConfError,
    k8s_labels,
    leaf_nodes,
    misplaced_nodes,
    parse_topology_conf,
    slurm_topology_conf,
)

LAB_MINI_CONF = """\
SwitchName=leaf-su1-r1 Nodes=gpu[001-004]
SwitchName=leaf-su1-r2 Nodes=gpu[001-004]
SwitchName=leaf-su2-r1 Nodes=gpu[005-008]
SwitchName=leaf-su2-r2 Nodes=gpu[005-008]
SwitchName=spine01 Switches=leaf-su[1-2]-r[1-2]
SwitchName=spine02 Switches=leaf-su[1-2]-r[1-2]
SwitchName=lab-mini-plane1 Switches=spine[01-02]
"""


def test_lab_mini_topology_conf_is_the_cabling_plan() -> None:
    text = slurm_topology_conf(lab_mini())
    assert text.startswith("# topology.conf")
    assert text.split("\n", 1)[1] == LAB_MINI_CONF


def test_every_leaf_lists_exactly_its_cabled_hosts() -> None:
    fab = lab_mini()
    conf = parse_topology_conf(slurm_topology_conf(fab))
    for host in fab.hosts:
        for nic in host.nics:
            assert host.name in conf.nodes[nic.leaf]
    assert {leaf: sorted(nodes) for leaf, nodes in conf.nodes.items() if nodes} == \
        {leaf: sorted(nodes) for leaf, nodes in leaf_nodes(fab).items()}
    assert misplaced_nodes(fab, conf) == []


def test_three_tier_planes_and_cores_are_parents(fabric_800g) -> None:
    conf = parse_topology_conf(slurm_topology_conf(fabric_800g))
    cores = [s.name for s in fabric_800g.switches if s.role == "core"]
    spines = [s.name for s in fabric_800g.switches if s.role == "spine"]
    roots = [n for n in conf.switches if n.startswith(f"{fabric_800g.intent.name}-plane")]
    assert len(roots) == fabric_800g.intent.planes
    assert sorted(c for r in roots for c in conf.switches[r]) == sorted(cores or spines)
    below = {c for s in (cores or spines) for c in conf.switches[s]}
    assert below == set(spines if cores else [s.name for s in fabric_800g.switches if s.role == "leaf"])


@pytest.fixture(scope="module")
def fabric_800g():
    import yaml
    from conftest import EXAMPLES

    from roceops.model.intent import FabricIntent
    from roceops.topology.expand import expand
    return expand(FabricIntent.model_validate(yaml.safe_load(EXAMPLES["fabric-800g"].read_text())))


def test_moved_node_is_schedule_topology_drift() -> None:
    fab = lab_mini()
    wrong = LAB_MINI_CONF.replace("SwitchName=leaf-su1-r2 Nodes=gpu[001-004]",
                                  "SwitchName=leaf-su1-r2 Nodes=gpu[001-003]") \
                         .replace("Nodes=gpu[005-008]\nSwitchName=spine01", "Nodes=gpu[004-008]\nSwitchName=spine01")
    conf = parse_topology_conf(wrong, "t.conf")
    found = topology_findings(fab, conf, [h.name for h in fab.hosts], "t.conf")
    assert [(f.check, f.device, f.path) for f in found] == [("schedule.topology", "gpu004", "schedule.leaves")]
    assert found[0].expected == ["leaf-su1-r1", "leaf-su1-r2"]
    assert found[0].observed == ["leaf-su1-r1", "leaf-su2-r2"]
    assert "t.conf places gpu004 under leaf-su1-r1, leaf-su2-r2" in found[0].message
    assert topology_findings(fab, conf, ["gpu001"], "t.conf") == []  # only the selected nodes are judged


def test_a_node_missing_from_the_file_is_under_no_switch() -> None:
    conf = parse_topology_conf("# only SU1\nswitchname=leaf-su1-r1 nodes=gpu[001-004]\n"
                               "SwitchName=leaf-su1-r2 Nodes=gpu[001-004]  # keys are case-insensitive\n")
    missing = misplaced_nodes(lab_mini(), conf)
    assert [m.node for m in missing] == [f"gpu00{n}" for n in range(5, 9)]
    assert all(m.found == [] for m in missing)


@pytest.mark.parametrize("text", ["Nodes=gpu001\n", "SwitchName=a Nodes=gpu[001-\n"])
def test_unreadable_topology_conf_names_the_line(text: str) -> None:
    with pytest.raises(TopologyConfError, match=r"t.conf:1: "):
        parse_topology_conf(text, "t.conf")


def test_k8s_labels_use_topographs_tier_keys() -> None:
    labels = k8s_labels(lab_mini())
    assert set(labels) == {f"gpu00{n}" for n in range(1, 9)}
    assert labels["gpu005"] == {f"{TIER_LABEL}0": "leaf-su2-r1", f"{TIER_LABEL}1": "lab-mini-plane1"}
    assert TIER_LABEL == "fabric.topograph.run/tier-"


def _mini(**changes) -> object:
    from conftest import example_dict

    from roceops.model.intent import FabricIntent
    from roceops.topology.expand import expand
    data = example_dict("lab-mini")
    data.update(changes)
    if changes.get("planes", 1) > 1:
        data["node"]["nic_model"] = "ConnectX-8"  # planes need a NIC with a plane per port (test_planes.py)
    return expand(FabricIntent.model_validate(data))


def test_one_root_per_plane_over_that_planes_spines() -> None:
    conf = parse_topology_conf(slurm_topology_conf(_mini(planes=4)))
    for p in range(1, 5):
        assert conf.switches[f"lab-mini-plane{p}"] == [f"p{p}-spine01", f"p{p}-spine02"]
        assert conf.switches[f"p{p}-spine01"] == [f"p{p}-leaf-su{s}-r{r}" for s in (1, 2) for r in (1, 2)]
    assert conf.placement()["gpu001"] == [f"p{p}-leaf-su1-r{r}" for p in range(1, 5) for r in (1, 2)]


def test_rail_only_has_leaves_and_no_parents() -> None:
    fab = _mini(rail_only=True)
    conf = parse_topology_conf(slurm_topology_conf(fab))
    assert all(not children for children in conf.switches.values())
    assert sorted(conf.nodes) == ["leaf-su1-r1", "leaf-su1-r2", "leaf-su2-r1", "leaf-su2-r2"]
    assert k8s_labels(fab)["gpu001"] == {f"{TIER_LABEL}0": "leaf-su1-r1"}
