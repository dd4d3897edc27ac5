"""Cumulus NVUE rendering: command lists are free of duplicate/conflicting ``nv set`` paths, rendering is
deterministic, and every PFC/ECN/watchdog setting of the intent reads back from the command list."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import yaml

from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedSwitch
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.cumulus import PLATFORM
from roceops.platforms.cumulus.expected import expected
from roceops.platforms.cumulus.observe import observed_breakouts
from roceops.platforms.cumulus.parsers import config_paths
from roceops.platforms.cumulus.render import (
    cable_length,
    nv_set_commands,
    nv_set_conflicts,
    nv_set_paths,
    render_context,
    robustness,
)
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

REPO = Path(__file__).resolve().parents[3]
P = "default-global"


@cache
def fabric(example: str) -> Fabric:
    """lab-mini as written (SU2 leaves run Cumulus); fabric.yaml with its leaf tier switched to Cumulus."""
    data = yaml.safe_load((REPO / "inventory" / f"{example}.yaml").read_text())
    if example == "fabric":
        data["tiers"]["leaf"]["platform"] = "cumulus"
    return expand(FabricIntent.model_validate(data))


@cache
def intents(example: str) -> tuple[SwitchIntent, ...]:
    fab = fabric(example)
    return tuple(plan(fab, s.name) for s in fab.switches if s.platform == "cumulus")  # type: ignore[misc]


def intent_of(example: str, name: str) -> SwitchIntent:
    return next(i for i in intents(example) if i.name == name)


@cache
def commands(example: str, name: str) -> tuple[str, ...]:
    return tuple(render_device(intent_of(example, name)).files["nvue.commands"].splitlines())


def all_devices() -> list[tuple[str, str]]:
    return [(ex, i.name) for ex in ("lab-mini", "fabric") for i in intents(ex)]


def test_examples_have_cumulus_switches() -> None:
    assert [i.name for i in intents("lab-mini")] == ["leaf-su2-r1", "leaf-su2-r2"]
    assert len(intents("fabric")) == 16


def test_platform_is_registered() -> None:
    assert get_platform("cumulus") is PLATFORM
    assert PLATFORM.netmiko.device_type == "cumulus_linux"
    assert [o.filename for o in PLATFORM.outputs] == ["nvue.commands"]


@pytest.mark.parametrize(("example", "name"), all_devices())
def test_every_line_is_nv_set_and_there_are_no_conflicts(example: str, name: str) -> None:
    lines = list(commands(example, name))
    assert lines and all(line.startswith("nv set ") for line in lines)
    assert nv_set_conflicts(lines) == []
    assert len(nv_set_commands(lines)) == len(lines)


@pytest.mark.parametrize(("example", "name"), all_devices())
def test_deterministic(example: str, name: str) -> None:
    intent = intent_of(example, name)
    again = render_device(SwitchIntent.model_validate(intent.model_dump(mode="json"))).files["nvue.commands"]
    assert again.splitlines() == list(commands(example, name))
    assert again.endswith("\n") and not again.endswith("\n\n")


def test_rendering_does_not_depend_on_input_order() -> None:
    intent = intent_of("lab-mini", "leaf-su2-r1")
    shuffled = intent.model_copy(update={
        "ports": dict(reversed(list(intent.ports.items()))),
        "bgp": intent.bgp.model_copy(update={"neighbors": list(reversed(intent.bgp.neighbors))}),
    })
    assert render_device(shuffled).files == render_device(intent).files


# --- the conflict checker ---------------------------------------------------------------------


def test_conflicting_list_is_reported() -> None:
    lines = [*commands("lab-mini", "leaf-su2-r1"),
             "nv set qos pfc default-global cable-length 5",                       # scalar: 30 vs 5
             "nv set qos mapping default-global dscp 26 switch-priority 0",          # scalar: 3 vs 0
             "nv set qos congestion-control default-global traffic-class 0,3 ecn enable",  # list: 0 was disable
             "nv set interface swp1s0 link mtu 9216",                                # exact duplicate
             "nv set qos pfc default-global switch-priority 4"]                       # set member: fine
    assert nv_set_conflicts(lines) == [
        "conflict: 'qos congestion-control default-global traffic-class 0 ecn' set to 'disable', 'enable'",
        "conflict: 'qos mapping default-global dscp 26 switch-priority' set to '0', '3'",
        "conflict: 'qos pfc default-global cable-length' set to '40', '5'",
        "duplicate: 'interface swp1s0 link mtu 9216' (2x)",
        "duplicate: 'qos congestion-control default-global traffic-class 3 ecn enable' (2x)",
    ]


def test_set_valued_leaves_and_object_creation_are_not_conflicts() -> None:
    lines = ["nv set qos pfc default-global switch-priority 3",
             "nv set qos pfc default-global switch-priority 4,5",
             "nv set interface lo ip address 10.0.0.1/32",
             "nv set interface lo ip address 10.0.0.2/32",
             "nv set vrf default router bgp address-family ipv4-unicast network 10.0.0.0/31",
             "nv set vrf default router bgp address-family ipv4-unicast network 10.0.0.2/31",
             "nv set qos roce",
             "nv set qos roce mode lossless",
             "nv set interface swp1 description 'to spine 1'"]
    assert nv_set_conflicts(lines) == []
    paths = nv_set_paths(lines)
    assert paths[("qos", "pfc", P, "switch-priority")] == {"3", "4", "5"}
    assert paths[("interface", "swp1", "description")] == {"to spine 1"}
    assert ("qos",) not in paths


def test_switch_priority_is_only_set_valued_under_pfc() -> None:
    # egress-queue-mapping's and mapping's switch-priority are keys/scalars, not PFC's member list
    lines = ["nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 3",
             "nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 4"]
    assert nv_set_conflicts(lines) == [
        "conflict: 'qos egress-queue-mapping default-global switch-priority 3 traffic-class' set to '3', '4'"]


def test_non_nv_set_line_is_an_error() -> None:
    with pytest.raises(ValueError, match="line 2"):
        nv_set_commands(["nv set system hostname a", "nv config apply"])


# --- round trip: the intent's PFC / ECN / watchdog / maps are all in the command list ----------


@pytest.mark.parametrize(("example", "name"), all_devices())
def test_qos_round_trip(example: str, name: str) -> None:
    intent = intent_of(example, name)
    qos = intent.qos
    paths = nv_set_paths(list(commands(example, name)))

    def value(*path: str | int) -> str:
        got = paths.get(tuple(str(p) for p in path))
        assert got is not None and len(got) == 1, f"{' '.join(map(str, path))}: {got}"
        return next(iter(got))

    assert value("qos", "roce", "mode") == "lossless"
    assert value("qos", "mapping", P, "trust") == "l3"
    assert {d: int(value("qos", "mapping", P, "dscp", d, "switch-priority")) for d in range(64)} == qos.dscp_to_tc
    assert {sp: int(value("qos", "egress-queue-mapping", P, "switch-priority", sp, "traffic-class"))
            for sp in range(8)} == qos.tc_to_queue
    # PFC: exactly the lossless priorities, both directions, cable length from the PFC ports
    assert paths[("qos", "pfc", P, "switch-priority")] == {str(p) for p in qos.lossless_priorities}
    assert value("qos", "pfc", P, "tx") == value("qos", "pfc", P, "rx") == "enable"
    pfc_ports = [p for p in intent.ports.values() if p.pfc_priorities]
    assert int(value("qos", "pfc", P, "cable-length")) == cable_length(pfc_ports)
    assert int(value("qos", "pfc", P, "cable-length")) in {p.cable_length for p in pfc_ports}
    # ECN and scheduling per queue
    for qid, q in qos.queues.items():
        cc = ("qos", "congestion-control", P, "traffic-class", qid)
        if q.ecn is None:
            assert value(*cc, "ecn") == "disable"
        else:
            assert value(*cc, "ecn") == "enable"
            assert int(value(*cc, "min-threshold")) == q.ecn.min_bytes
            assert int(value(*cc, "max-threshold")) == q.ecn.max_bytes
            assert int(value(*cc, "probability")) == q.ecn.probability
        sched = ("qos", "egress-scheduler", P, "traffic-class", qid)
        assert value(*sched, "mode") == q.scheduler
        if q.scheduler == "dwrr":
            assert int(value(*sched, "bw-percent")) == q.weight
        else:
            assert (*map(str, sched), "bw-percent") not in paths
    # PFC watchdog: global timers and every PFC port enabled, nothing else
    wd = qos.pfc_watchdog
    assert wd.enabled
    assert int(value("qos", "pfc-watchdog", "polling-interval")) == wd.poll_ms
    assert int(value("qos", "pfc-watchdog", "robustness")) * wd.poll_ms >= wd.detect_ms
    enabled = {p[1] for p, v in paths.items() if p[2:] == ("qos", "pfc-watchdog", "state") and v == {"enable"}}
    assert enabled == {p.name for p in pfc_ports if p.pfc_watchdog}


@pytest.mark.parametrize(("example", "name"), all_devices())
def test_interfaces_and_bgp_round_trip(example: str, name: str) -> None:
    intent = intent_of(example, name)
    paths = nv_set_paths(list(commands(example, name)))
    for port in intent.ports.values():
        assert paths[("interface", port.name, "link", "mtu")] == {str(port.mtu)}
        assert paths[("interface", port.name, "link", "speed")] == {f"{port.speed // 1000}G"}
        assert paths[("interface", port.name, "ip", "address")] == {port.address}
        assert paths[("interface", port.name, "description")] == {port.description}
    assert paths[("interface", "lo", "ip", "address")] == {intent.loopback}
    assert paths[("router", "bgp", "autonomous-system")] == {str(intent.bgp.asn)}
    assert paths[("router", "bgp", "router-id")] == {intent.bgp.router_id}
    for nbr in intent.bgp.neighbors:
        assert paths[("vrf", "default", "router", "bgp", "neighbor", nbr.ip, "remote-as")] == {str(nbr.remote_asn)}
        assert paths[("vrf", "default", "router", "bgp", "neighbor", nbr.ip, "description")] == {nbr.description}
    networks = paths[("vrf", "default", "router", "bgp", "address-family", "ipv4-unicast", "network")]
    assert networks == set(intent.bgp.networks)


def test_disabled_watchdog_renders_no_watchdog() -> None:
    intent = intent_of("lab-mini", "leaf-su2-r1")
    wd = intent.qos.pfc_watchdog.model_copy(update={"enabled": False})
    text = render_device(intent.model_copy(update={"qos": intent.qos.model_copy(update={"pfc_watchdog": wd})}))
    assert "pfc-watchdog" not in text.files["nvue.commands"]


def test_cable_length_rule_and_robustness() -> None:
    intent = intent_of("lab-mini", "leaf-su2-r1")
    lengths = sorted(p.cable_length for p in intent.ports.values())
    assert lengths == [5, 5, 5, 5, 40, 40, 40, 40]  # a tie: the longer length wins
    assert render_context(intent)["qos"]["cable_length"] == 40
    hosts_only = [p for p in intent.ports.values() if p.role == "host"]
    assert cable_length(hosts_only) == 5
    assert (robustness(200, 200), robustness(200, 100), robustness(201, 100)) == (1, 2, 3)


def test_description_with_spaces_is_quoted() -> None:
    intent = intent_of("lab-mini", "leaf-su2-r1")
    port = intent.ports["swp1s0"].model_copy(update={"description": "gpu005 eth0 (rail 1)"})
    text = render_device(intent.model_copy(update={"ports": {**intent.ports, "swp1s0": port}})).files["nvue.commands"]
    assert "nv set interface swp1s0 description 'gpu005 eth0 (rail 1)'" in text.splitlines()
    assert nv_set_paths(text.splitlines())[("interface", "swp1s0", "description")] == {"gpu005 eth0 (rail 1)"}


def test_sn5600_400g_ports_are_2x_breakouts_of_the_800g_cages() -> None:
    # Mellanox-SN5600-O128 hwsku.json: every 800G cage is 2x400G; Cumulus names them swp<cage>s0/s1
    lines = list(commands("lab-mini", "leaf-su2-r1"))
    breakouts = [line for line in lines if " link breakout " in line]
    assert breakouts == [f"nv set interface swp{n} link breakout 2x" for n in (1, 2, 3, 4)]
    assert "nv set interface swp1s1 link speed 400G" in lines
    assert lines.index(breakouts[-1]) < lines.index("nv set interface swp1s0 link state up")


def test_rejects_non_switch() -> None:
    fab = fabric("lab-mini")
    with pytest.raises(TypeError):
        render_context(plan(fab, fab.hosts[0].name))


def test_doctests() -> None:
    import doctest

    from roceops.platforms.cumulus import render as module

    result = doctest.testmod(module)
    assert result.attempted and not result.failed


def test_audit_reads_back_the_breakouts() -> None:
    intent = intent_of("lab-mini", "leaf-su2-r1")
    cfg = config_paths("\n".join(commands("lab-mini", "leaf-su2-r1")))
    assert observed_breakouts(cfg) == {"swp1": 2, "swp2": 2, "swp3": 2, "swp4": 2}
    cfg[("interface", "swp3", "link", "breakout")] = {"1x"}  # someone un-split a cage
    del cfg[("interface", "swp4", "link", "breakout")]
    cfg[("interface", "swp9", "link", "breakout")] = {"4x"}  # a cage roceops does not split: the switch's own
    assert observed_breakouts(cfg) == {"swp1": 2, "swp2": 2, "swp3": 1, "swp9": 4}
    drift = {d.path for d in compare(expected(intent), ObservedSwitch(breakouts=observed_breakouts(cfg)))}
    assert drift == {"breakouts[swp3]", "breakouts[swp4]"}
