"""compare's walk (one tuple ``==`` for a model's plain fields, models and maps of models walked without ``==``) and
end_facts (each EndFacts built once) give exactly what the plain field-by-field walk and the step-by-step end_facts
gave: on every device of lab-mini and of a 2-SU lab fabric, configured and bare, and on Hypothesis changes of
those pairs (fields unset or changed, entries dropped or added, a shared sub-model changed on one port only)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from labtools import lab_mini
from pydantic import BaseModel

from roceops.audit.checks import EndFacts, Observation, end_facts
from roceops.audit.device import parse_observation, plan_observation
from roceops.device.compare import Drift, _norm, compare
from roceops.device.observed import ObservedHost, ObservedSwitch, open_fields
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.inprocess import InProcessConnection
from roceops.lab.personality import SessionInfo, get_personality
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric


def reference_compare(expected: BaseModel, observed: BaseModel, path: str = "",
                      skip: Collection[str] = ()) -> list[Drift]:
    """The walk before the fast paths: every field both sides set, in field order, settled by ``==`` or walked."""
    out: list[Drift] = []
    for name in type(expected).model_fields:
        if name not in observed.model_fields_set or name not in expected.model_fields_set or name in skip:
            continue
        exp_val, obs_val = getattr(expected, name), getattr(observed, name)
        if exp_val is obs_val or exp_val == obs_val:
            continue
        out.extend(_reference_value(exp_val, obs_val, f"{path}.{name}" if path else name,
                                    name in open_fields(type(expected))))
    return out


def _reference_value(exp_val: Any, obs_val: Any, path: str, is_open: bool) -> list[Drift]:
    if isinstance(exp_val, BaseModel) and isinstance(obs_val, BaseModel):
        return reference_compare(exp_val, obs_val, path)
    if isinstance(exp_val, dict) and isinstance(obs_val, dict):
        out: list[Drift] = []
        for key, value in exp_val.items():
            if key not in obs_val:
                out.append(Drift(f"{path}[{key}]", _norm(value), None, "missing"))
            elif not (value is obs_val[key] or value == obs_val[key]):
                out.extend(_reference_value(value, obs_val[key], f"{path}[{key}]", is_open))
        if not is_open:
            out.extend(Drift(f"{path}[{key}]", None, _norm(value), "unexpected")
                       for key, value in obs_val.items() if key not in exp_val)
        return out
    return [Drift(path, _norm(exp_val), _norm(obs_val), "mismatch")] if _norm(exp_val) != _norm(obs_val) else []


def reference_end_facts(fabric: Fabric, obs: Observation) -> dict[str, EndFacts]:
    """end_facts before: the configuration's EndFacts, then a copy per LLDP neighbour and per MAC source."""
    facts = {name: EndFacts(*config) for name, config in _config(fabric, obs).items()}
    for name, n in (obs.oper.lldp.items() if obs.oper is not None else ()):
        if name in facts:
            facts[name] = replace(facts[name], neighbor=(n.device, n.port))
    if obs.oper is not None:
        for name, port in obs.oper.ports.items():
            if name in facts and port.mac:
                facts[name] = replace(facts[name], macs=(port.mac,))
        for name, learned in obs.oper.neighbor_macs.items():
            if name in facts and learned:
                facts[name] = replace(facts[name], macs=tuple(learned))
    return facts


def _config(fabric: Fabric, obs: Observation) -> dict[str, tuple[Any, ...]]:
    if isinstance(obs.observed, ObservedHost):
        return {netdev: (nic.pfc_priorities, nic.mtu, tuple(obs.intent.nics[netdev].pfc_priorities),
                         obs.intent.nics[netdev].mtu)
                for netdev, nic in (obs.observed.nics or {}).items() if netdev in obs.intent.nics}  # type: ignore[union-attr]
    if not isinstance(obs.observed, ObservedSwitch):
        return {}
    host_ports = {(link.a if link.a.device == obs.device else link.b).port
                  for link in fabric.links_of(obs.device) if link.tier == "host-leaf"}
    return {name: (port.pfc_priorities, port.mtu) for name, port in (obs.observed.ports or {}).items()
            if name in host_ports}


def lab_two_su() -> Fabric:
    """bench/common.py's lab fabric at 2 SUs: SONiC leaves, Cumulus leaves in SU 2, EOS spines and cores."""
    return expand(FabricIntent.model_validate({
        "name": "lab-2su", "node": {"rails": 8}, "scalable_units": {"count": 2, "nodes_per_su": 4},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"},
        "qos": {"pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100}},
        "overrides": {"groups": {"su2": {"platform": "cumulus"}}},
    }))


@cache
def observations() -> list[tuple[Fabric, Observation]]:
    """Every device of both fabrics read in-process from its lab personality, configured and bare, parsed."""
    out = []
    for fabric in (lab_mini(), lab_two_su()):
        for configured in (True, False):
            for spec in lab_specs(fabric, configured=configured):
                personality = get_personality(spec.platform)
                state = personality.state_factory(spec.name, spec.platform, spec.extra)
                conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin",
                                                                                          pty=True)))
                obs = plan_observation(fabric, spec.name)
                obs.outputs = get_driver(spec.platform).collect(conn, plan(fabric, spec.name))
                parse_observation(obs)
                assert obs.error is None and obs.observed is not None, spec.name
                out.append((fabric, obs))
    return out


