"""Day-2 changes use only what `config apply-patch` accepts: a change of ECN thresholds and PFC-watchdog timers
between two renders, on every SONiC switch of every example fabric, judged by roceops' classifier and (on a
lab-mini leaf) by the vendor's own validators; and from a vendor-default switch, what the dry run sends as
apply-patch is accepted while the rest is planned as bring-up."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES
from gcu_oracle import gcu_check, need_oracles, vendor_default

from roceops.device.change import Change
from roceops.hardware import switch_profile
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.sonic import gcu
from roceops.platforms.sonic.driver import full_target, make_change, scoped
from roceops.platforms.sonic.route import route
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

RELEASES = ("202411", "202511")


def _tuned(data: dict[str, Any]) -> dict[str, Any]:
    """The same fabric with other ECN thresholds/probability and PFC-watchdog timers."""
    out = copy.deepcopy(data)
    for tc in out["qos"]["traffic_classes"]:
        if tc.get("ecn"):
            tc["ecn"] = {"min": "200KB", "max": "2000KB", "probability": 50}
    out["qos"]["pfc_watchdog"].update({"detect_ms": 300, "restore_ms": 600, "poll_ms": 150})
    return out


@cache
def day2_changes(example: str) -> tuple[tuple[str, str, str], ...]:
    """(name, hwsku, json of (current config, patch)) per SONiC switch of ``example``."""
    data = yaml.safe_load(EXAMPLES[example].read_text())
    fabrics = [expand(FabricIntent.model_validate(d)) for d in (data, _tuned(data))]
    out = []
    for sw in fabrics[0].switches:
        if sw.platform != "sonic":
            continue
        before, after = (json.loads(render_device(plan(f, sw.name)).files["config_db.json"]) for f in fabrics)
        src, dst = scoped(before, after)
        patch = make_change(src, dst, before).payload
        assert patch, f"{sw.name}: the two renders do not differ"
        out.append((sw.name, str(before["DEVICE_METADATA"]["localhost"]["hwsku"]), json.dumps([before, patch])))
    return tuple(out)


def _device(release: str, hwsku: str) -> gcu.Device:
    return gcu.Device(release, f"{release}10.1", gcu.asic_type_of(switch_profile(hwsku).asic_family.value), hwsku)


@pytest.mark.parametrize("example", sorted(EXAMPLES))
@pytest.mark.parametrize("release", RELEASES)
def test_day2_ecn_and_watchdog_change_is_accepted_or_planned_as_bringup(example: str, release: str) -> None:
    for name, hwsku, text in day2_changes(example):
        current, patch = json.loads(text)
        refused = [v for v in gcu.classify_all(patch, _device(release, hwsku)) if not v.accepted]
        tables = {op["path"].split("/")[1] for op in patch}
        assert tables <= {"WRED_PROFILE", "PFC_WD"}, (name, tables)  # expressed in the vendor's objects
        if gcu.gcu_asic(release, _device(release, hwsku).asic_type, hwsku) != gcu.UNKNOWN:
            assert refused == [], (name, release, [v.line() for v in refused])
        else:
            # a SKU no release's GCU lists (Dell-Z9864f-O64): the switch reads its ASIC as unknown and refuses
            # every PFC_WD/WRED op; the change is planned as bring-up, never sent as a doomed apply-patch
            assert refused and all("returned False" in v.message for v in refused), name
            target = full_target(current, Change(diff="", payload=patch))
            assert route(current, target, patch, hwsku, f"{release}10.1").path == "bringup", name


@pytest.mark.oracle
@pytest.mark.parametrize("release", RELEASES)
def test_the_vendor_validators_accept_the_day2_change(release: str) -> None:
    need_oracles()
    _name, _hwsku, text = day2_changes("lab-mini")[0]
    current, patch = json.loads(text)
    oracle = gcu_check(release, "mellanox", current, patch, f"{release}10.1")
    assert oracle["asic"] == "spc4" and oracle["refused"] == 0 and oracle["apply_patch"] == "passes", oracle
    assert oracle["diff_ops"] == len(patch) > 0


@pytest.mark.oracle
@pytest.mark.parametrize("release", RELEASES)
def test_from_a_vendor_default_apply_patch_ops_are_accepted_and_the_rest_is_bringup(release: str) -> None:
    """The SKU's own buffers/qos templates (sonic-cfggen) as the switch's config: the dry run's route, checked."""
    need_oracles()
    intent = plan(expand(FabricIntent.model_validate(yaml.safe_load(EXAMPLES["lab-mini"].read_text()))),
                  "leaf-su1-r1")
    rendered = json.loads(render_device(intent).files["config_db.json"])
    current = vendor_default(rendered)
    src, dst = scoped(current, rendered)
    change = make_change(src, dst, current)
    build = f"{release}10.1"
    path = route(current, full_target(current, change), change.payload, str(intent.hwsku), build)
    oracle = gcu_check(release, "mellanox", current, change.payload, build)
    verdicts = gcu.classify_all(change.payload, _device(release, str(intent.hwsku)))
    refused = {(v.op, v.path) for v in verdicts if not v.accepted}
    assert refused == {(o["op"], o["path"]) for o in oracle["ops"] if o["verdict"] == "refused"}
    assert path.path == "bringup" and refused  # PFC_WD and the SKU's missing buffer objects need it
    accepted = [op for op, v in zip(change.payload, verdicts, strict=True) if v.accepted]
    alone = gcu_check(release, "mellanox", current, accepted, build)  # what day-2 could send: all accepted
    assert alone["refused"] == 0, [o for o in alone["ops"] if o["verdict"] == "refused"]
