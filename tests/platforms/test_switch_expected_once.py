"""The switches' ``expected`` (EOS, SONiC, Cumulus) as this round builds it equals the previous code's (4b5d62a,
kept here as the reference: values, types, fields set at every level, order) on every switch of the examples and
of a 2-SU lab fabric; the objects expected's ports share (EOS's queue maps and default queue, SONiC's maps, queues
and watchdog) are unchanged after a full audit step (plan, collect from the lab, parse, checks) of several
switches; Cumulus's faster address key gives ``address_key``'s key."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, example_dict
from hypothesis import given
from hypothesis import strategies as st

import roceops.audit.device as dev
from roceops.audit.checks import device_findings
from roceops.device.compare import compare
from roceops.device.intent import Intent, SwitchIntent
from roceops.device.observed import Observed, ObservedSwitch
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.inprocess import InProcessConnection
from roceops.lab.personality import SessionInfo, get_personality
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.cumulus.expected import fast_address_key
from roceops.platforms.cumulus.observe import address_key
from roceops.platforms.cumulus.render import adaptive_routing_ports, global_pfc_priorities, robustness
from roceops.platforms.eos import parsers as eos_parsers
from roceops.platforms.eos.expected import expected_queues
from roceops.platforms.eos.parsers import ACTION_OF_WATCHDOG, neighbor_sort_key, network_order
from roceops.platforms.eos.render import TRUST, WATCHDOG_ACTIONS, eos_mtu
from roceops.topology.expand import Fabric, expand

ROOT = Path(__file__).resolve().parents[2]


# ---- the previous code (4b5d62a roceops/platforms/{eos,cumulus}/expected.py), kept as the reference


def previous_eos(intent: SwitchIntent) -> ObservedSwitch:
    data = intent.model_dump()
    qos = intent.qos
    wd = qos.pfc_watchdog
    queues = expected_queues(qos)
    trust = TRUST[qos.trust]
    for port in data["ports"].values():
        port.update(mtu=eos_mtu(port["mtu"]), trust=trust, queues=queues,
                    pfc_watchdog=bool(port["pfc_watchdog"] and wd.enabled and port["pfc_priorities"]))
    shown_qos = data["qos"]
    shown_qos["queues"] = {qid: queues[qid] for qid in qos.queues}
    shown_qos["pfc_watchdog"]["action"] = ACTION_OF_WATCHDOG[WATCHDOG_ACTIONS[wd.action]]
    bgp = data["bgp"]
    bgp["neighbors"] = sorted(bgp["neighbors"], key=lambda n: neighbor_sort_key(n["ip"]))
    bgp["networks"] = network_order(bgp["networks"])
    shown = ObservedSwitch.model_validate(data)
    for port in (shown.ports or {}).values():
        port.__dict__["queues"] = queues
    return shown


def previous_cumulus(intent: SwitchIntent) -> ObservedSwitch:
    qos = intent.qos
    pfc = global_pfc_priorities(intent)
    wd = qos.pfc_watchdog
    lossless_q = {qos.tc_to_queue.get(sp, sp) for sp in pfc}
    data = intent.model_dump()
    shown_qos = data["qos"]
    shown_qos["lossless_priorities"] = pfc
    for q, queue in shown_qos["queues"].items():
        queue["lossless"] = q in lossless_q
    if wd.enabled:
        shown_qos["pfc_watchdog"]["detect_ms"] = robustness(wd.detect_ms, wd.poll_ms) * wd.poll_ms
    bgp = data["bgp"]
    bgp["neighbors"].sort(key=lambda n: address_key(n["ip"]))
    bgp["networks"] = sorted(set(bgp["networks"]), key=address_key)
    ar = set(adaptive_routing_ports(intent))
    for name, port in data["ports"].items():
        own = intent.ports[name]
        port["pfc_priorities"] = pfc
        port["adaptive_routing"] = name in ar
        port["pfc_watchdog"] = wd.enabled and own.pfc_watchdog and bool(own.pfc_priorities)
    return ObservedSwitch.model_validate(data)


# ---- the switches


@cache
def two_su() -> Fabric:
    sys.path.insert(0, str(ROOT / "bench"))
    from common import lab_fabric  # the benches' lab fabric

    return expand(lab_fabric(2))


@cache
def switches(platform: str) -> list[SwitchIntent]:
    fabrics = [expand(FabricIntent.model_validate(example_dict(name))) for name in sorted(EXAMPLES)]
    fabrics.append(two_su())
    return [i for f in fabrics for d in f.devices()
            if d.platform == platform and isinstance(i := plan(f, d.name), SwitchIntent)]


def same(a: Observed, b: Observed) -> None:
    assert isinstance(a, ObservedSwitch) and isinstance(b, ObservedSwitch)
    assert a == b  # pydantic: same class, values and fields set, all the way down
    assert repr(a) == repr(b)  # and the same types of values and order of fields and entries
    for port, before in zip((a.ports or {}).values(), (b.ports or {}).values(), strict=True):
        assert port.model_fields_set == before.model_fields_set
        assert list(port.__dict__) == list(before.__dict__)


@pytest.mark.parametrize(("platform", "previous"), [("eos", previous_eos), ("cumulus", previous_cumulus)])
def test_every_switch_as_before(platform: str, previous: Any) -> None:
    found = switches(platform)
    assert len(found) >= 8
    for intent in found:
        same(get_driver(platform).expected(intent), previous(intent))


@given(st.lists(st.one_of(
    st.ip_addresses(v=4).map(str), st.ip_addresses().map(str),
    st.tuples(st.ip_addresses(v=4), st.integers(0, 32)).map(lambda t: f"{t[0]}/{t[1]}"),
    st.sampled_from(["swp1", "1.2.3", "010.0.0.1", "10.0.0.256", "10.0.0.1/x", "0x1.2.3.4", "", "10.0.0.1/"]),
    st.text(max_size=12))))
def test_fast_address_key_is_address_key(texts: list[str]) -> None:
    assert [fast_address_key(t) for t in texts] == [address_key(t) for t in texts]


def _collected(fabric: Fabric, platform: str, count: int) -> dict[str, dict[str, str]]:
    """``count`` switches of ``platform`` of ``fabric``: their COLLECT outputs from their lab personality."""
    outs: dict[str, dict[str, str]] = {}
    for spec in lab_specs(fabric, configured=True):
        if spec.platform == platform and len(outs) < count:
            personality = get_personality(spec.platform)
            state = personality.state_factory(spec.name, spec.platform, spec.extra)
            conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
            intent: Intent = plan(fabric, spec.name)
            outs[spec.name] = get_driver(platform).collect(conn, intent)
    return outs


@pytest.mark.parametrize("platform", ["eos", "sonic", "cumulus"])
def test_shared_instances_unchanged_by_an_audit_step(platform: str) -> None:
    fabric = two_su()
    outs = _collected(fabric, platform, 3)
    observations = [dev.plan_observation(fabric, name) for name in outs]
    before = [repr(obs.expected) for obs in observations]
    default_queue = repr(eos_parsers.DEFAULT_QUEUE)
    for obs in observations:
        obs.outputs = dict(outs[obs.device])
        dev.parse_observation(obs)
        assert obs.error is None
        assert device_findings(fabric, obs, ()) == []  # the lab switch shows what it was configured with
    for obs, other in zip(observations, observations[1:] + observations[:1], strict=True):
        assert obs.observed is not None and other.observed is not None
        assert compare(obs.expected, other.observed)  # another switch's config: drift walked on every port
    assert [repr(obs.expected) for obs in observations] == before
    assert repr(eos_parsers.DEFAULT_QUEUE) == default_queue
    for obs in observations:  # and still equal to a fresh expected
        same(obs.expected, get_driver(platform).expected(plan(fabric, obs.device)))
