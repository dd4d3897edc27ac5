"""Golden files: one device per role and platform of each example, DeviceIntent JSON and rendered text.

Regenerate only on purpose: `python -m pytest tests/render/test_golden_devices.py --update-golden`, then
review the diff like any other change.
"""

from __future__ import annotations

import pytest
from conftest import GOLDEN, check_golden, example_dict

from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

CASES = {
    "fabric": ["leaf-su1-r1", "spine01", "gpu001"],
    "lab-mini": ["leaf-su1-r1", "leaf-su2-r1", "spine01", "gpu001"],
    "fabric-800g": ["leaf-su1-r1", "spine01", "gpu001"],
}
PARAMS = [(ex, dev) for ex, devs in CASES.items() for dev in devs]
_FABRICS: dict[str, object] = {}


def fabric_of(example: str):
    if example not in _FABRICS:
        _FABRICS[example] = expand(FabricIntent.model_validate(example_dict(example)))
    return _FABRICS[example]


@pytest.mark.parametrize(("example", "device"), PARAMS, ids=[f"{e}-{d}" for e, d in PARAMS])
def test_golden_intent_and_render(example: str, device: str, update_golden: bool) -> None:
    intent = plan(fabric_of(example), device)  # type: ignore[arg-type]
    base = GOLDEN / "devices" / example / device
    check_golden(base / "intent.json", intent.model_dump_json(indent=2) + "\n", update_golden)
    for filename, text in sorted(render_device(intent).files.items()):
        check_golden(base / filename, text, update_golden)
