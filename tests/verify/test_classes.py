"""The class argument of ``verify routing --by-class`` (pure: no root, no FRR): which devices are built, and
that a device which differs from its class in one value is built itself rather than hidden by the class."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from conftest import example_dict
from frrkit import four_su_intent, without_maximum_paths

from roceops.device.change import RenderedDevice
from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.verify import classes
from roceops.verify.plane import Intent, device_nodes


@cache
def fabric() -> Fabric:
    return expand(FabricIntent.model_validate(four_su_intent(example_dict("lab-mini"))))


@cache
def planned() -> tuple[dict[str, Intent], dict[str, RenderedDevice]]:
    intents: dict[str, Intent] = {d.name: plan(fabric(), d.name) for d in fabric().devices()}  # type: ignore[misc]
    return intents, {n: render_device(i) for n, i in intents.items()}


def cover(intents: Mapping[str, Intent] | None = None,
          rendered: Mapping[str, RenderedDevice] | None = None) -> classes.Coverage:
    all_intents, all_rendered = planned()
    all_intents = {**all_intents, **(intents or {})}
    all_rendered = {**all_rendered, **{n: render_device(i) for n, i in (intents or {}).items()}, **(rendered or {})}
    nodes, mtus = device_nodes(fabric(), all_intents, all_rendered)
    return classes.cover(fabric(), nodes, mtus)


def su_of(name: str) -> int | None:
    return fabric().device(name).su


def test_first_and_last_su_and_the_spines_are_built_the_rest_is_proven_by_class() -> None:
    cov = cover()
    built = set(cov.built)
    assert {d.name for d in fabric().devices() if d.su in (1, 4) or d.role == "spine"} == built
    assert {n for n in cov.representative} == {d.name for d in fabric().devices() if d.su in (2, 3)}
    assert cov.representative["leaf-su3-r2"] == "leaf-su1-r2" and cov.representative["gpu010"] == "gpu002"
    assert all(rep in built for rep in cov.representative.values())
    assert cov.mode("gpu010") == "class" and cov.mode("spine01") == "direct"


def test_canonical_forms_equal_though_the_configs_differ() -> None:
    nodes, mtus = device_nodes(fabric(), *planned())
    one, three = nodes["leaf-su1-r1"], nodes["leaf-su3-r1"]
    assert classes.routing_lines(one) != classes.routing_lines(three)  # ASN, router id, addresses, networks
    assert classes.canonical(fabric(), "leaf-su1-r1", one, mtus) == classes.canonical(fabric(), "leaf-su3-r1",
                                                                                       three, mtus)


def _with_remote_asn(name: str, asn: int) -> SwitchIntent:
    leaf = planned()[0][name]
    assert isinstance(leaf, SwitchIntent)
    first = leaf.bgp.neighbors[0]
    neighbors = [first.model_copy(update={"remote_asn": asn}), *leaf.bgp.neighbors[1:]]
    return leaf.model_copy(update={"bgp": leaf.bgp.model_copy(update={"neighbors": neighbors})})


def test_a_wrong_asn_in_a_non_representative_su_is_built_with_what_it_needs() -> None:
    cov = cover(intents={"leaf-su3-r1": _with_remote_asn("leaf-su3-r1", 65999)})
    assert "leaf-su3-r1" not in cov.representative and cov.reasons["leaf-su3-r1"] == "differs from its class"
    su3 = {d.name for d in fabric().devices() if d.su == 3}
    assert su3 <= set(cov.built)  # its hosts, and their other leaf (the hosts' NICs need their cables)
    assert {n for n in cov.representative if su_of(n) == 2} == {d.name for d in fabric().devices() if d.su == 2}


def test_an_asn_that_means_something_else_is_still_a_difference() -> None:
    """The peer's ASN replaced by the leaf's own: a value with a meaning, but not this one."""
    own = planned()[0]["leaf-su2-r1"]
    assert isinstance(own, SwitchIntent)
    cov = cover(intents={"leaf-su2-r1": _with_remote_asn("leaf-su2-r1", own.bgp.asn)})
    assert cov.mode("leaf-su2-r1") == "direct"


def test_a_missing_maximum_paths_in_a_non_representative_su_is_built() -> None:
    files = dict(planned()[1]["leaf-su2-r2"].files)
    files["config.eos"] = without_maximum_paths(files["config.eos"])
    cov = cover(rendered={"leaf-su2-r2": RenderedDevice(name="leaf-su2-r2", platform="eos", files=files)})
    assert cov.mode("leaf-su2-r2") == "direct" and cov.reasons["leaf-su2-r2"] == "differs from its class"
    assert cov.mode("leaf-su3-r2") == "class"


def test_a_different_mtu_on_one_cable_is_a_difference() -> None:
    host = planned()[0]["gpu011"]
    nics = dict(host.nics)  # type: ignore[union-attr]
    nics["eth0"] = nics["eth0"].model_copy(update={"mtu": 1500})
    cov = cover(intents={"gpu011": host.model_copy(update={"nics": nics})})
    # the peer MTU is part of the leaf's cabling pattern too: the leaf differs and is built with its hosts
    assert cov.reasons["leaf-su3-r1"] == "differs from its class" and cov.mode("gpu011") == "direct"
    assert {n for n in cov.representative if su_of(n) == 2} == {d.name for d in fabric().devices() if d.su == 2}


def test_a_built_devices_cable_to_a_peer_not_built_must_match_one_to_a_built_peer() -> None:
    """spine01's stanza toward leaf-su2-r1 (not built) differs from the one toward leaf-su1-r1: the peer is
    built, so the session is run."""
    files = dict(planned()[1]["spine01"].files)
    su2 = next(n for n in planned()[0]["spine01"].bgp.neighbors if n.description == "leaf-su2-r1")  # type: ignore[union-attr]
    files["config.eos"] = files["config.eos"].replace(f"neighbor {su2.ip} remote-as {su2.remote_asn}",
                                                      f"neighbor {su2.ip} remote-as 65111")
    cov = cover(rendered={"spine01": RenderedDevice(name="spine01", platform="eos", files=files)})
    assert cov.mode("leaf-su2-r1") == "direct" and "spine01" in cov.reasons["leaf-su2-r1"]
    assert cov.mode("leaf-su3-r1") == "class"


def test_sub_fabric_keeps_only_cables_between_built_devices() -> None:
    cov = cover()
    sub = classes.sub_fabric(fabric(), cov.built)
    assert {d.name for d in sub.devices()} == set(cov.built)
    assert all(lk.a.device in cov.built and lk.b.device in cov.built for lk in sub.links)
    absent = classes.absent_peers(fabric(), set(cov.built))
    assert set(absent) == {f"spine0{i}" for i in range(1, 5)} and all(len(v) == 4 for v in absent.values())
