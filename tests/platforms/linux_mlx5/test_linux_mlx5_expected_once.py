"""The host driver's ``expected`` validates the intent's data once, with the host's changes made in it; the result
equals the intent as an ObservedHost (``as_observed``) with a copy of each changed model (value, type, fields set,
order), for every host of the examples and of a 2-SU lab fabric, and for routes given out of order."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from conftest import example_dict
from pydantic import BaseModel
from test_linux_mlx5_fast_paths import lab_fabric_2su

from roceops.device.intent import HostIntent, Route
from roceops.device.observed import ObservedBoot, ObservedHost, as_observed
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5.expected import expected, shown_sysctls
from roceops.platforms.linux_mlx5.observe import route_key
from roceops.platforms.linux_mlx5.persisted import persisted_files
from roceops.platforms.linux_mlx5.render import INSTALL_TARGETS, PERSISTED
from roceops.topology.expand import expand


def copied_expected(intent: HostIntent) -> ObservedHost:
    """``expected`` as it was built before: the whole intent validated, then each changed model copied."""
    rendered = persisted_files(intent, PERSISTED)
    files: dict[str, str | None] = {INSTALL_TARGETS[n].path: hashlib.sha256(rendered[n].encode()).hexdigest()
                                    for n in PERSISTED}
    host = as_observed(intent, ObservedHost)
    nics = {name: nic.model_copy(update={"addresses": [intent.nics[name].address],
                                         "routes": sorted(nic.routes or [], key=route_key)})
            for name, nic in (host.nics or {}).items()}
    shown_boot = (host.boot or ObservedBoot()).model_copy(update={"files": files})
    return host.model_copy(update={"nics": nics, "sysctls": shown_sysctls(intent.sysctls), "boot": shown_boot})


def fields_set(value: Any) -> Any:
    """Every model's class and fields set, all the way down."""
    if isinstance(value, BaseModel):
        return type(value), sorted(value.model_fields_set), {k: fields_set(v) for k, v in value}
    if isinstance(value, list):
        return [fields_set(v) for v in value]
    if isinstance(value, dict):
        return {k: fields_set(v) for k, v in value.items()}
    return type(value)


def same(a: BaseModel, b: BaseModel) -> None:
    assert a == b
    assert repr(a) == repr(b)  # the same types of values (1 == True)
    assert fields_set(a) == fields_set(b)
    assert a.model_dump_json() == b.model_dump_json()  # and the same order


def hosts(fabric_intent: FabricIntent) -> list[HostIntent]:
    fabric = expand(fabric_intent)
    return [i for h in fabric.hosts if isinstance(i := plan(fabric, h.name), HostIntent)]


@pytest.mark.parametrize("example", ["lab-mini", "fabric", "fabric-800g", "lab-2su"])
def test_every_host(example: str) -> None:
    intents = hosts(lab_fabric_2su() if example == "lab-2su" else FabricIntent.model_validate(example_dict(example)))
    assert len(intents) >= 8
    for intent in intents:
        same(expected(intent), copied_expected(intent))


def test_routes_out_of_order_and_every_table_kind() -> None:
    intent = hosts(FabricIntent.model_validate(example_dict("lab-mini")))[0]
    name, nic = next(iter(intent.nics.items()))
    routes = [Route(to="10.9.0.0/16", via="10.1.0.1", table=7), Route(to="0.0.0.0/0", via="10.1.0.1"),
              Route(to="10.8.0.0/16", via="10.1.0.2", table=7), Route(to="10.8.0.0/16", via="10.1.0.1", table=7),
              Route(to="10.8.0.0/16", via="10.1.0.1"), Route(to="10.7.0.0/16", via="10.1.0.1", table=0)]
    odd = intent.model_copy(update={"nics": {**intent.nics, name: nic.model_copy(update={"routes": routes})}})
    same(expected(odd), copied_expected(odd))
