"""The SONiC driver's ``expected`` validates the intent's data once, with CONFIG_DB's changes made in it, and gives
the ports shared copies of the device-wide maps, queues and watchdog: the result equals the previous path (each
changed intent model copied, the whole validated, each port copied with its copies) in values, types, fields set
and order, on every SONiC switch of the examples and of a 2-SU lab fabric, under both buffer models; the drift
found is the same, and the shared instances are unchanged after the comparison."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
from conftest import EXAMPLES, example_dict
from pydantic import BaseModel

from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent, SwitchPort, SwitchQos
from roceops.device.observed import ObservedPfcWatchdog, ObservedQueue, ObservedSwitch, ObservedSwitchPort, as_observed
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.sonic.expected import expected_switch
from roceops.platforms.sonic.render import BufferModel, buffer_model_of
from roceops.topology.expand import expand
from roceops.util.sorting import ip_sort_key, prefix_key

ROOT = Path(__file__).resolve().parents[3]
_Model = TypeVar("_Model", bound=BaseModel)


# ---- the previous code (4b5d62a roceops/platforms/sonic/expected.py), kept as the reference


def previous_expected(intent: SwitchIntent, buffer_model: BufferModel | None = None) -> ObservedSwitch:
    shown = _as_config_db(intent, buffer_model)
    observed = as_observed(shown, ObservedSwitch)
    return observed.model_copy(update={"ports": _with_port_copies(shown, observed)})


def _as_config_db(intent: SwitchIntent, buffer_model: BufferModel | None = None) -> SwitchIntent:
    qos = intent.qos
    wd_on = qos.pfc_watchdog.enabled
    dynamic = buffer_model_of(intent, buffer_model) == "dynamic"
    headroom = {h.profile for p in intent.ports.values() for h in p.headroom.values()}
    ports = {name: _updated(p, {"pfc_watchdog": bool(p.pfc_watchdog and p.pfc_priorities and wd_on),
                                "pfc_priorities": sorted(p.pfc_priorities), "headroom": {} if dynamic else p.headroom})
             for name, p in intent.ports.items()}
    queues = {q: _updated(v, {"weight": v.weight if v.scheduler == "dwrr" else None}) for q, v in qos.queues.items()}
    profiles = sorted((b for b in qos.profiles if not (dynamic and b.name in headroom)), key=lambda b: b.name)
    new_qos = qos.model_copy(update={"pools": sorted(qos.pools, key=lambda b: b.name), "profiles": profiles,
                                     "queues": queues, "lossless_priorities": sorted(qos.lossless_priorities)})
    neighbors = sorted((_updated(n, {"description": n.description or n.ip}) for n in intent.bgp.neighbors),
                       key=lambda n: ip_sort_key(n.ip))
    networks = sorted(set(intent.bgp.networks), key=prefix_key)
    return intent.model_copy(update={"qos": new_qos, "ports": ports,
                                     "bgp": intent.bgp.model_copy(update={"neighbors": neighbors,
                                                                          "networks": networks})})


def _with_port_copies(shown: SwitchIntent, observed: ObservedSwitch) -> dict[str, ObservedSwitchPort]:
    qos = observed.qos
    assert qos is not None and observed.ports is not None
    maps: dict[str, Any] = {"trust": qos.trust, "dscp_to_tc": qos.dscp_to_tc, "tc_to_queue": qos.tc_to_queue,
                            "tc_to_pg": qos.tc_to_pg, "pfc_priority_to_queue": qos.pfc_priority_to_queue}
    wd = shown.qos.pfc_watchdog
    watchdog = ObservedPfcWatchdog(detect_ms=wd.detect_ms, restore_ms=wd.restore_ms, action=wd.action)
    queues_for: dict[frozenset[int], dict[int, ObservedQueue]] = {}
    out: dict[str, ObservedSwitchPort] = {}
    for name, port in observed.ports.items():
        lossless = _lossless_queues(shown.qos, shown.ports[name])
        queues = queues_for.get(lossless)
        if queues is None:
            queues = queues_for[lossless] = {qid: q.model_copy(update={"lossless": qid in lossless})
                                             for qid, q in (qos.queues or {}).items()}
        update = {**maps, "queues": queues}
        if port.pfc_watchdog:
            update["watchdog"] = watchdog
        out[name] = port.model_copy(update=update)
    return out


def _lossless_queues(qos: SwitchQos, port: SwitchPort) -> frozenset[int]:
    to_queue = qos.pfc_priority_to_queue
    return frozenset(to_queue[p] for p in port.pfc_priorities if p in to_queue)


def _updated(model: _Model, update: dict[str, Any]) -> _Model:
    fields = model.model_fields_set
    for key, value in update.items():
        old = getattr(model, key)
        if key not in fields or type(old) is not type(value) or old != value:
            return model.model_copy(update=update)
    return model


# ---- the switches


@cache
def sonic_switches() -> list[SwitchIntent]:
    fabrics = [expand(FabricIntent.model_validate(example_dict(name))) for name in sorted(EXAMPLES)]
    sys.path.insert(0, str(ROOT / "bench"))
    from common import lab_fabric  # the benches' lab fabric

    fabrics.append(expand(lab_fabric(2)))
    return [i for f in fabrics for d in f.devices()
            if d.platform == "sonic" and isinstance(i := plan(f, d.name), SwitchIntent)]


def same(a: BaseModel, b: BaseModel) -> None:
    assert a == b  # pydantic: same class, values and fields set, all the way down
    assert repr(a) == repr(b)  # and the same types of values and order of fields and entries
    assert a.model_dump_json() == b.model_dump_json()


@pytest.mark.parametrize("buffer_model", [None, "static", "dynamic"])
def test_every_sonic_switch_as_before(buffer_model: BufferModel | None) -> None:
    switches = sonic_switches()
    assert len(switches) >= 16
    for intent in switches:
        new, old = expected_switch(intent, buffer_model), previous_expected(intent, buffer_model)
        same(new, old)
        for port, before in zip((new.ports or {}).values(), (old.ports or {}).values(), strict=True):
            assert port.model_fields_set == before.model_fields_set


def test_unsorted_intent_and_watchdog_off() -> None:
    intent = sonic_switches()[-1]
    qos = intent.qos.model_copy(update={
        "lossless_priorities": sorted(intent.qos.lossless_priorities, reverse=True),
        "pools": list(reversed(intent.qos.pools)), "profiles": list(reversed(intent.qos.profiles)),
        "pfc_watchdog": intent.qos.pfc_watchdog.model_copy(update={"enabled": False})})
    bgp = intent.bgp.model_copy(update={"neighbors": list(reversed(intent.bgp.neighbors)),
                                        "networks": [*reversed(intent.bgp.networks), *intent.bgp.networks]})
    ports = {n: p.model_copy(update={"pfc_priorities": [4, 3], "description": None if i % 2 else p.description})
             for i, (n, p) in enumerate(intent.ports.items())}
    changed = intent.model_copy(update={"qos": qos, "bgp": bgp, "ports": ports})
    for buffer_model in ("static", "dynamic"):
        same(expected_switch(changed, buffer_model), previous_expected(changed, buffer_model))  # type: ignore[arg-type]


def test_same_drift_and_shared_instances_unchanged() -> None:
    switches = sonic_switches()[-4:]
    shown = [expected_switch(i) for i in switches]
    before = [repr(e) for e in shown]
    shared = [id(v) for e in shown for p in (e.ports or {}).values() for v in (p.dscp_to_tc, p.queues, p.watchdog)]
    for i, (intent, new) in enumerate(zip(switches, shown, strict=True)):
        other = previous_expected(switches[i - 1])  # another switch's settings: drift on every port
        assert compare(new, other)
        assert compare(new, other) == compare(previous_expected(intent), other)
        assert compare(new, previous_expected(intent)) == []
    assert [repr(e) for e in shown] == before
    assert [id(v) for e in shown for p in (e.ports or {}).values() for v in (p.dscp_to_tc, p.queues, p.watchdog)] \
        == shared
