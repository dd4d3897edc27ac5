"""Issue 24: what is not a valid fabric although every field has the right type (ADDR003, HW009, HW010, BUF002,
ECN011, NOS001), on the shipped lab-mini example as a user would edit it."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from conftest import EXAMPLES
from lint_helpers import broken, run

from roceops.device.facts import unsupported_release
from roceops.lint import lint
from roceops.model.intent import FabricIntent


def _mini(**edits: Any) -> set[str]:
    data = yaml.safe_load(EXAMPLES["lab-mini"].read_text())
    for dotted, value in edits.items():
        *parents, last = dotted.split("__")
        node = data
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return {f.id for f in lint(FabricIntent.model_validate(data)).errors}


@pytest.mark.parametrize(("pool", "net"), [
    ("loopbacks", "127.0.0.0/24"), ("p2p", "0.0.0.0/24"), ("hosts", "224.0.0.0/16"), ("p2p", "169.254.0.0/24"),
    ("loopbacks", "255.255.255.0/24"), ("management", "192.0.2.0/24"), ("management", "203.0.113.0/24"),
])
def test_reserved_pools_are_errors(pool: str, net: str) -> None:
    assert "ADDR003" in _mini(**{f"addressing__{pool}": net})


def test_documentation_ranges_are_fine_inside_the_fabric() -> None:
    assert "ADDR003" not in _mini(addressing__p2p="198.51.100.0/24")


def test_a_banana_nic_or_node_does_not_validate() -> None:
    assert _mini(node__nic_model="banana") == {"HW010"}
    data = yaml.safe_load(EXAMPLES["lab-mini"].read_text())
    del data["node"]["gpus"]
    data["node"]["model"] = "banana"
    assert {f.id for f in lint(FabricIntent.model_validate(data)).errors} == {"HW009"}
    assert _mini(node__model="banana") == set()  # a custom node model that gives its specs is fine


def test_absurd_buffer_sizes_and_fractional_thresholds() -> None:
    assert "BUF002" in _mini(**{"switch_models__eos-8x400g__buffer_bytes": 2**70})
    report = run(broken(("qos.traffic_classes[0].ecn", {"min": 150.5, "max": "1500KB"})))
    assert "ECN011" in report.ids


@pytest.mark.parametrize("version", ["202305", "202411", "202511", "202512", "201811", "20230531", "banana"])
def test_lint_and_deploy_agree_on_supported_releases(version: str) -> None:
    flagged = "NOS001" in _mini(tiers__leaf__nos_version=version)
    assert flagged == (unsupported_release("sonic", version) is not None)


def test_an_override_release_is_checked_against_its_platform() -> None:
    assert "NOS001" in _mini(overrides__groups={"spine": {"platform": "eos", "nos_version": "4.20"}})
