"""Issue 19 on the example fabrics: the 400G (fabric.yaml) and 800G (fabric-800g.yaml) examples render the speed
profile's DCQCN values and the roce class's ECN thresholds; pinning generic ConnectX defaults fires DCQ006; the
800G leaf's host ports are 2x400G child ports of its first cages and its uplinks whole 800G cages."""

from __future__ import annotations

import json
from functools import cache

import pytest
from conftest import EXAMPLES, example_dict

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.model.loader import load
from roceops.plan import plan
from roceops.plan.speed_profiles import ecn_floor_bytes, speed_profile
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.topology.sizing import TopologyError

# Barre Table 2 (400G), end of each tuned range nearest the ConnectX default: docs/congestion.md
TUNED_RP = {"rpg_min_dec_fac": 80, "rate_reduce_monitor_period": 4, "rpg_ai_rate": 8, "rpg_time_reset": 100}
TUNED_NP = {"min_time_between_cnps": 2}
ECN_BYTES = (150 * 1024, 1500 * 1024)  # the examples' roce class: 150KB / 1500KB at every speed


@cache
def fabric_of(example: str) -> Fabric:
    return expand(load(EXAMPLES[example]).intent)


@cache
def leaf(example: str) -> SwitchIntent:
    intent = plan(fabric_of(example), "leaf-su1-r1")
    assert isinstance(intent, SwitchIntent)
    return intent


@pytest.mark.parametrize(("example", "nic_model", "link_speeds"), [
    ("fabric", "ConnectX-7", {400_000}),
    ("fabric-800g", "ConnectX-8", {400_000, 800_000}),
])
def test_example_renders_the_speed_profile(example: str, nic_model: str, link_speeds: set[int]) -> None:
    fab = fabric_of(example)
    assert fab.intent.node.nic_model == nic_model and fab.intent.node.nic_speed == 400_000
    assert {link.speed for link in fab.links} == link_speeds
    profile = speed_profile(fab.intent.node.nic_speed)
    assert profile.source is not None and "Barre" in profile.source
    assert profile.rp == TUNED_RP and profile.np == TUNED_NP
    host = plan(fab, "gpu001")
    assert isinstance(host, HostIntent)
    for nic in host.nics.values():
        assert {k: nic.dcqcn.rp[k] for k in TUNED_RP} == profile.rp and nic.dcqcn.np == profile.np
    script = render_device(host).files["roce-setup.sh"]
    for key, value in TUNED_RP.items():
        assert f"echo {value} > /sys/class/net/eth0/ecn/roce_rp/{key}" in script
    assert "echo 2 > /sys/class/net/eth0/ecn/roce_np/min_time_between_cnps" in script

    sw = leaf(example)
    [ecn] = [q.ecn for q in sw.qos.queues.values() if q.ecn is not None]
    assert (ecn.min_bytes, ecn.max_bytes) == ECN_BYTES
    for speed in link_speeds:  # ECN007's DCTCP floor holds at every port speed of the leaf
        assert ecn.min_bytes >= ecn_floor_bytes(speed, fab.intent.qos.base_rtt_us)
    if sw.platform == "sonic":
        [wred] = json.loads(render_device(sw).files["config_db.json"])["WRED_PROFILE"].values()
        assert (int(wred["green_min_threshold"]), int(wred["green_max_threshold"])) == ECN_BYTES
    findings = lint(fab.intent).findings
    assert not [f for f in findings if f.severity == "error"]
    assert "DCQ006" not in {f.id for f in findings}


@pytest.mark.parametrize(("example", "nic_model"), [("fabric", "ConnectX-7"), ("fabric-800g", "ConnectX-8")])
def test_generic_connectx_pins_fire_dcq006_on_the_examples(example: str, nic_model: str) -> None:
    data = example_dict(example)
    data["qos"]["dcqcn"] = {"enabled": True, "rp": {"rpg_min_dec_fac": 50}, "np": {"min_time_between_cnps": 4}}
    intent = FabricIntent.model_validate(data)
    dcq = [f for f in lint(intent).findings if f.id == "DCQ006"]
    assert sorted(f.path for f in dcq) == ["qos.dcqcn.np.min_time_between_cnps", "qos.dcqcn.rp.rpg_min_dec_fac"]
    assert all(f"pins the generic {nic_model} default at 400G" in f.message for f in dcq)
    host = plan(expand(intent), "gpu001")
    assert isinstance(host, HostIntent)
    nic = next(iter(host.nics.values()))
    assert nic.dcqcn.rp["rpg_min_dec_fac"] == 50 and nic.dcqcn.np == {"min_time_between_cnps": 4}  # pins win
    assert nic.dcqcn.rp["rpg_ai_rate"] == 8  # unpinned: still the profile's


