"""``verify routing``'s inputs made per device in forked workers (roceops.verify.inputs) are the ones the plane
would run: the same nodes, cable-end MTUs and canonical forms as the whole-fabric functions give from every
device's full render, and a wrong ASN given as an override still reaches the class argument."""

from __future__ import annotations

from conftest import example_dict
from frrkit import four_su_intent

from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.verify import classes
from roceops.verify.inputs import class_inputs, planned, routing_outputs
from roceops.verify.plane import device_nodes

FABRIC = expand(FabricIntent.model_validate(four_su_intent(example_dict("lab-mini"))))


def test_forked_inputs_equal_the_whole_fabric_ones() -> None:
    names = [d.name for d in FABRIC.devices()]
    intents = {n: plan(FABRIC, n) for n in names}
    full = {n: render_device(i) for n, i in intents.items()}  # every file, as verify rendered before
    nodes, mtus = device_nodes(FABRIC, intents, full)  # type: ignore[arg-type]
    forked_nodes, forked_mtus, forms = class_inputs(FABRIC, {}, {}, min_items=1)  # forked even for 80 devices
    assert forked_nodes == nodes and forked_mtus == mtus
    assert forms == {n: classes.canonical(FABRIC, n, nodes[n], mtus) for n in names}
    assert classes.cover(FABRIC, nodes, mtus) == classes.cover(FABRIC, forked_nodes, forked_mtus, forms=forms)


def test_only_the_routing_files_are_rendered_and_overrides_win() -> None:
    leaf = plan(FABRIC, "leaf-su3-r1")
    assert isinstance(leaf, SwitchIntent)
    wrong = leaf.model_copy(update={"bgp": leaf.bgp.model_copy(update={"asn": 65999})})
    intents, rendered = planned(FABRIC, ["leaf-su3-r1", "gpu001", "spine01"], {"leaf-su3-r1": wrong}, {})
    assert intents["leaf-su3-r1"] is wrong
    for name in intents:
        assert set(rendered[name].files) == routing_outputs(intents[name]), name
    assert set(routing_outputs(intents["gpu001"])) == {"netplan.yaml", "sysctl.conf"}
    cov = classes.cover(FABRIC, *class_inputs(FABRIC, {"leaf-su3-r1": wrong}, {}, min_items=1)[:2])
    assert "leaf-su3-r1" in cov.built and cov.reasons["leaf-su3-r1"] == "differs from its class"
