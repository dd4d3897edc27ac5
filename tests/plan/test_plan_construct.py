"""The plan builds some models with ``roceops.plan.trusted`` (no second validation of values that come from the
validated fabric): every such model must be exactly what validation would have built, value, type, field order
and fields set."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import EXAMPLES
from pydantic import BaseModel

from roceops.device.intent import BgpNeighbor, NicIntent, Route, SwitchPort
from roceops.model.loader import load
from roceops.plan import host, plan, switch
from roceops.plan.trusted import trusted
from roceops.topology.expand import expand


def _validated(cls: type[BaseModel], **values: Any) -> BaseModel:
    return cls(**values)


def same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` are equal and of the same types all the way down (1 == True and [1] == (1,) are not)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} against {type(b).__name__}"
    if isinstance(a, BaseModel):
        assert a.model_fields_set == b.model_fields_set, where
        assert list(a.__dict__) == list(b.__dict__), where
        assert a.model_dump_json() == b.model_dump_json(), where
        for name in type(a).model_fields:
            same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_constructed_models_are_what_validation_builds(example: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = expand(load(EXAMPLES[example]).intent)
    names = [d.name for d in fabric.devices()]
    built = {name: plan(fabric, name) for name in names}
    for module in (host, switch):
        monkeypatch.setattr(module, "trusted", _validated)
    for name in names:
        same(built[name], plan(fabric, name), name)


def test_nics_of_a_host_share_no_mutable_value() -> None:
    fabric = expand(load(EXAMPLES["fabric"]).intent)
    host = plan(fabric, next(d.name for d in fabric.devices() if d.kind == "host"))
    first, second = list(host.nics.values())[:2]  # type: ignore[union-attr]
    for field in ("pfc_priorities", "dscp_to_priority", "prio_tc", "tc_bandwidth", "strict_tcs"):
        assert getattr(first, field) is not getattr(second, field), field


def test_trusted_fills_defaults_like_validation_and_refuses_unknown_or_missing_fields() -> None:
    values = {"name": "Ethernet0", "speed": 400_000, "mtu": 9100, "role": "host", "cable_length": 5,
              "pfc_priorities": [3], "pfc_watchdog": True}
    made, validated = trusted(SwitchPort, **values), SwitchPort(**values)
    same(made, validated, "port")
    assert made.lanes is not trusted(SwitchPort, **values).lanes  # a default factory's value is new each time
    same(trusted(Route, to="10.0.0.0/31", via="10.0.0.1"), Route(to="10.0.0.0/31", via="10.0.0.1"), "route")
    with pytest.raises(TypeError, match="unknown fields"):
        trusted(BgpNeighbor, ip="10.0.0.1", remote_asn=1, port="Ethernet0", colour="red")
    with pytest.raises(TypeError, match="missing"):
        trusted(NicIntent, netdev="eth0")
