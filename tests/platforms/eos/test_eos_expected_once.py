"""The EOS driver's ``expected`` validates the intent's data once, with EOS's changes made in it; the result equals
the intent as an ObservedSwitch (``as_observed``) with a copy of each changed model (value, type, fields set)."""

from __future__ import annotations

import pytest
from conftest import example_dict

from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedSwitch, as_observed
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.eos.expected import expected, expected_queues
from roceops.platforms.eos.parsers import ACTION_OF_WATCHDOG, bgp_order
from roceops.platforms.eos.render import TRUST, WATCHDOG_ACTIONS, eos_mtu
from roceops.topology.expand import expand


def copied_expected(intent: SwitchIntent) -> ObservedSwitch:
    """``expected`` as it was built before: the whole intent validated, then each changed model copied."""
    obs = as_observed(intent, ObservedSwitch)
    assert obs.qos is not None and obs.qos.pfc_watchdog is not None and obs.bgp is not None
    wd = intent.qos.pfc_watchdog
    queues = expected_queues(intent.qos)
    port_qos = {"trust": TRUST[intent.qos.trust], "queues": queues}
    ports = {name: port.model_copy(update={
        "mtu": eos_mtu(intent.ports[name].mtu), **port_qos,
        "pfc_watchdog": port.pfc_watchdog and wd.enabled and bool(port.pfc_priorities)})
        for name, port in (obs.ports or {}).items()}
    action = ACTION_OF_WATCHDOG[WATCHDOG_ACTIONS[wd.action]]
    qos = obs.qos.model_copy(update={"queues": {qid: queues[qid] for qid in intent.qos.queues},
                                     "pfc_watchdog": obs.qos.pfc_watchdog.model_copy(update={"action": action})})
    neighbors, networks = bgp_order(obs.bgp.neighbors or [], obs.bgp.networks or [])
    bgp = obs.bgp.model_copy(update={"neighbors": neighbors, "networks": networks})
    return obs.model_copy(update={"qos": qos, "ports": ports, "bgp": bgp})


def eos_switches(example: str) -> list[SwitchIntent]:
    fabric = expand(FabricIntent.model_validate(example_dict(example)))
    return [i for d in fabric.devices() if d.platform == "eos" and isinstance(i := plan(fabric, d.name), SwitchIntent)]


def same(a: object, b: object) -> None:
    assert a == b  # pydantic: same class, values and fields set, all the way down
    assert repr(a) == repr(b)  # and the same types of values (1 == True, 9214 == 9214.0)


@pytest.mark.parametrize("example", ["fabric", "lab-mini"])  # the examples with EOS switches
def test_every_eos_switch_of_the_examples(example: str) -> None:
    switches = eos_switches(example)
    assert switches
    for intent in switches:
        same(expected(intent), copied_expected(intent))


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("action", sorted(WATCHDOG_ACTIONS))
def test_watchdog_settings_and_unsorted_bgp(enabled: bool, action: str) -> None:
    intent = eos_switches("lab-mini")[0]
    wd = intent.qos.pfc_watchdog.model_copy(update={"enabled": enabled, "action": action})
    bgp = intent.bgp.model_copy(update={"neighbors": intent.bgp.neighbors[::-1],
                                        "networks": [*intent.bgp.networks[::-1], *intent.bgp.networks]})
    odd = intent.model_copy(update={"qos": intent.qos.model_copy(update={"pfc_watchdog": wd}), "bgp": bgp})
    same(expected(odd), copied_expected(odd))