def test_every_lab_device_same_drift_and_end_facts() -> None:
    drifts = 0
    for fabric, obs in observations():
        assert obs.observed is not None
        got = compare(obs.expected, obs.observed)
        assert got == reference_compare(obs.expected, obs.observed), obs.device
        assert compare(obs.expected, obs.observed, skip=("ports", "qos")) == reference_compare(
            obs.expected, obs.observed, skip=("ports", "qos")), obs.device
        assert end_facts(fabric, obs) == reference_end_facts(fabric, obs), obs.device
        drifts += len(got)
    assert drifts > 100  # the bare devices drift: the walk's drift paths are taken too


# ----------------------------------------------------------------------------------------- Hypothesis changes


def _changed(value: Any, how: int) -> Any:
    """A different value of about the same shape."""
    if isinstance(value, bool) or value is None:
        return [True, False, None, 0][how % 4]
    if isinstance(value, int):
        return value + 1 + how % 3
    if isinstance(value, str):
        return value + "x" if how % 2 else ""
    if isinstance(value, list):
        return value[:-1] if value and how % 2 else [*value, value[0] if value else 1]
    if isinstance(value, dict):
        if value and how % 2:
            return dict(list(value.items())[1:])  # an entry dropped
        return {**value, "added": next(iter(value.values()), 1)}  # an entry added
    return None


def _edit(model: BaseModel, draw: Callable[[st.SearchStrategy[Any]], Any], depth: int = 0) -> BaseModel:
    """``model`` with one change somewhere below it; every untouched value (and shared sub-model) kept as is."""
    names = sorted(model.model_fields_set)
    if not names:
        return model
    name = draw(st.sampled_from(names))
    value = getattr(model, name)
    action = draw(st.integers(0, 5))
    values = dict(model.__dict__)
    fields_set = set(model.model_fields_set)
    if action == 0:
        fields_set.discard(name)  # not observable
    elif isinstance(value, BaseModel) and action < 4 and depth < 4:
        values[name] = _edit(value, draw, depth + 1)
    elif isinstance(value, dict) and value and action < 4 and depth < 4:
        key = draw(st.sampled_from(list(value)))
        entry = value[key]
        new = _edit(entry, draw, depth + 1) if isinstance(entry, BaseModel) else _changed(entry, action)
        values[name] = {**value, key: new}
    else:
        values[name] = _changed(value, action)
    return type(model).model_construct(_fields_set=fields_set, **values)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # a changed value may not fit its field
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_changed_observations_same_drift(data: st.DataObject) -> None:
    _, obs = data.draw(st.sampled_from(observations()))
    assert obs.observed is not None
    observed, expected = obs.observed, obs.expected
    for _ in range(data.draw(st.integers(1, 4))):
        observed = _edit(observed, data.draw)
    if data.draw(st.booleans()):
        expected = _edit(expected, data.draw)
    assert compare(expected, observed) == reference_compare(expected, observed)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_changed_operational_state_same_end_facts(data: st.DataObject) -> None:
    fabric, obs = data.draw(st.sampled_from(observations()))
    oper = obs.oper
    if oper is not None and data.draw(st.booleans()):
        keep = data.draw(st.integers(0, 3))
        names = list(oper.ports)
        oper = oper.model_copy(update={  # some LLDP neighbours gone, MACs and neighbour tables gone or added
            "lldp": dict(list(oper.lldp.items())[::keep + 1]),
            "ports": {n: p.model_copy(update={"mac": None if i % (keep + 2) == 0 else f"02:00:00:00:00:{i % 99:02}"})
                      for i, (n, p) in enumerate(oper.ports.items())},
            "neighbor_macs": {**{n: ["02:00:00:00:01:01"] for n in names[keep::2]},
                              **{n: ([] if i % 2 else m) for i, (n, m) in enumerate(oper.neighbor_macs.items())}},
        })
    changed = replace(obs, oper=None if data.draw(st.integers(0, 5)) == 0 else oper)
    assert end_facts(fabric, changed) == reference_end_facts(fabric, changed)


@pytest.mark.parametrize("skip", [(), ("qos",), ("ports", "bgp", "breakouts")])
def test_skip_leaves_out_top_level_fields(skip: tuple[str, ...]) -> None:
    _, obs = next((f, o) for f, o in observations() if isinstance(o.observed, ObservedSwitch))
    assert obs.observed is not None
    broken = obs.observed.model_copy(update={"qos": None, "ports": {}, "bgp": None})
    got = compare(obs.expected, broken, skip=skip)
    assert got == reference_compare(obs.expected, broken, skip=skip)
    assert not any(d.path.split("[")[0].split(".")[0] in skip for d in got) and got
