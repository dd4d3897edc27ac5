"""Node-level health checks on observed samples (no lab): NCCL's TC against the NIC and the leaf, the RoCE v2
GID of each rail address and the boot unit (the traffic test: test_traffic.py)."""

from __future__ import annotations

from conftest import example_dict

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.observed import ObservedBoot, ObservedGid, ObservedHost, ObservedNccl
from roceops.health.catalog import Sample
from roceops.health.host_checks import NodeContext, gid_check, nccl_check, tc_problems, unit_check
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.topology.expand import expand
from roceops.util.rdma import ipv4_gid

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))


def context(observed: ObservedHost) -> NodeContext:
    host = plan(FABRIC, "gpu001")
    assert isinstance(host, HostIntent)
    leaves = {n.leaf: leaf for n in host.nics.values() if isinstance(leaf := plan(FABRIC, n.leaf), SwitchIntent)}
    return NodeContext("gpu001", host, Sample(observed=observed), leaves)


def test_tc_of_the_roce_class_is_lossless_and_others_are_named() -> None:
    ctx = context(ObservedHost())
    assert tc_problems(106, ctx.intent, ctx.leaves) == []
    assert any("priority 0, which has no PFC" in p for p in tc_problems(None, ctx.intent, ctx.leaves))  # unset: 0
    cnp = tc_problems(48 << 2, ctx.intent, ctx.leaves)
    assert "DSCP 48 is the CNP class, not NCCL's" in cnp


def test_nccl_file_that_matches_intent_passes() -> None:
    ctx = context(ObservedHost())
    seen = ObservedNccl.model_validate(ctx.intent.nccl.model_dump())
    [ok] = nccl_check(context(ObservedHost(nccl=seen)))
    assert ok.status == "ok"
    [bad] = nccl_check(context(ObservedHost(nccl=seen.model_copy(update={"ib_hca": ["mlx5_0"]}))))
    assert bad.status == "fail" and "ib_hca=['mlx5_0']" in bad.message
    [unknown] = nccl_check(context(ObservedHost()))
    assert unknown.status == "unknown"


def test_gid_and_unit_checks() -> None:
    ctx = context(ObservedHost())
    rows = [ObservedGid(dev=n.rdma_dev, gid=ipv4_gid(n.address.split("/")[0]), version="v2", index=3)
            for n in ctx.intent.nics.values()]
    assert {r.status for r in gid_check(context(ObservedHost(gids=rows)))} == {"ok"}
    v1_only = [r.model_copy(update={"version": "v1"}) for r in rows]
    assert {r.status for r in gid_check(context(ObservedHost(gids=v1_only)))} == {"fail"}
    assert {r.status for r in gid_check(context(ObservedHost(gids=None)))} == {"unknown"}
    [unit] = unit_check(context(ObservedHost(boot=ObservedBoot(unit_enabled="enabled", unit_result="failed"))))
    assert unit.status == "fail" and "last run: failed" in unit.message
