"""roceops' EOS config against Arista AVD's ``eos_cli_config_gen`` (pyavd) for one leaf and one spine of each EOS
hardware profile: the same settings given to pyavd as structured config render the same EOS lines, except the
differences documented in docs/platforms.md ("EOS against AVD") and listed here. Skips without pyavd (the ``avd``
extra: ``pip install -e '.[avd]'``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.eos.render import render_context
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

sys.path.insert(0, str(Path(__file__).parents[2] / "lint"))
from avd_mapping import PROFILE, structured_config
from lint_helpers import broken  # the lint tests' base fabric

pyavd = pytest.importorskip("pyavd", reason="pyavd is not installed (optional extra 'avd')")

Line = tuple[str, ...]  # a config line with its parent sections, e.g. ("interface Ethernet1/1", "mtu 9214")


def _fabric(hwsku: str) -> FabricIntent:
    """The lint base fabric with EOS leaves and spines of one hardware profile."""
    edits: list[tuple[str, Any]] = [
        ("switch_models.eos8", {"radix": 8, "port_speed": "400G", "hwsku": hwsku}),
        ("tiers.leaf", {"model": "eos8", "platform": "eos"}), ("tiers.spine", {"model": "eos8", "platform": "eos"}),
        ("mtu.switch", 9214)]
    if hwsku == "7800R3-48CQ-LC":  # 100G line card, chassis names, no ECN/watchdog (lint HW017)
        edits += [("switch_models.eos8.port_speed", "100G"), ("node.nic_speed", "100G"),
                  ("tiers.leaf.port_naming", {"pattern": "Ethernet3/{n}/1", "start": 1}),
                  ("tiers.spine.port_naming", {"pattern": "Ethernet3/{n}/1", "start": 1}),
                  ("qos.traffic_classes[0].ecn", None), ("qos.pfc_watchdog.enabled", False)]
    return FabricIntent.model_validate(broken(*edits))


def avd_config(ctx: dict[str, Any]) -> str:
    result = pyavd.validate_structured_config(structured_config(ctx))
    assert not result.validation_result.violations, [(v.path, v.message) for v in result.validation_result.violations]
    return str(pyavd.get_device_config(result.validated_data))


def lines(text: str) -> list[Line]:
    """Every config line with its parent sections, in order; ``!`` separators and blank lines dropped."""
    out: list[Line] = []
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        body = raw.strip()
        if not body or body.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        out.append((*(s for _, s in stack), body))
        stack.append((indent, body))
    return out


def inline_profiles(avd: list[Line]) -> list[Line]:
    """D1: AVD applies the per-interface QoS through ``qos profile``/``service-profile``; EOS applies a qos profile's
    lines to each interface that names it (shared/reference/platforms.md 3.2), so they are put inline here."""
    profile = [line[1:] for line in avd if line[0] == f"qos profile {PROFILE}" and len(line) > 1]
    out: list[Line] = []
    for line in avd:
        if line[0] == f"qos profile {PROFILE}":
            continue
        if len(line) == 2 and line[1] == f"service-profile {PROFILE}":
            out += [(line[0], *p) for p in profile]
            continue
        out.append(line)
    return out


def networks_in_address_family(ours: list[Line]) -> list[Line]:
    """D2: roceops writes ``network`` directly under ``router bgp``; AVD under ``address-family ipv4`` (the same
    IPv4 unicast announcement, EOS takes both); compared here in AVD's place."""
    return [(line[0], "address-family ipv4", line[1]) if line[0].startswith("router bgp ") and len(line) == 2
            and line[1].startswith("network ") else line for line in ours]


def normalized(ours_text: str, avd_text: str) -> tuple[list[Line], list[Line]]:
    ours = networks_in_address_family(lines(ours_text))
    avd = [line for line in inline_profiles(lines(avd_text)) if line[-1] != "address-family ipv4"]  # D2's header
    return ours, avd


def _sections(ls: list[Line]) -> dict[str, list[Line]]:
    """Lines by top-level section, each section's lines in order (D3: the sections' order is not compared)."""
    out: dict[str, list[Line]] = {}
    for line in ls:
        out.setdefault(line[0], []).append(line)
    return out


@pytest.mark.parametrize("hwsku", ["DCS-7060X6-64PE", "DCS-7060DX5-64S", "7800R3-48CQ-LC"])
@pytest.mark.parametrize("device", ["leaf-su1-r1", "spine01"])
def test_eos_config_matches_avd_but_for_documented_differences(hwsku: str, device: str) -> None:
    intent = plan(expand(_fabric(hwsku)), device)
    assert isinstance(intent, SwitchIntent) and intent.hwsku == hwsku
    ctx = render_context(intent)
    ours, avd = normalized(render_device(intent).files["config.eos"], avd_config(ctx))
    mine, theirs = _sections(ours), _sections(avd)
    assert sorted(mine) == sorted(theirs)  # the same sections (D3: in another order)
    for section in mine:
        assert mine[section] == theirs[section], section  # line for line, in order, inside each section


def test_the_documented_differences_are_the_only_ones() -> None:
    """Without D1-D3 the two texts differ exactly there: profile vs inline QoS, network placement, section order."""
    intent = plan(expand(_fabric("DCS-7060X6-64PE")), "spine01")
    assert isinstance(intent, SwitchIntent)
    ctx = render_context(intent)
    ours, avd = lines(render_device(intent).files["config.eos"]), lines(avd_config(ctx))
    only_ours, only_avd = set(ours) - set(avd), set(avd) - set(ours)
    assert {line[1] for line in only_ours if line[0].startswith("router bgp ")} == {f"network {intent.loopback}"}
    assert {line[0] for line in only_avd} == {f"qos profile {PROFILE}", *(f"interface {p}" for p in intent.ports),
                                              f"router bgp {intent.bgp.asn}"}
    assert all(line[-1] == f"service-profile {PROFILE}" for line in only_avd if line[0].startswith("interface "))
    per_interface = {line[1:] for line in only_ours if line[0].startswith("interface ")}
    assert per_interface == {line[1:] for line in only_avd if line[0] == f"qos profile {PROFILE}" and len(line) > 1}
    # the ECN lines of a tx-queue in AVD's order (thresholds, then the counter), aligned in roceops
    assert [line[-1].split(" ", 3)[2] for line in ours if line[-1].startswith("random-detect ecn")][:2] == [
        "minimum-threshold", "count"]
