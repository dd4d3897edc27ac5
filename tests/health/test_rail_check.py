"""nic.rail on sampled LLDP (no lab): both views agree with the plan, a swapped cable fails naming planned and
observed ports, and no LLDP at all skips the NIC with the reason (never unknown, never ok)."""

from __future__ import annotations

from conftest import example_dict

from roceops.device.intent import HostIntent
from roceops.device.oper import LldpNeighbor, OperState
from roceops.health.cabling import rail_results
from roceops.health.catalog import Sample
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.topology.expand import expand

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))
HOST = plan(FABRIC, "gpu002")
assert isinstance(HOST, HostIntent)
A, B = sorted(HOST.nics.values(), key=lambda n: n.rail)[:2]


def samples(host: dict[str, tuple[str, str]], leaves: dict[str, dict[str, tuple[str, str]]]) -> dict[str, Sample]:
    out = {"gpu002": Sample(first=OperState(device="gpu002", lldp={
        k: LldpNeighbor(device=d, port=p) for k, (d, p) in host.items()}))}
    for leaf in {n.leaf for n in HOST.nics.values()}:
        out[leaf] = Sample(first=OperState(device=leaf, lldp={
            k: LldpNeighbor(device=d, port=p) for k, (d, p) in leaves.get(leaf, {}).items()}))
    return out


def test_cabled_as_planned_passes() -> None:
    host = {n.netdev: (n.leaf, n.leaf_port) for n in HOST.nics.values()}
    leaves: dict[str, dict[str, tuple[str, str]]] = {}
    for n in HOST.nics.values():
        leaves.setdefault(n.leaf, {})[n.leaf_port] = ("gpu002", n.netdev)
    assert {r.status for r in rail_results("gpu002", HOST, samples(host, leaves))} == {"ok"}


def test_swapped_cables_fail_from_the_leaf_view_alone() -> None:
    leaves = {A.leaf: {A.leaf_port: ("gpu002", B.netdev)}, B.leaf: {B.leaf_port: ("gpu002", A.netdev)}}
    results = {r.item: r for r in rail_results("gpu002", HOST, samples({}, leaves))}
    a = results[f"gpu002:{A.netdev}"]
    assert a.status == "fail" and a.expected == f"{A.leaf}:{A.leaf_port}" and a.observed == f"{B.leaf}:{B.leaf_port}"
    assert "traffic would cross rails" in a.message


def test_no_lldp_anywhere_is_skipped_with_the_reason() -> None:
    results = rail_results("gpu002", HOST, samples({}, {}))
    assert {r.status for r in results} == {"skipped"}
    assert "lldpd not running on gpu002" in results[0].message


def test_no_lldp_but_the_leaves_neighbour_tables_place_swapped_nics() -> None:
    from roceops.device.oper import PortOper

    mac = {A.netdev: "b8:ce:f6:00:00:0a", B.netdev: "b8:ce:f6:00:00:0b"}
    out = samples({}, {})
    out["gpu002"] = Sample(first=OperState(device="gpu002", ports={
        n: PortOper(name=n, mac=m) for n, m in mac.items()}))
    for leaf, port, netdev in ((A.leaf, A.leaf_port, B.netdev), (B.leaf, B.leaf_port, A.netdev)):
        state = out[leaf].first
        assert state is not None
        table = {**state.neighbor_macs, port: [mac[netdev]]}
        out[leaf] = Sample(first=state.model_copy(update={"neighbor_macs": table}))
    results = {r.item: r for r in rail_results("gpu002", HOST, out)}
    a = results[f"gpu002:{A.netdev}"]
    assert a.status == "fail" and a.observed == f"{B.leaf}:{B.leaf_port}", a
    assert "has its MAC in the neighbour table" in a.message
    out[A.leaf] = Sample(first=OperState(device=A.leaf, lldp={A.leaf_port: LldpNeighbor(device="gpu009", port="x")},
                                         neighbor_macs={A.leaf_port: [mac[B.netdev]]}))
    b = {r.item: r for r in rail_results("gpu002", HOST, out)}[f"gpu002:{B.netdev}"]
    assert b.status == "skipped", b  # a port with an LLDP neighbour is judged by LLDP, not by a MAC seen there
