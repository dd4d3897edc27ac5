"""Rollout waves limit the blast radius."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import example_dict

from roceops.deploy.rollout import batch_size, plan_rollout
from roceops.model.intent import FabricIntent
from roceops.topology.expand import expand
from roceops.topology.fabric import Switch


@pytest.fixture(scope="module")
def fabric():
    return expand(FabricIntent.model_validate(example_dict("fabric")))


def test_every_device_exactly_once(fabric) -> None:
    r = plan_rollout(list(fabric.devices()), canary=3, batch="10%")
    names = [n for wave in r.waves for n in wave]
    assert sorted(names) == sorted(d.name for d in fabric.devices())
    assert len(r.canary) == 3


def test_canary_covers_every_platform(fabric) -> None:
    r = plan_rollout(list(fabric.devices()), canary=3)
    assert {fabric.device(n).platform for n in r.canary} == {"sonic", "eos", "linux_mlx5"}


def test_no_wave_takes_every_leaf_of_a_rail_or_every_spine(fabric) -> None:
    rails = Counter((s.plane, s.rail) for s in fabric.switches if s.role == "leaf")
    spines = sum(1 for s in fabric.switches if s.role == "spine")
    for wave in plan_rollout(list(fabric.devices()), batch="100%").waves:
        devs = [fabric.device(n) for n in wave]
        per_rail = Counter((d.plane, d.rail) for d in devs if isinstance(d, Switch) and d.role == "leaf")
        assert all(per_rail[k] < rails[k] for k in per_rail)
        assert sum(1 for d in devs if isinstance(d, Switch) and d.role == "spine") < spines


def test_never_both_planes_in_one_wave() -> None:
    data = example_dict("lab-mini")
    data["planes"] = 2
    fab = expand(FabricIntent.model_validate(data))
    for wave in plan_rollout(list(fab.devices()), batch="100%").waves:
        planes = {fab.device(n).plane for n in wave if isinstance(fab.device(n), Switch)}
        assert len(planes) <= 1


@pytest.mark.parametrize(("spec", "total", "size"), [(None, 40, 40), ("10", 40, 10), ("25%", 40, 10), ("1%", 40, 1)])
def test_batch_size(spec: str | None, total: int, size: int) -> None:
    assert batch_size(total, spec) == size


@pytest.mark.parametrize("spec", ["0", "0%", "150%"])
def test_bad_batch_sizes(spec: str) -> None:
    with pytest.raises(ValueError, match="--batch"):
        batch_size(10, spec)
