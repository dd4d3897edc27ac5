"""health --traffic without a lab: the same-rail ring pairing, each rail's perftest options from the sample,
the bandwidth verdict against Thresholds, and the deadline bound (no I/O once no time is left)."""

from __future__ import annotations

import time

from conftest import example_dict

from roceops.device.intent import HostIntent
from roceops.device.observed import ObservedGid, ObservedHost
from roceops.device.oper import RdmaBandwidth, RdmaEnd
from roceops.health.catalog import Sample
from roceops.health.model import Thresholds
from roceops.health.traffic import judge, pair_rails, rail_end, run_traffic
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.topology.expand import expand
from roceops.util.rdma import ipv4_gid

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))
NODES = ["gpu001", "gpu002", "gpu005"]


def intents(names: list[str]) -> dict[str, HostIntent]:
    out = {}
    for n in names:
        hi = plan(FABRIC, n)
        assert isinstance(hi, HostIntent)
        out[n] = hi
    return out


def sample(intent: HostIntent, perftest: bool = True) -> Sample:
    rows = [ObservedGid(dev=n.rdma_dev, gid=ipv4_gid(n.address.split("/")[0]), version="v2", index=3)
            for n in intent.nics.values()]
    return Sample(observed=ObservedHost(tools={"ib_write_bw": perftest}, gids=rows))


def test_ring_pairs_each_node_with_the_next_on_the_same_rail() -> None:
    hosts = intents(NODES)
    runs, results = pair_rails(NODES, hosts)
    assert results == []
    pairs = {(r.node, r.nic.rail, r.peer) for r in runs}
    assert pairs == {(a, rail, b) for a, b in (("gpu001", "gpu002"), ("gpu002", "gpu005"), ("gpu005", "gpu001"))
                     for rail in (1, 2)}
    assert all(r.nic.rail == r.peer_nic.rail and r.nic.leaf.endswith(f"r{r.nic.rail}") for r in runs)
    assert all(r.peer_nic.leaf.endswith(f"r{r.nic.rail}") for r in runs)  # same rail: the rail's leaves


def test_one_node_is_skipped_with_the_reason() -> None:
    runs, [result] = pair_rails(["gpu001"], intents(["gpu001"]))
    assert runs == [] and result.status == "skipped" and "needs at least 2 nodes (got 1)" in result.message


def test_rail_end_uses_the_rail_gid_and_nccl_tc() -> None:
    host = intents(["gpu001"])["gpu001"]
    nic = min(host.nics.values(), key=lambda n: n.rail)
    end = rail_end(nic, host, sample(host))
    assert end == RdmaEnd(nic.rdma_dev, 3, 18515 + nic.rail, host.nccl.ib_tc)
    assert rail_end(nic, host, sample(host, perftest=False)) == ("skipped", "ib_write_bw not installed (perftest)")
    no_gid = Sample(observed=ObservedHost(tools={"ib_write_bw": True}, gids=[]))
    assert rail_end(nic, host, no_gid)[0] == "unknown"
    assert rail_end(nic, host, Sample(error="gpu001 connect failed: refused")) == (
        "unknown", "gpu001 connect failed: refused")


def test_judge_against_the_fraction_of_link_speed() -> None:
    hosts = intents(NODES[:2])
    run = pair_rails(NODES[:2], hosts)[0][0]
    fast = judge(run, RdmaBandwidth(65536, 1, 0.0, 371.0, 0.7), Thresholds())
    assert fast.status == "ok" and fast.observed == "371.00 Gb/s"
    slow = judge(run, RdmaBandwidth(65536, 1, 0.0, 116.4, 0.2), Thresholds())
    assert slow.status == "fail" and slow.item == f"gpu001:{run.nic.rdma_dev}"
    assert f"gpu001 {run.nic.rdma_dev} (rail {run.nic.rail}) -> gpu002 {run.peer_nic.rdma_dev}" in slow.message
    assert "116.40 Gb/s, below 320 Gb/s (80% of the 400 Gb/s link)" in slow.message
    assert judge(run, RdmaBandwidth(65536, 1, 0.0, 116.4, 0.2), Thresholds(traffic_min_fraction=0.25)).status == "ok"


def test_missing_perftest_on_the_peer_skips_and_no_time_left_is_unknown() -> None:
    hosts = intents(NODES[:2])
    runs, _ = pair_rails(NODES[:2], hosts)
    samples = {"gpu001": sample(hosts["gpu001"]), "gpu002": sample(hosts["gpu002"], perftest=False)}
    conns = {"gpu001": object(), "gpu002": object()}
    results = run_traffic(runs, conns, hosts, samples, Thresholds(), time.monotonic() + 60)
    assert {r.status for r in results} == {"skipped"} and len(results) == len(runs)
    assert all("gpu002: ib_write_bw not installed" in r.message for r in results)
    samples["gpu002"] = sample(hosts["gpu002"])
    late = run_traffic(runs, conns, hosts, samples, Thresholds(), time.monotonic() + 1)  # object() is never used
    assert {r.status for r in late} == {"unknown"} and all("no time left" in r.message for r in late)
