"""planes: 4 expands (4 NIC ports per rail position, one leaf per plane), lints, renders, and rolls out one
plane per wave; planes: 3 is refused at load."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import example_dict
from pydantic import ValidationError

from roceops.deploy.rollout import plan_rollout
from roceops.device.intent import HostIntent, SwitchIntent
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric, Switch


def _intent(planes: int, nic_model: str = "ConnectX-8") -> FabricIntent:
    data = example_dict("lab-mini")
    data["planes"] = planes
    data["node"]["nic_model"] = nic_model  # planes_max 4 (roceops.hardware.nics); ConnectX-7 serves one
    return FabricIntent.model_validate(data)


@pytest.fixture(scope="module")
def four() -> Fabric:
    return expand(_intent(4))


def test_three_planes_are_refused() -> None:
    with pytest.raises(ValidationError, match="planes"):
        _intent(3)


def test_four_planes_expand_with_four_nics_per_rail_position(four: Fabric) -> None:
    host = four.hosts[0]
    by_rail = Counter(n.rail for n in host.nics)
    assert by_rail == {1: 4, 2: 4}  # lab-mini: 2 rails x 4 planes
    assert sorted({(n.rail, n.plane) for n in host.nics}) == [(r, p) for r in (1, 2) for p in (1, 2, 3, 4)]
    for nic in host.nics:
        leaf = four.device(nic.leaf)
        assert isinstance(leaf, Switch) and (leaf.plane, leaf.rail) == (nic.plane, nic.rail)
    leaves = Counter(s.plane for s in four.switches if s.role == "leaf")
    spines = Counter(s.plane for s in four.switches if s.role == "spine")
    assert leaves == {p: 4 for p in (1, 2, 3, 4)} and len(set(spines.values())) == 1 and set(spines) == {1, 2, 3, 4}
    assert len(four.rail_subnets) == 8 and len(set(four.rail_subnets.values())) == 8
    assert all(s.name.startswith(f"p{s.plane}-") for s in four.switches)
    # no link crosses planes
    assert all(four.device(link.a.device).plane == four.device(link.b.device).plane
               for link in four.links if link.tier != "host-leaf")


def test_four_planes_lint_and_render(four: Fabric) -> None:
    report = lint(four.intent, four)
    assert report.errors == [], str(report)
    host = plan(four, four.hosts[0].name)
    assert isinstance(host, HostIntent) and len(host.nics) == 8
    assert {n.plane for n in host.nics.values()} == {1, 2, 3, 4}
    assert "eth7" in render_device(host).files["roce-setup.sh"]
    for plane in (1, 4):
        leaf = next(s for s in four.switches if s.role == "leaf" and s.plane == plane)
        intent = plan(four, leaf.name)
        assert isinstance(intent, SwitchIntent)
        assert render_device(intent).files  # every platform room renders its plane's leaves


def test_planes_beyond_the_nic_model_are_a_lint_error() -> None:
    cx7 = lint(_intent(4, "ConnectX-7"))
    topo010 = [f for f in cx7.errors if f.id == "TOPO010"]
    assert [f.path for f in topo010] == ["planes"] and not cx7.ok
    assert "ConnectX-7 serves at most 1 plane(s)" in topo010[0].message
    assert "TOPO010" in lint(_intent(2, "SomeNIC-9000")).ids  # no profile: cannot confirm
    assert "TOPO010" not in lint(_intent(2)).ids and "TOPO010" not in lint(_intent(1, "ConnectX-7")).ids


def test_waves_never_hold_two_planes(four: Fabric) -> None:
    waves = plan_rollout(list(four.devices()), canary=2, batch="100%").waves
    assert sorted(n for w in waves for n in w) == sorted(d.name for d in four.devices())
    for wave in waves:
        planes = {d.plane for n in wave if isinstance(d := four.device(n), Switch)}
        assert len(planes) <= 1, wave
    assert sum(1 for w in waves if any(isinstance(four.device(n), Switch) for n in w)) >= 4
