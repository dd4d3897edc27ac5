"""plan_ports builds each switch port once with what its SKU adds (``hardware.PortHardware``): the same ports and
breakouts as planning the ports first and then copying each with the SKU's lanes, alias, index, profile lists and
vendor headroom (the path before), for every switch of the example fabrics in each buffer model, and of a lab
fabric with and without a hwsku. And ``_network_of``'s text arithmetic is ipaddress's."""

from __future__ import annotations

import copy
import ipaddress
import re
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES
from hypothesis import given
from hypothesis import strategies as st
from test_plan_construct import same

from roceops.device.intent import SwitchPort
from roceops.hardware.front_panel import FrontPanelPort, front_panel_of
from roceops.model.intent import FabricIntent
from roceops.plan import hardware, plan
from roceops.plan.switch import _network_of, plan_ports
from roceops.platforms.base import get_platform
from roceops.topology.expand import expand
from roceops.topology.fabric import Switch

LAB = {
    "name": "lab-2su", "node": {"rails": 8}, "scalable_units": {"count": 2, "nodes_per_su": 4},
    "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
    "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
              "core": {"model": "sw64", "platform": "cumulus"}},
    "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                   "management": "172.16.0.0/12"},
    "overrides": {"groups": {"su2": {"platform": "cumulus"}}},
}


def fabrics() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, path in sorted(EXAMPLES.items()):
        raw = yaml.safe_load(path.read_text())
        out.append((name, raw))
        for model in ("dynamic", "traditional"):
            changed = copy.deepcopy(raw)
            changed.setdefault("qos", {}).setdefault("buffers", {})["model"] = model
            out.append((f"{name}-{model}", changed))
    no_sku = copy.deepcopy(LAB)
    del no_sku["switch_models"]["sw64"]["hwsku"]
    return [*out, ("lab-2su", LAB), ("lab-2su-no-hwsku", no_sku)]


def _port_facts(sw: Switch, ports: dict[str, SwitchPort], host_breakout: str | None) -> dict[str, FrontPanelPort]:
    """The SKU port behind each used port, as the path before found them."""
    whole = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed) or ()}
    children: dict[str, FrontPanelPort] = {}
    if host_breakout is not None and sw.role == "leaf":
        children = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed, host_breakout) or ()}
    out: dict[str, FrontPanelPort] = {}
    for name, port in ports.items():
        hw = (children if port.role == "host" and children else whole).get(name)
        if hw is not None:
            out[name] = hw
    return out


def ports_before(fabric: Any, sw: Switch) -> tuple[dict[str, SwitchPort], dict[str, int]]:
    """plan_switch's ports and breakouts the way before: planned without the SKU, then one copy per port."""
    intent = fabric.intent
    profile = hardware.profile_of(sw)
    sku_built = get_platform(sw.platform).sku_built
    spec = hardware.buffer_spec_of(sw, profile) if profile is not None and sku_built else None
    vendor_managed = sku_built and profile is not None and profile.vendor_managed_buffers is not None
    host_breakout = intent.switch_models[sw.model].host_breakout
    headroom = (hardware.VendorHeadroom(profile, spec, intent.qos.buffers.model)
                if profile is not None and (spec is not None or vendor_managed) else None)
    ports = plan_ports(intent, fabric, sw)
    facts = _port_facts(sw, ports, host_breakout)
    out: dict[str, SwitchPort] = {}
    for name, port in ports.items():
        hw = facts.get(name)
        update: dict[str, object] = {}
        if hw is not None:
            update.update(lanes=list(hw.lanes), alias=hw.alias, index=hw.index)
        if spec is not None:
            update.update(ingress_profiles=list(spec.ingress_profile_list),
                          egress_profiles=list(spec.egress_profile_list))
        if headroom is not None and port.headroom:
            pgs = headroom.of(port.speed, port.cable_length, port.mtu, port.headroom,
                              len(hw.lanes) if hw is not None else 0)
            if pgs is not None:
                update["headroom"] = pgs
        out[name] = port.model_copy(update=update) if update else port
    facts = _port_facts(sw, out, host_breakout)
    breakouts = {hw.cage: hw.breakout for name in sorted(out) if (hw := facts.get(name)) and hw.breakout > 1}
    return out, breakouts


@pytest.mark.parametrize(("name", "raw"), fabrics(), ids=[n for n, _ in fabrics()])
def test_ports_built_once_are_the_ports_copied_with_their_hardware(name: str, raw: dict[str, Any]) -> None:
    fabric = expand(FabricIntent.model_validate(raw))
    planned = refused = 0
    for sw in fabric.switches:
        try:
            ports, breakouts = ports_before(fabric, sw)
        except hardware.NoVendorHeadroom as exc:  # the same refusal, for the same port, either way
            with pytest.raises(hardware.NoVendorHeadroom, match=re.escape(str(exc))):
                plan(fabric, sw.name)
            refused += 1
            continue
        got = plan(fabric, sw.name)
        same(got.ports, ports, f"{name}:{sw.name}")  # type: ignore[union-attr]
        assert got.breakouts == breakouts  # type: ignore[union-attr]
        planned += 1
    # the Dell SKU has no dynamic buffer calculation: its leaves are refused
    assert (planned, refused > 0) == ((0, True) if name == "fabric-800g-dynamic" else (len(fabric.switches), False))


@given(st.ip_addresses(v=4), st.integers(0, 32))
def test_network_of_is_ipaddress_network(address: ipaddress.IPv4Address, plen: int) -> None:
    text = f"{address}/{plen}"
    assert _network_of(text) == str(ipaddress.IPv4Interface(text).network)
