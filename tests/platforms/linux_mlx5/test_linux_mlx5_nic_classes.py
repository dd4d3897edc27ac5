"""A NIC's render context made once per class of NICs (``nic_classes``) equals ``render.nic_context``'s (the code it
replaced, kept as the reference) on every host of the examples and of a 2-SU lab fabric, including after the class is
cached, and raises the same errors for a host's own bad values; persisted._nic_key equals its previous code."""

from __future__ import annotations

import pytest
from conftest import example_dict
from test_linux_mlx5_expected_once import hosts
from test_linux_mlx5_fast_paths import lab_fabric_2su

from roceops.device.intent import HostIntent, Route
from roceops.model.intent import FabricIntent
from roceops.platforms.base import get_platform
from roceops.platforms.linux_mlx5 import nic_classes, persisted, render
from roceops.platforms.linux_mlx5.render import NicContext


def same_context(a: dict[str, object], b: dict[str, object]) -> None:
    assert a == b
    assert repr(a) == repr(b)  # the same types of values, field by field


@pytest.mark.parametrize("example", ["lab-mini", "fabric", "fabric-800g", "lab-2su"])
def test_every_host(example: str) -> None:
    intents = hosts(lab_fabric_2su() if example == "lab-2su" else FabricIntent.model_validate(example_dict(example)))
    assert len(intents) >= 8
    nic_classes._classes.clear()
    kept = []
    for _ in range(2):  # first pass fills the classes, the second finds every NIC's class cached
        for intent in intents:
            same_context(nic_classes.render_context(intent), render.render_context(intent))
        kept.append(len(nic_classes._classes))
    assert 0 < kept[0] == kept[1] <= sum(len(i.nics) for i in intents)
    assert kept[0] == len({n.netdev for i in intents for n in i.nics.values()})  # a class per rail here
    assert get_platform("linux_mlx5").render_context(intents[0]) == render.render_context(intents[0])


def _with_nic(intent: HostIntent, **update: object) -> HostIntent:
    name, nic = next(iter(intent.nics.items()))
    return intent.model_copy(update={"nics": {**intent.nics, name: nic.model_copy(update=update)}})


@pytest.mark.parametrize("update", [
    {"address": "10.1.0.300/31"}, {"address": "not-an-address"}, {"routes": [Route(to="10.8.0.1/16", via="10.1.0.1")]},
    {"routes": [Route(to="10.8.0.0/16", via="10.1.0.999")]}, {"cnp_dscp": 64}, {"netdev": "bad/name"},
    {"pfc_priorities": [9]}, {"leaf": "other-leaf", "leaf_port": "Ethernet99"}, {"gateway": "10.1.0.77"},
    {"mtu": 4200},
])
def test_own_and_class_values_on_a_cached_class(update: dict[str, object]) -> None:
    intent = hosts(FabricIntent.model_validate(example_dict("lab-mini")))[0]
    nic_classes.render_context(intent)  # the NIC's class is cached
    changed = _with_nic(intent, **update)
    try:
        want = render.render_context(changed)
    except ValueError as e:
        with pytest.raises(ValueError) as got:
            nic_classes.render_context(changed)
        assert (type(got.value), str(got.value)) == (type(e), str(e))
        return
    same_context(nic_classes.render_context(changed), want)


def copied_nic_key(nic: NicContext) -> tuple[object, ...]:
    """persisted._nic_key as it was (a getattr per field)."""
    return (*(getattr(nic, f) for f in persisted._NIC_FIELDS),
            tuple(tuple(getattr(r, f) for f in persisted._ROUTE_FIELDS) for r in nic.routes))


@pytest.mark.parametrize("example", ["lab-mini", "fabric", "fabric-800g", "lab-2su"])
def test_persisted_nic_key(example: str) -> None:
    intents = hosts(lab_fabric_2su() if example == "lab-2su" else FabricIntent.model_validate(example_dict(example)))
    for intent in intents:
        for nic in nic_classes.render_context(intent)["nics"]:
            assert persisted._nic_key(nic) == copied_nic_key(nic)
            assert repr(persisted._nic_key(nic)) == repr(copied_nic_key(nic))


def test_class_key_is_the_tuple_as_a_key() -> None:
    pairs = tuple((d, d % 8) for d in range(64))
    a, b = nic_classes.ClassKey(("eth0", 1, pairs), 2), nic_classes.ClassKey(("eth0", 1, tuple(pairs)), 2)
    other = nic_classes.ClassKey(("eth0", 1, (*pairs[:-1], (63, 0))), 2)  # the same hashed part, other pairs
    assert a == b and hash(a) == hash(b) and hash(a) == hash(("eth0", 1))
    assert a != other and hash(a) == hash(other)
    assert a != ("eth0", 1, pairs)
    found = {a: "a", other: "other"}
    assert (found[b], found[nic_classes.ClassKey(other.values, 2)], len(found)) == ("a", "other", 2)
