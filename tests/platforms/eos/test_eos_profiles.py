"""EOS render by hardware profile: queue keyword, speed keyword, MTU, and the 7800R3 (Sand/VOQ) refusals."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from roceops.device.intent import SwitchIntent
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.eos import parsers as eos_parsers
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

sys.path.insert(0, str(Path(__file__).parents[2] / "lint"))
from lint_helpers import broken  # the lint tests' base fabric

SAND = "7800R3-48CQ-LC"


def _spine(hwsku: str, speed: str, *edits: tuple[str, Any]) -> tuple[FabricIntent, SwitchIntent]:
    data = broken(("switch_models.eos8", {"radix": 8, "port_speed": speed, "hwsku": hwsku}),
                  ("tiers.spine", {"model": "eos8", "platform": "eos"}), ("mtu.switch", 9214), *edits)
    intent = FabricIntent.model_validate(data)
    device = plan(expand(intent), "spine01")
    assert isinstance(device, SwitchIntent)
    return intent, device


def _sand(*edits: tuple[str, Any]) -> tuple[FabricIntent, SwitchIntent]:
    return _spine(SAND, "100G", ("node.nic_speed", "100G"), ("switch_models.sw8.port_speed", "100G"),
                  ("switch_models.sw8.hwsku", None), ("tiers.leaf.platform", "cumulus"),
                  ("tiers.spine.port_naming", {"pattern": "Ethernet3/{n}/1", "start": 1}), *edits)


@pytest.mark.parametrize(("hwsku", "speed", "keyword"), [("DCS-7060X6-64PE", "400g-4", "uc-tx-queue"),
                                                         ("DCS-7060DX5-64S", "400g-8", "uc-tx-queue")])
def test_xgs_profiles_render_their_queue_and_speed_keywords(hwsku: str, speed: str, keyword: str) -> None:
    _intent, device = _spine(hwsku, "400G")
    text = render_device(device).files["config.eos"]
    assert set(re.findall(r"\n   speed (\S+)\n", text)) == {speed}
    assert f"\n   {keyword} 3\n" in text and "\n   tx-queue" not in text
    observed = eos_parsers.observe_config(text)
    assert {(p.queues or {})[3].ecn is not None for p in (observed.ports or {}).values()} == {True}


def test_a_sand_tier_with_ecn_and_watchdog_is_refused_by_lint_and_by_the_render() -> None:
    intent, device = _sand()
    assert {f.id for f in lint(intent).errors} == {"HW027"}
    with pytest.raises(ValueError, match=r"no confirmed ECN syntax .*average VOQ length"):
        render_device(device)


def test_a_sand_tier_without_them_renders_tx_queue_and_chassis_names() -> None:
    intent, device = _sand(("qos.traffic_classes[0].ecn", None), ("qos.pfc_watchdog.enabled", False))
    assert lint(intent).errors == []
    text = render_device(device).files["config.eos"]
    assert "\ninterface Ethernet3/1/1\n" in text and "\n   speed 100g-4\n" in text
    assert "\n   tx-queue 3\n" in text and "uc-tx-queue" not in text and "random-detect" not in text
    assert "priority-flow-control priority 3 no-drop" in text and "pause watchdog" not in text
