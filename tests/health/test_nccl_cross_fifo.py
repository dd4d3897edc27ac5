"""NCCL_CROSS_NIC and NCCL_IB_FIFO_TC (issue 29): planned from the fabric, rendered, read back from the file,
judged by health (the lint rules: tests/lint/test_rules.py NCCL004/NCCL005)."""

from __future__ import annotations

from typing import Any

from conftest import example_dict

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.observed import ObservedHost, ObservedNccl
from roceops.health.catalog import Sample
from roceops.health.host_checks import NodeContext, nccl_check
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.plan.nccl_classes import fifo_problems
from roceops.platforms.linux_mlx5.observe import nccl_observed
from roceops.platforms.linux_mlx5.render import nccl_variables
from roceops.topology.expand import expand

CTRL = {"name": "ctrl", "dscp": [46], "priority": 5, "scheduling": {"mode": "strict"}}


def fabric(**node_nccl: Any) -> Any:
    data = example_dict("lab-mini")
    data.setdefault("node", {})["nccl"] = node_nccl
    data.setdefault("qos", {})["traffic_classes"] = [
        {"name": "roce", "dscp": [26], "priority": 3, "lossless": True, "scheduling": {"mode": "dwrr", "weight": 50},
         "ecn": {"min": "150KB", "max": "1500KB", "probability": 100}},
        {"name": "cnp", "dscp": [48], "priority": 6, "scheduling": {"mode": "strict"}}, CTRL,
        {"name": "default", "default": True, "priority": 0, "scheduling": {"mode": "dwrr", "weight": 50}}]
    return expand(FabricIntent.model_validate(data))


def host_and_leaves(fab: Any) -> tuple[HostIntent, dict[str, SwitchIntent]]:
    host = plan(fab, "gpu001")
    assert isinstance(host, HostIntent)
    return host, {n.leaf: leaf for n in host.nics.values() if isinstance(leaf := plan(fab, n.leaf), SwitchIntent)}


def test_defaults_render_cross_nic_2_and_fifo_on_the_data_class() -> None:
    host, _ = host_and_leaves(fabric())
    variables = dict(nccl_variables(host.nccl))
    assert variables["NCCL_CROSS_NIC"] == "2"  # spines join the rails: NCCL's default
    assert variables["NCCL_IB_FIFO_TC"] == variables["NCCL_IB_TC"] == "106"  # what NCCL does with it unset


def test_rail_only_fabric_renders_cross_nic_0() -> None:
    data = example_dict("lab-mini")
    data["rail_only"] = True
    host = plan(expand(FabricIntent.model_validate(data)), "gpu001")
    assert isinstance(host, HostIntent)
    assert dict(nccl_variables(host.nccl))["NCCL_CROSS_NIC"] == "0"


def test_named_strict_class_is_the_fifo_tc_and_reads_back() -> None:
    host, leaves = host_and_leaves(fabric(fifo_class="ctrl"))
    assert host.nccl.fifo_tc == 46 << 2  # strict, not lossless: no ECT bit
    assert fifo_problems(host.nccl.fifo_tc, host, leaves) == []
    seen = nccl_observed(dict(nccl_variables(host.nccl)))
    assert (seen.cross_nic, seen.fifo_tc) == (2, 184)
    [ok] = nccl_check(NodeContext("gpu001", host, Sample(observed=ObservedHost(nccl=seen)), leaves))
    assert ok.status == "ok", ok.message


def test_health_fails_a_missing_or_lossy_fifo_tc() -> None:
    host, leaves = host_and_leaves(fabric(fifo_class="ctrl"))
    seen = ObservedNccl.model_validate(host.nccl.model_dump())
    [missing] = nccl_check(NodeContext("gpu001", host, Sample(observed=ObservedHost(
        nccl=seen.model_copy(update={"fifo_tc": None, "cross_nic": None}))), leaves))
    assert missing.status == "fail" and "fifo_tc=None (want 184)" in missing.message
    assert "cross_nic=None (want 2)" in missing.message
    [lossy] = nccl_check(NodeContext("gpu001", host, Sample(observed=ObservedHost(
        nccl=seen.model_copy(update={"fifo_tc": 0}))), leaves))
    assert lossy.status == "fail" and "NCCL_IB_FIFO_TC: eth0: DSCP 0 -> priority 0, neither lossless nor strict" \
        in lossy.message
    assert any("CNP class" in p for p in fifo_problems(48 << 2, host, leaves))
