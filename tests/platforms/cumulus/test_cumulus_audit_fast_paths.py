"""The Cumulus ``expected`` (one validation of the intent's data with NVUE's changes made in it) gives what the
previous code gave (the intent with each change copied in, ``as_observed``, then a copy of each port): equal value,
the same fields set at every level, for every Cumulus switch of lab-mini, of a 2-SU lab fabric (bench/common.py
``lab_fabric``) and of the example fabrics, with the watchdog off and with adaptive routing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, example_dict
from labtools import lab_mini
from pydantic import BaseModel

from roceops.device.intent import Intent, SwitchIntent
from roceops.device.observed import ObservedSwitch, as_observed
from roceops.lab.fabric_specs import lab_specs
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.cumulus.expected import expected
from roceops.platforms.cumulus.observe import address_key
from roceops.platforms.cumulus.render import adaptive_routing_ports, global_pfc_priorities, robustness
from roceops.topology.expand import expand

ROOT = Path(__file__).resolve().parents[3]


def expected_before(intent: Intent) -> ObservedSwitch:
    """``expected`` as it was (main at c2d29b6), verbatim."""
    assert isinstance(intent, SwitchIntent)
    qos = intent.qos
    pfc = global_pfc_priorities(intent)
    wd = qos.pfc_watchdog
    lossless_q = {qos.tc_to_queue.get(sp, sp) for sp in pfc}
    queues = {q: queue.model_copy(update={"lossless": q in lossless_q}) for q, queue in qos.queues.items()}
    new_wd = wd.model_copy(update={"detect_ms": robustness(wd.detect_ms, wd.poll_ms) * wd.poll_ms}) if wd.enabled \
        else wd
    new_qos = qos.model_copy(update={"lossless_priorities": pfc, "queues": queues, "pfc_watchdog": new_wd})
    bgp = intent.bgp.model_copy(update={
        "neighbors": sorted(intent.bgp.neighbors, key=lambda n: address_key(n.ip)),
        "networks": sorted(set(intent.bgp.networks), key=address_key)})
    shown = as_observed(intent.model_copy(update={"qos": new_qos, "bgp": bgp}), ObservedSwitch)
    assert shown.ports is not None
    ar = set(adaptive_routing_ports(intent))
    ports = {name: port.model_copy(update={
        "pfc_priorities": pfc, "adaptive_routing": name in ar,
        "pfc_watchdog": wd.enabled and intent.ports[name].pfc_watchdog and bool(intent.ports[name].pfc_priorities)})
        for name, port in shown.ports.items()}
    return shown.model_copy(update={"ports": ports})


def _fields(value: Any) -> Any:
    """Every model's fields set and every value's type, all the way down."""
    if isinstance(value, BaseModel):
        return (type(value), sorted(value.model_fields_set),
                {f: _fields(getattr(value, f)) for f in type(value).model_fields})
    if isinstance(value, dict):
        return {(type(k), k): _fields(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fields(v) for v in value]
    return type(value), value


def cumulus_intents() -> Iterator[SwitchIntent]:
    sys.path.insert(0, str(ROOT / "bench"))
    from common import lab_fabric  # the benches' lab fabric

    fabrics = [lab_mini(), expand(lab_fabric(2))]
    fabrics += [expand(FabricIntent.model_validate(example_dict(name))) for name in EXAMPLES]
    for fabric in fabrics:
        for spec in lab_specs(fabric, configured=True):
            if spec.platform == "cumulus":
                intent = plan(fabric, spec.name)
                assert isinstance(intent, SwitchIntent)
                yield intent


def _variants(intent: SwitchIntent) -> Iterator[SwitchIntent]:
    yield intent
    qos = intent.qos
    yield intent.model_copy(update={"qos": qos.model_copy(update={
        "pfc_watchdog": qos.pfc_watchdog.model_copy(update={"enabled": not qos.pfc_watchdog.enabled})})})
    yield intent.model_copy(update={"load_balancing": intent.load_balancing.model_copy(update={"mode": "adaptive"})})
    bgp = intent.bgp
    yield intent.model_copy(update={"bgp": bgp.model_copy(update={"neighbors": list(reversed(bgp.neighbors)),
                                                                   "networks": [*bgp.networks, *bgp.networks]})})


def test_expected_equals_the_previous_path_for_every_cumulus_switch() -> None:
    seen = 0
    for intent in cumulus_intents():
        for variant in _variants(intent):
            after, before = expected(variant), expected_before(variant)
            assert after == before
            assert _fields(after) == _fields(before)
        seen += 1
    assert seen >= 8
