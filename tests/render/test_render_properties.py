"""Hypothesis over generated fabrics: rendering is deterministic and the lossless contract holds end to end.

On every host link the NIC's PFC priorities equal the leaf port's; each such priority's DSCP maps
DSCP -> TC -> queue -> PG to a lossless queue with headroom > 0 and ECN on; CNP is strict everywhere.
"""

from __future__ import annotations

import gc

from conftest import example_dict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand


@st.composite
def fabrics(draw: st.DrawFn) -> FabricIntent:
    lossless_prio = draw(st.sampled_from([2, 3, 4, 5]))
    cnp_prio = draw(st.sampled_from([p for p in (1, 6, 7) if p != lossless_prio]))
    roce_dscp = draw(st.integers(8, 40))
    cnp_dscp = draw(st.sampled_from([46, 48, 56]))
    return FabricIntent.model_validate({
        "name": "prop",
        "node": {"rails": draw(st.integers(1, 3))},
        "scalable_units": {"count": draw(st.integers(1, 2)), "nodes_per_su": draw(st.integers(1, 5))},
        "switch_models": {"sw": {"radix": 16, "port_speed": draw(st.sampled_from(["100G", "400G"])),
                                 "hwsku": "Mellanox-SN4700-O32"}},  # 32 x 400G ports that also run 100G
        "tiers": {"leaf": {"model": "sw", "platform": draw(st.sampled_from(["sonic", "cumulus", "eos"]))},
                  "spine": {"model": "sw", "platform": draw(st.sampled_from(["sonic", "cumulus", "eos"]))}},
        # lengths Mellanox-SN4700-O32's pg_profile_lookup.ini has rows for (SONiC refuses others: HDRM003)
        "cable_lengths": {"host_leaf": draw(st.sampled_from([5, 40, 300])),
                          "leaf_spine": draw(st.sampled_from([5, 40, 300, 1500]))},
        "qos": {
            "traffic_classes": [
                {"name": "roce", "dscp": [roce_dscp], "priority": lossless_prio, "lossless": True,
                 "scheduling": {"mode": "dwrr", "weight": draw(st.integers(10, 90))},
                 "ecn": {"min": "100KB", "max": f"{draw(st.integers(200, 2000))}KB"}},
                {"name": "cnp", "dscp": [cnp_dscp], "priority": cnp_prio, "scheduling": {"mode": "strict"}},
                {"name": "other", "default": True, "priority": 0, "scheduling": {"mode": "dwrr", "weight": 20}},
            ],
            "cnp": {"dscp": cnp_dscp, "priority": cnp_prio},
            "pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100},
        },
    })


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_render_deterministic_and_lossless_contract(intent: FabricIntent) -> None:
    data = intent.model_dump(mode="json")
    data["node"]["nic_speed"] = data["switch_models"]["sw"]["port_speed"]  # no breakouts modelled
    intent = FabricIntent.model_validate(data)
    fab = expand(intent)
    intents = {d.name: plan(fab, d.name) for d in fab.devices()}
    for i in intents.values():
        assert render_device(i).files == render_device(i).files
    roce = intent.qos.class_named("roce")
    cnp_prio = intent.qos.cnp.priority
    for host in fab.hosts:
        hi = intents[host.name]
        assert isinstance(hi, HostIntent)
        for nic in host.nics:
            leaf = intents[nic.leaf]
            assert isinstance(leaf, SwitchIntent)
            port = leaf.ports[nic.leaf_port]
            n = hi.nics[nic.netdev]
            assert sorted(n.pfc_priorities) == sorted(port.pfc_priorities) == [roce.priority]
            assert n.dscp_to_priority[roce.dscp[0]] == roce.priority
            for prio in n.pfc_priorities:
                tc = leaf.qos.dscp_to_tc[roce.dscp[0]]
                queue = leaf.qos.tc_to_queue[tc]
                pg = leaf.qos.tc_to_pg[tc]
                assert leaf.qos.pfc_priority_to_queue[prio] == queue
                assert leaf.qos.queues[queue].lossless
                assert leaf.qos.queues[queue].ecn is not None
                assert port.headroom[pg].size > 0 and port.headroom[pg].xoff > 0
            assert n.dcqcn.rp_enabled == n.pfc_priorities
    for i in intents.values():
        if isinstance(i, SwitchIntent):
            tc = i.qos.dscp_to_tc[intent.qos.cnp.dscp]
            assert i.qos.queues[i.qos.tc_to_queue[tc]].scheduler == "strict"
            assert cnp_prio not in i.qos.lossless_priorities


def test_planning_and_rendering_leave_no_reference_cycles() -> None:
    """render_devices() turns the cyclic GC off while it plans and renders (roceops/render/build.py); that costs
    nothing only because plan + render of every platform leave no reference cycles behind."""
    fab = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    names = [d.name for d in fab.devices()]
    assert {d.platform for d in fab.devices()} == {"sonic", "cumulus", "eos", "linux_mlx5"}
    for name in names:  # warm templates and caches first
        render_device(plan(fab, name))
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        rendered = [render_device(plan(fab, name)) for name in names]
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
    assert len(rendered) == len(names)
