"""--shard I/N: a deterministic partition of the selection that keeps host-leaf cables inside one shard."""

from __future__ import annotations

import pytest
from labtools import lab_mini

from roceops.topology.sharding import Shard, cabling_groups, parse_shard, shard_names, shard_nodes


def test_shards_partition_the_selection_in_order() -> None:
    fab = lab_mini()
    names = [d.name for d in fab.devices()]
    parts = [shard_names(fab, names, Shard(i, 3)) for i in (1, 2, 3)]
    assert sorted(n for p in parts for n in p) == sorted(names)
    assert all(p == [n for n in names if n in p] for p in parts)
    assert parts == [shard_names(fab, names, Shard(i, 3)) for i in (1, 2, 3)]  # deterministic
    su1 = {"leaf-su1-r1", "leaf-su1-r2", "gpu001", "gpu002", "gpu003", "gpu004"}
    assert any(su1 <= set(p) for p in parts)  # hosts with their leaves: the link checks stay whole
    assert sorted(len(p) for p in parts) == [2, 6, 6]


def test_groups_are_joined_by_host_leaf_cables_only() -> None:
    fab = lab_mini()
    groups = cabling_groups(fab, [d.name for d in fab.devices()])
    assert sorted(len(g) for g in groups) == [1, 1, 6, 6]


def test_more_shards_than_groups_leaves_some_empty() -> None:
    fab = lab_mini()
    names = [d.name for d in fab.devices()]
    parts = [shard_names(fab, names, Shard(i, 6)) for i in range(1, 7)]
    assert sorted(n for p in parts for n in p) == sorted(names)
    assert [] in parts


def test_health_shards_keep_nodes_of_one_leaf_together() -> None:
    fab = lab_mini()
    nodes = [h.name for h in fab.hosts]
    assert shard_nodes(fab, nodes, Shard(1, 2)) == ["gpu001", "gpu002", "gpu003", "gpu004"]
    assert shard_nodes(fab, nodes, Shard(2, 2)) == ["gpu005", "gpu006", "gpu007", "gpu008"]


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/3"])
def test_bad_shard_specs_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="1 <= I <= N"):
        parse_shard(text)
