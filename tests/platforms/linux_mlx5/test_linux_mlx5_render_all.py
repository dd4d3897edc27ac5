"""A host's full render (``render_device`` without ``only``: ``roceops render``, the API, the lab) goes through the
room's ``render_all``: the files whose templates only print the host's own values come from its class's rendering
filled in per host, the others from their templates; byte for byte, and in order, what each template gives."""

from __future__ import annotations

import pytest
from conftest import example_dict

from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.linux_mlx5 import persisted as by_class
from roceops.platforms.linux_mlx5.render import FIRMWARE_SCRIPT
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Host

OUTPUTS = get_platform("linux_mlx5").outputs
ALL = [o.filename for o in OUTPUTS]


@pytest.mark.parametrize("example", ["lab-mini", "fabric", "fabric-800g"])
def test_every_host_renders_exactly_what_each_template_gives(example: str) -> None:
    fabric = expand(FabricIntent.model_validate(example_dict(example)))
    hosts = [plan(fabric, d.name) for d in fabric.devices() if isinstance(d, Host)]
    assert len(hosts) >= 8
    for intent in hosts:
        whole = render_device(intent).files
        assert list(whole.items()) == list(render_device(intent, only=ALL).files.items()), intent.name


def test_the_full_render_uses_the_class_rendering_and_the_firmware_script_its_template(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_platform("linux_mlx5").code.render_all is by_class.all_files
    assert by_class._by_class(OUTPUTS) == tuple(n for n in ALL if n != FIRMWARE_SCRIPT)  # it reads the firmware
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    by_class._CACHE._items.clear()
    templated: list[tuple[str, ...]] = []
    real = by_class.render_device
    monkeypatch.setattr(by_class, "render_device",
                        lambda i, only, context=None: templated.append(tuple(only)) or real(i, only=only,
                                                                                           context=context))
    hosts = [d.name for d in fabric.devices() if isinstance(d, Host)]
    for name in hosts:
        assert FIRMWARE_SCRIPT in render_device(plan(fabric, name)).files
    assert len(by_class._CACHE._items) == 1  # one class of hosts: one marked rendering
    assert templated == [(FIRMWARE_SCRIPT,)] * len(hosts)  # every other file filled in from the class


def test_a_host_value_that_needs_escaping_still_renders_exactly() -> None:
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    intent = plan(fabric, "gpu001")
    nic = next(iter(intent.nics))
    odd = intent.model_copy(update={"nics": {**intent.nics, nic: intent.nics[nic].model_copy(
        update={"leaf": 'leaf"quoted'})}})
    assert list(render_device(odd).files.items()) == list(render_device(odd, only=ALL).files.items())