def test_800g_leaf_ports_come_from_the_sku_breakout() -> None:
    sw = leaf("fabric-800g")
    host = {n: p for n, p in sw.ports.items() if p.role == "host"}
    fabric = {n: p for n, p in sw.ports.items() if p.role == "fabric"}
    assert (len(host), len(fabric)) == (64, 32)
    # Dell-Z9864f-O64 platform.json: cage Ethernet0 lanes 1-8, mode 2x400G(8) aliases etp1a/etp1b
    e0, e4 = host["Ethernet0"], host["Ethernet4"]
    assert (e0.speed, e0.lanes, e0.alias, e0.index) == (400_000, [1, 2, 3, 4], "etp1a", 1)
    assert (e4.speed, e4.lanes, e4.alias, e4.index) == (400_000, [5, 6, 7, 8], "etp1b", 1)
    # uplinks: whole cages after the 32 host cages (port_config.ini row 33 is Ethernet256, etp33)
    up = fabric["Ethernet256"]
    assert (up.speed, up.alias, up.index, len(up.lanes)) == (800_000, "etp33", 33, 8)
    assert all(p.speed == 800_000 and len(p.lanes) == 8 for p in fabric.values())
    lanes = [lane for p in sw.ports.values() for lane in p.lanes]
    assert len(lanes) == len(set(lanes)) == 64 * 4 + 32 * 8  # no lane used twice
    assert len(sw.breakouts) == 32 and set(sw.breakouts.values()) == {2}
    spine = plan(fabric_of("fabric-800g"), "spine01")
    assert isinstance(spine, SwitchIntent) and {p.speed for p in spine.ports.values()} == {800_000}


def test_host_breakout_needs_matching_nics_and_a_sku_mode() -> None:
    data = example_dict("fabric-800g")
    data["switch_models"]["z9864f-leaf"]["host_breakout"] = "4x200G"
    assert "TOPO004" in lint(FabricIntent.model_validate(data)).ids  # 200G ports for 400G NICs
    data["switch_models"]["z9864f-leaf"]["host_breakout"] = "3x200G"  # no such platform.json mode
    with pytest.raises(TopologyError, match="in breakout 3x200G"):
        expand(FabricIntent.model_validate(data))
    data["switch_models"]["z9864f-leaf"]["host_breakout"] = "2x400G"
    data["tiers"]["leaf"]["port_naming"] = {"pattern": "Ethernet{n}", "step": 4}
    with pytest.raises(TopologyError, match="needs the SKU's cages"):
        expand(FabricIntent.model_validate(data))


def test_time_ecn_thresholds_on_a_mixed_speed_leaf_fire_ecn010() -> None:
    data = example_dict("fabric-800g")
    roce = next(tc for tc in data["qos"]["traffic_classes"] if tc.get("ecn"))
    roce["ecn"] = {**roce["ecn"], "min": "2us"}
    [hit] = [f for f in lint(FabricIntent.model_validate(data)).findings if f.id == "ECN010"]
    # 2 us at 800G = 200,000 B, which a 400G host port drains in 4 us
    assert hit.path.endswith(".ecn.min") and "at 400G that is 4 us of queue" in hit.message, hit.message
    single = example_dict("fabric")  # every port at 400G: one conversion fits all
    roce = next(tc for tc in single["qos"]["traffic_classes"] if tc.get("ecn"))
    roce["ecn"] = {**roce["ecn"], "min": "2us"}
    assert "ECN010" not in lint(FabricIntent.model_validate(single)).ids
