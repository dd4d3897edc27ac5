"""Lint against model profiles (roceops/hardware/model_catalogue): EOS spines of each profile, each rule broken once."""

from __future__ import annotations

from typing import Any

import pytest
from lint_helpers import broken, run

from roceops.hardware.model_profiles import model_profile, model_profile_names

SAND = "7800R3-48CQ-LC"


def _eos_spine(hwsku: str, speed: str = "400G", *edits: tuple[str, Any]) -> dict[str, Any]:
    """The lint base with its spines on EOS, model ``hwsku`` (leaves stay the SONiC SKU)."""
    return broken(("switch_models.eos8", {"radix": 8, "port_speed": speed, "hwsku": hwsku}),
                  ("tiers.spine", {"model": "eos8", "platform": "eos"}), ("mtu.switch", 9214), *edits)


def _ids(data: dict[str, Any]) -> set[str]:
    return {f.id for f in run(data).findings}


@pytest.mark.parametrize("hwsku", ["DCS-7060X6-64PE", "DCS-7060DX5-64S"])
def test_an_eos_spine_on_an_xgs_profile_lints_clean(hwsku: str) -> None:
    assert _ids(_eos_spine(hwsku)) == set()


def test_every_profile_fact_has_a_source() -> None:
    for name in model_profile_names():
        p = model_profile(name)
        sources = [p.asic.source, p.ports.source, p.mtu.source, p.queues.keyword_source, p.queues.configurable_source,
                   p.queues.lossless_source, p.ecn.source, p.pfc.source, p.pfc_watchdog.source,
                   p.load_balancing.source, *(s.source for s in p.speeds)]
        assert all(len(s) > 20 for s in sources), name
        # a construct the profile supports carries a vendor path at a commit or a URL, never only "unconfirmed"
        for feature in (p.ecn, p.pfc, p.pfc_watchdog):
            assert not feature.supported or "@" in feature.source or "https://" in feature.source


def test_hw010_a_profile_of_another_platform() -> None:
    data = broken(("switch_models.sw8.hwsku", "DCS-7060X6-64PE"))  # a SONiC tier naming an EOS profile
    hit = next(f for f in run(data).findings if f.id == "HW020")
    assert hit.path == "switch_models.sw8.hwsku" and "eos hardware profile" in hit.message


def test_hw011_radix_over_the_cages() -> None:
    hit = next(f for f in run(_eos_spine("DCS-7060X6-64PE", "400G", ("switch_models.eos8.radix", 65))).findings
               if f.id == "HW021")
    assert "64 OSFP ports" in hit.message and "quicksilver.py" in hit.message


def test_hw012_a_speed_without_a_confirmed_keyword() -> None:
    report = run(_eos_spine("DCS-7060X6-64PE", "800G", ("node.nic_speed", "800G"), ("switch_models.sw8.port_speed",
                            "800G"), ("switch_models.sw8.hwsku", "Mellanox-SN5600-O128")))
    hit = next(f for f in report.findings if f.id == "HW022")
    assert hit.path == "switch_models.eos8.port_speed" and "no source confirms 800G" in hit.message


def test_hw013_chassis_port_names_and_the_naming_that_fixes_them() -> None:
    wrong = _eos_spine(SAND, "100G", ("node.nic_speed", "100G"), ("switch_models.sw8.port_speed", "100G"),
                       ("switch_models.sw8.hwsku", None), ("tiers.leaf.platform", "cumulus"),
                       ("qos.traffic_classes[0].ecn", None), ("qos.pfc_watchdog.enabled", False))
    hit = next(f for f in run(wrong).findings if f.id == "HW023")
    assert "Ethernet1/1 is not a 7800R3-48CQ-LC port" in hit.message
    right = broken(("tiers.spine.port_naming", {"pattern": "Ethernet3/{n}/1", "start": 1}))
    fixed = {**wrong, "tiers": {**wrong["tiers"], "spine": {**wrong["tiers"]["spine"], **right["tiers"]["spine"]}}}
    assert "HW023" not in _ids(fixed)


def test_hw014_an_mtu_above_the_profile_is_rendered_at_its_maximum() -> None:
    hit = next(f for f in run(_eos_spine("DCS-7060X6-64PE", "400G", ("mtu.switch", 9216))).findings
               if f.id == "HW024")
    assert "rendered as 9214" in hit.message and hit.severity == "warning"


def test_hw016_queue_7_on_sand_is_refused_before_4_33_and_accepted_from_it() -> None:
    sand = _eos_spine(SAND, "100G", ("node.nic_speed", "100G"), ("switch_models.sw8.port_speed", "100G"),
                      ("switch_models.sw8.hwsku", None), ("tiers.leaf.platform", "cumulus"),
                      ("tiers.spine.port_naming", {"pattern": "Ethernet3/{n}/1", "start": 1}),
                      ("qos.traffic_classes[0].ecn", None), ("qos.pfc_watchdog.enabled", False),
                      ("qos.traffic_classes[1].priority", 7), ("qos.cnp", {"dscp": 48, "priority": 7}))
    hit = next(f for f in run(sand).findings if f.id == "HW026")
    assert "queue 7, not configurable on 7800R3-48CQ-LC" in hit.message and "4.33.0F" in hit.message
    pinned = broken(("tiers.spine.nos_version", "4.33"))
    sand["tiers"]["spine"]["nos_version"] = pinned["tiers"]["spine"]["nos_version"]
    assert "HW026" not in _ids(sand)


def test_hw017_sand_refuses_ecn_and_the_watchdog_with_the_source_backed_reason() -> None:
    sand = _eos_spine(SAND, "100G", ("node.nic_speed", "100G"), ("switch_models.sw8.port_speed", "100G"),
                      ("switch_models.sw8.hwsku", None), ("tiers.leaf.platform", "cumulus"),
                      ("tiers.spine.port_naming", {"pattern": "Ethernet3/{n}/1", "start": 1}))
    hits = [f for f in run(sand).findings if f.id == "HW027"]
    assert {h.message.split(": ", 1)[0] for h in hits} == {
        "tier spine (7800R3-48CQ-LC) has no confirmed ecn", "tier spine (7800R3-48CQ-LC) has no confirmed pfc watchdog"}
    assert any("average VOQ length" in h.message for h in hits)
