"""cc.loop on sampled counters (no lab): a working loop passes, marks without CNPs fail the node, CNPs ignored
without any handled fail the node, CNPs without marks on the RoCE queue fail the leaf port, missing counters are
unknown and a quiet link is not judged."""

from __future__ import annotations

from conftest import example_dict

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.oper import OperState, PortOper
from roceops.health.catalog import Sample
from roceops.health.cc_loop import loop_results, roce_queue
from roceops.model.health import CcLoopBounds
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.topology.expand import expand

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))
HOST = plan(FABRIC, "gpu003")
assert isinstance(HOST, HostIntent)
NIC = sorted(HOST.nics.values(), key=lambda n: n.rail)[0]
LEAF = plan(FABRIC, NIC.leaf)
assert isinstance(LEAF, SwitchIntent)
Q = roce_queue(NIC, LEAF)


def sample(device: str, port: str, delta: dict[str, int], unread: dict[str, str] | None = None) -> Sample:
    first = OperState(device=device, ports={port: PortOper(name=port, counters=dict.fromkeys(delta, 100))})
    second = OperState(device=device, ports={port: PortOper(name=port, unread=unread or {}, counters={
        k: 100 + v for k, v in delta.items()})})
    return Sample(first=first, second=second, window_s=2.0)


def run(nic: dict[str, int], leaf: dict[str, int], unread: dict[str, str] | None = None) -> dict[str, str]:
    results = loop_results("gpu003", NIC, sample("gpu003", NIC.netdev, nic, unread), LEAF,
                           sample(LEAF.name, NIC.leaf_port, leaf), CcLoopBounds())
    return {r.item: f"{r.status} {r.message}" for r in results}


def test_working_and_idle_loops_pass() -> None:
    busy = {"ecn_marked": 80, "cnp_sent": 16, "cnp_handled": 16, "cnp_ignored": 0}
    assert set(run(busy, {f"ecn_marked_q{Q}": 80}).values()) == {"ok "}
    assert set(run(dict.fromkeys(busy, 0), {f"ecn_marked_q{Q}": 0}).values()) == {"ok "}


def test_marks_without_cnps_fail_the_node() -> None:
    [result] = run({"ecn_marked": 80, "cnp_sent": 0, "cnp_handled": 16, "cnp_ignored": 0},
                   {f"ecn_marked_q{Q}": 80}).values()
    assert result.startswith("fail") and "sent no CNP: its notification point is off" in result


def test_ignored_cnps_fail_the_node() -> None:
    [result] = run({"ecn_marked": 0, "cnp_sent": 0, "cnp_handled": 0, "cnp_ignored": 50}, {}).values()
    assert result.startswith("fail") and "none was handled" in result


def test_cnps_without_marks_on_the_roce_queue_fail_the_leaf_port() -> None:
    got = run({"ecn_marked": 80, "cnp_sent": 16, "cnp_handled": 16, "cnp_ignored": 0},
              {f"ecn_marked_q{Q}": 0, f"ecn_marked_q{(Q + 1) % 8}": 80})
    port = got[f"{LEAF.name}:{NIC.leaf_port}"]
    assert port.startswith("fail") and f"marked nothing on queue {Q}" in port


def test_unread_counters_are_unknown() -> None:
    why = {"cnp_sent": "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent not readable"}
    [result] = run({"ecn_marked": 80, "cnp_handled": 16, "cnp_ignored": 0}, {f"ecn_marked_q{Q}": 80}, why).values()
    assert result == f"unknown {why['cnp_sent']}"
