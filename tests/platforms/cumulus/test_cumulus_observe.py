"""Cumulus observe(outputs) -> ObservedSwitch: real captured outputs into the model, per-port drift named per
port, and the round trip configured lab switch -> collect -> observe -> compare(expected) over Netmiko."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from labtools import free_endpoint_base, lab_mini, netmiko_connect

from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedEcn, ObservedQueue, ObservedSwitch
from roceops.lab.devices.cumulus.device import CumulusState, run_line
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.cumulus import DRIVER, parsers, parsers_ports
from roceops.platforms.cumulus import commands as c
from roceops.platforms.cumulus import observe as observe_module
from roceops.platforms.cumulus.driver import collect_commands
from roceops.platforms.cumulus.observe import observe

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO.parent / "shared" / "fixtures" / "cumulus"
LEAVES = ("leaf-su2-r1", "leaf-su2-r2")

# No `nv config show -o commands` or `nv show interface -o json` is captured: these two are written here in
# the shapes the parsers document; every QoS output below is a real capture.
CONFIG_TEXT = """\
nv set system hostname leaf-a
nv set interface lo ip address 10.0.0.9/32
nv set interface swp1 link breakout 2x
nv set interface swp1s0 link mtu 9216
nv set interface swp1s0 link speed 400G
nv set interface swp1s0 link state up
nv set interface swp1s0 description 'gpu001:eth0'
nv set interface swp1s0 ip address 10.128.0.0/31
nv set interface swp1s0 qos pfc-watchdog state enable
nv set qos egress-scheduler default-global traffic-class 0 mode dwrr
nv set qos egress-scheduler default-global traffic-class 3 mode dwrr
nv set qos egress-scheduler default-global traffic-class 6 mode strict
nv set qos congestion-control default-global traffic-class 4 ecn enable
nv set qos pfc-watchdog polling-interval 200
nv set qos pfc-watchdog robustness 3
nv set router bgp autonomous-system 4200000009
nv set router bgp router-id 10.0.0.9
nv set vrf default router bgp neighbor 10.128.0.1 remote-as 4200100000
nv set vrf default router bgp neighbor 10.1.0.16 remote-as external
nv set vrf default router bgp address-family ipv4-unicast network 10.128.0.0/31
nv set vrf default router bgp address-family ipv4-unicast network 10.0.0.9/32
"""
INTERFACES = {
    "eth0": {"type": "eth", "link": {"admin-status": "up", "oper-status": "up", "mtu": 1500}},
    "lo": {"type": "loopback", "link": {"admin-status": "up", "oper-status": "up", "mtu": 65536}},
    "swp1s0": {"type": "swp", "link": {"admin-status": "up", "oper-status": "up", "speed": "400G", "mtu": 9216}},
    "swp1s1": {"type": "swp", "link": {"admin-status": "down", "oper-status": "down", "speed": "400G",
                                       "mtu": 1500}},
}


def fixture(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text()


def captured_outputs() -> dict[str, str]:
    """Real captures for the QoS shows and swp1s0's per-port shows; swp1s1 was not read port by port."""
    return {
        c.CONFIG: CONFIG_TEXT, c.INTERFACES_JSON: json.dumps(INTERFACES),
        c.QOS_ROCE: fixture("nv_show_qos_roce"), c.QOS_PFC: fixture("nv_show_qos_pfc_default_global"),
        c.QOS_ECN: fixture("nv_show_qos_congestion_control_default_global"),
        c.QOS_EGRESS_MAP: fixture("nv_show_qos_egress_queue_mapping_default_global"),
        c.port_cmd("swp1s0", "qos roce status"): fixture("nv_show_interface_qos_roce_status"),
        c.port_cmd("swp1s0", "qos pfc-watchdog"): fixture("nv_show_interface_qos_pfc_watchdog"),
    }


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures/cumulus is not beside the checkout")
def test_captured_outputs_observed_as_an_observed_switch() -> None:
    o = observe(captured_outputs())
    assert isinstance(o, ObservedSwitch)
    assert (o.name, o.loopback) == ("leaf-a", "10.0.0.9/32")
    qos = o.qos
    assert qos is not None
    assert qos.trust == "pcp,dscp" and qos.dscp_to_tc == {d: d // 8 for d in range(64)}
    assert qos.tc_to_queue == {0: 0, 1: 1, 2: 7, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert qos.lossless_priorities == [0]  # the captured default-global PFC profile is on switch priority 0
    # the scheduled traffic classes as the ETS table shows them; TC 4 is marked but no priority reaches it
    assert qos.queues == {0: ObservedQueue(scheduler="dwrr", weight=50, lossless=True, ecn=None),
                          3: ObservedQueue(scheduler="dwrr", weight=50, lossless=False, ecn=None),
                          6: ObservedQueue(scheduler="strict", weight=None, lossless=False, ecn=None)}
    assert qos.pfc_watchdog is not None
    assert (qos.pfc_watchdog.enabled, qos.pfc_watchdog.poll_ms, qos.pfc_watchdog.detect_ms) == (True, 200, 600)
    assert "restore_ms" not in qos.pfc_watchdog.model_fields_set  # NVUE has no restore timer
    assert o.ports is not None and sorted(o.ports) == ["swp1s0", "swp1s1"]  # eth0 and lo are not switch ports
    swp1s0, swp1s1 = o.ports["swp1s0"], o.ports["swp1s1"]
    assert (swp1s0.speed, swp1s0.mtu, swp1s0.admin_up, swp1s0.description, swp1s0.address) == (
        400000, 9216, True, "gpu001:eth0", "10.128.0.0/31")
    assert (swp1s0.pfc_priorities, swp1s0.pfc_watchdog) == ([3], True)
    assert (swp1s1.mtu, swp1s1.admin_up, swp1s1.description) == (1500, False, "")  # from the JSON
    assert not {"pfc_priorities", "pfc_watchdog"} & swp1s1.model_fields_set  # not read: not compared
    assert "trust" not in swp1s0.model_fields_set  # NVUE QoS is global: no per-port copies
    assert o.breakouts == {"swp1": 2}
    bgp = o.bgp
    assert bgp is not None and (bgp.asn, bgp.router_id) == (4200000009, "10.0.0.9")
    assert [(n.ip, n.remote_asn, n.port) for n in bgp.neighbors or []] == [
        ("10.1.0.16", None, ""), ("10.128.0.1", 4200100000, "swp1s0")]  # address order; `external` is no ASN
    assert bgp.networks == ["10.0.0.9/32", "10.128.0.0/31"]
    assert o.load_balancing is not None and (o.load_balancing.mode, o.load_balancing.hash_fields) == ("ecmp", None)


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures/cumulus is not beside the checkout")
def test_captured_ecn_of_a_scheduled_traffic_class() -> None:
    outputs = captured_outputs()
    roce = fixture("nv_show_qos_roce").replace("    4  4            0 ", "    4  4            4 ")
    outputs[c.QOS_ROCE] = roce  # switch priority 4 now reaches TC 4, which the captured profile marks
    o = observe(outputs)
    assert o.qos is not None and o.qos.queues is not None
    assert o.qos.queues[4] == ObservedQueue(scheduler="dwrr", weight=50, lossless=False,
                                            ecn=ObservedEcn(min_bytes=40000, max_bytes=200000, probability=100))


# --------------------------------------------------------------------------- compare level


@cache
def intent(name: str = LEAVES[0]) -> SwitchIntent:
    i = plan(lab_mini(), name)
    assert isinstance(i, SwitchIntent)
    return i


@cache
def configured_outputs(name: str = LEAVES[0]) -> dict[str, str]:
    spec = lab_specs(lab_mini(), [name], configured=True)[0]
    state = CumulusState(spec.name, spec.platform, spec.extra)
    return {cmd: run_line(state, cmd, "cumulus")[0] for cmd in collect_commands(intent(name))}


def test_a_departure_on_two_ports_is_two_drifts_each_naming_its_port() -> None:
    outputs = dict(configured_outputs())
    for port in ("swp1s0", "swp2s1"):
        line = f"nv set interface {port} link mtu 9216"
        assert line in outputs[c.CONFIG]
        outputs[c.CONFIG] = outputs[c.CONFIG].replace(line, f"nv set interface {port} link mtu 1500")
    for port in ("swp3s0", "swp4s1"):
        key = c.port_cmd(port, "qos pfc-watchdog")
        outputs[key] = outputs[key].replace("enabled", "disabled")
    drift = compare(DRIVER.expected(intent()), DRIVER.observe(outputs))
    assert sorted((d.path, d.expected, d.observed) for d in drift) == [
        ("ports[swp1s0].mtu", 9216, 1500), ("ports[swp2s1].mtu", 9216, 1500),
        ("ports[swp3s0].pfc_watchdog", True, False), ("ports[swp4s1].pfc_watchdog", True, False)]


def test_expected_is_in_the_order_observe_reports() -> None:
    """BGP lists come back in address order whatever order the intent lists them in."""
    i = intent()
    shuffled = i.model_copy(update={"bgp": i.bgp.model_copy(update={
        "neighbors": list(reversed(i.bgp.neighbors)), "networks": [*reversed(i.bgp.networks), i.bgp.networks[0]]})})
    assert DRIVER.expected(shuffled) == DRIVER.expected(i)
    assert compare(DRIVER.expected(shuffled), DRIVER.observe(configured_outputs())) == []


def test_parsers_and_observe_never_see_the_intent() -> None:
    for module in (parsers, parsers_ports, observe_module, c):
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ != module.__name__:
                continue
            params = inspect.signature(fn).parameters
            assert not any(p == "intent" or p.startswith(("want", "expected")) for p in params), (module, name)
    assert list(inspect.signature(DRIVER.observe).parameters) == ["outputs"]


# --------------------------------------------------------------------------- round trip over Netmiko


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    specs = lab_specs(lab_mini(), list(LEAVES), configured=True)  # what a deploy of the render leaves
    base, port = free_endpoint_base()
    thread = LabThread(specs, tmp_path_factory.mktemp("cumulus-observe") / "state", port=port, base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


@pytest.mark.lab
@pytest.mark.parametrize("name", LEAVES)
def test_configured_switch_collects_and_observes_as_expected(lab: LabThread, name: str) -> None:
    conn = netmiko_connect(lab, name, "cumulus")
    try:
        observed = DRIVER.observe(DRIVER.collect(conn, intent(name)))
        some = sorted(intent(name).ports)[:2]
        narrowed = DRIVER.observe(DRIVER.collect(conn, intent(name), some))
    finally:
        conn.disconnect()
    assert compare(DRIVER.expected(intent(name)), observed) == []
    assert observed.ports is not None and set(intent(name).ports) <= set(observed.ports)
    assert observed.name == name and observed.breakouts == intent(name).breakouts
    # per-port reads of two ports only: the others' PFC state is not observed, and nothing departs
    assert compare(DRIVER.expected(intent(name)), narrowed) == []
    assert narrowed.ports is not None
    assert [n for n, p in narrowed.ports.items() if "pfc_priorities" in p.model_fields_set] == some
