"""A platform added as one room (tests/platforms/tinynos: PLATFORM, driver, templates, simulated device) runs
through validate -> render -> lab -> audit without any other file of roceops knowing its name."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import example_dict
from labtools import free_endpoint_base, netmiko_connect
from tinynos import PLATFORM

from roceops import registry
from roceops.audit.engine import AuditOptions, run_audit
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.lint import lint
from roceops.model.loader import load
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.verify.plane import build_plane


@pytest.fixture
def tinynos() -> Iterator[None]:
    registry.register(PLATFORM)
    try:
        yield
    finally:
        registry.unregister(PLATFORM.name)


def _fabric_file(tmp_path: Path) -> Path:
    data = example_dict("lab-mini")
    data["tiers"]["spine"]["platform"] = "tinynos"
    path = tmp_path / "fabric.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_an_unregistered_platform_is_refused(tmp_path: Path) -> None:
    from roceops.model.loader import IntentError

    with pytest.raises(IntentError, match=r"tiers\.spine\.platform"):
        load(_fabric_file(tmp_path))


def test_a_platform_without_frr_translation_is_named_in_the_routing_plane(tinynos: None, tmp_path: Path) -> None:
    """Platform.routing_translation defaults to None: verify routing names the switch, the others translate."""
    fabric = expand(load(_fabric_file(tmp_path)).intent)
    intents = {d.name: plan(fabric, d.name) for d in fabric.devices()}
    plane = build_plane("rv0test", fabric, intents, {n: render_device(i) for n, i in intents.items()})
    tiny = {n for n, s in plane.switches.items() if s.platform == "tinynos"}
    assert tiny and all(plane.switches[n].error == "TinyNOS has no routing translation for `verify routing`"
                        for n in tiny)
    assert all(s.bgpd_conf and not s.error for n, s in plane.switches.items() if n not in tiny)


@pytest.mark.lab
def test_extra_platform_validates_renders_serves_and_audits(tinynos: None, tmp_path: Path) -> None:
    source = load(_fabric_file(tmp_path))  # validate: the registry's names are the model's platforms
    fabric = expand(source.intent)
    assert lint(source.intent, fabric).ok
    spines = [s.name for s in fabric.switches if s.platform == "tinynos"]
    intent = plan(fabric, spines[0])
    assert intent.ports and all(name.startswith("port") for name in intent.ports)  # the room's port naming
    config = json.loads(render_device(intent).files["config.json"])  # render: the room's own templates
    assert config["ports"] == {n: {"mtu": p.mtu, "pfc": p.pfc_priorities} for n, p in intent.ports.items()}

    base, port = free_endpoint_base()
    lab = LabThread(lab_specs(fabric, spines, configured=True), tmp_path / "lab", base_address=base,
                    port=port).start()
    try:
        opts = AuditOptions(lab_dir=tmp_path / "lab", quiet=True, timeout_s=30)
        clean = run_audit(fabric, spines, opts)  # audit: the room's driver against its simulated device
        assert (clean.exit_code, clean.findings) == (0, [])

        drifted_port = next(iter(intent.ports))
        conn = netmiko_connect(lab, spines[0], "tinynos")
        conn.send_command(f"set-mtu {drifted_port} 1500")
        conn.disconnect()
        drifted = run_audit(fabric, spines, opts)
        assert drifted.exit_code == 1
        assert [(f.device, f.path, f.observed) for f in drifted.findings] == \
            [(spines[0], f"ports[{drifted_port}].mtu", 1500)]
    finally:
        lab.stop()
