"""GCU field-operation rules as data (gcu_rules.json) and roceops' classifier of JSON-patch operations, checked by
hand-made operations and against the vendor's own validators (../shared/oracles/sonic-gcu)."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import jsonpatch
import pytest
import yaml
from conftest import EXAMPLES, SHARED
from gcu_oracle import gcu_check, need_oracles, vendor_default

from roceops.device.intent import SwitchIntent
from roceops.hardware import switch_profile
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.sonic import gcu
from roceops.platforms.sonic.driver import make_change, scoped
from roceops.platforms.sonic.gcu_import import build, dumps
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

SN5600 = gcu.Device("202411", "202411.1", "mellanox", "Mellanox-SN5600-O128")
REFUSED_WRED = ("Modification of WRED_PROFILE table is illegal- validating function "
                "generic_config_updater.field_operation_validators.rdma_config_update_validator returned False")


def _op(op: str, path: str, value: Any = None) -> dict[str, Any]:
    return {"op": op, "path": path, **({"value": value} if value is not None else {})}


def test_shipped_rules_equal_a_fresh_build_with_provenance() -> None:
    root = SHARED / "oracles" / "sonic-gcu"
    if not root.is_dir():
        pytest.skip("../shared/oracles/sonic-gcu is absent")
    fresh = build(root)
    assert dumps(fresh) == gcu.RULES_FILE.read_text(), "rebuild: python -m roceops.platforms.sonic.gcu_import " \
                                                      "../shared/oracles/sonic-gcu"
    src = fresh["releases"]["202411"]["source"]
    assert src["repo"] == "sonic-net/sonic-utilities" and src["commit"].startswith("ac66b67e")
    assert {f["path"] for f in src["files"]} >= {"generic_config_updater/gcu_field_operation_validators.conf.json"}
    assert all(len(f["sha256"]) == 64 for f in src["files"])


def test_202411_refuses_a_new_wred_profile_and_accepts_azure_lossless_green_replace() -> None:
    refused = gcu.classify(_op("add", "/WRED_PROFILE/X", {"ecn": "ecn_all"}), SN5600)
    assert not refused.accepted and refused.message == REFUSED_WRED
    for field in ("green_min_threshold", "green_max_threshold", "green_drop_probability"):
        assert gcu.classify(_op("replace", f"/WRED_PROFILE/AZURE_LOSSLESS/{field}", "1000"), SN5600).accepted
    assert not gcu.classify(_op("replace", "/WRED_PROFILE/AZURE_LOSSLESS/yellow_min_threshold", "1"), SN5600).accepted
    # 202511 dropped the WRED_PROFILE validator
    assert gcu.classify(_op("add", "/WRED_PROFILE/X", {"ecn": "ecn_all"}),
                        gcu.Device("202511", "202511.1", "mellanox", "Mellanox-SN5600-O128")).accepted


def test_pfc_watchdog_rules_per_operation_shape() -> None:
    assert gcu.classify(_op("replace", "/PFC_WD/Ethernet0/detection_time", "400"), SN5600).accepted
    assert gcu.classify(_op("replace", "/PFC_WD/GLOBAL/POLL_INTERVAL", "200"), SN5600).accepted
    assert gcu.classify(_op("add", "/PFC_WD/Ethernet8", {"action": "drop", "detection_time": "200"}), SN5600).accepted
    whole = gcu.classify(_op("add", "/PFC_WD", {"GLOBAL": {"POLL_INTERVAL": "200"}}), SN5600)
    assert not whole.accepted  # the keys of the table (GLOBAL, ports) are no scenario's fields
    illegal = gcu.classify(_op("remove", "/PFC_WD/GLOBAL"), SN5600)
    assert illegal.message == "Given patch operation is invalid. Operation: remove is illegal on field: /PFC_WD/GLOBAL"


def test_asic_from_release_lists_and_build_date_gate() -> None:
    assert gcu.gcu_asic("202305", "mellanox", "Mellanox-SN5600-O128") == gcu.UNKNOWN  # 202305 does not list it
    assert gcu.gcu_asic("202411", "broadcom", "Dell-Z9864f-O64") == gcu.UNKNOWN  # no release lists the Dell SKU
    old = gcu.Device("202411", "20221010.1", "mellanox", "Mellanox-SN5600-O128")  # before spc4's 20221100
    assert not gcu.classify(_op("replace", "/PFC_WD/Ethernet0/action", "drop"), old).accepted
    assert gcu.release_of("201911.5") is None
    unknown = gcu.Device(None, "201911.5", "mellanox", "Mellanox-SN5600-O128")
    assert not gcu.classify(_op("replace", "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold", "1"), unknown).accepted
    assert gcu.classify(_op("replace", "/PORT_QOS_MAP/Ethernet0/pfc_enable", "3"), unknown).accepted


@cache
def lab_mini_leaf() -> SwitchIntent:
    """lab-mini's first SONiC leaf (8 ports: the oracle judges op by op, so a small switch keeps it fast)."""
    fab = expand(FabricIntent.model_validate(yaml.safe_load(EXAMPLES["lab-mini"].read_text())))
    return plan(fab, next(sw.name for sw in fab.switches if sw.platform == "sonic"))


def _asic_type(intent: SwitchIntent) -> str:
    assert intent.hwsku is not None
    found = gcu.asic_type_of(switch_profile(intent.hwsku).asic_family.value)
    assert found is not None
    return found


@pytest.mark.oracle
@pytest.mark.parametrize("release", ["202305", "202411", "202511"])
def test_classifier_agrees_with_the_vendor_validators_from_a_vendor_default(release: str) -> None:
    """Every op of the diff GCU validates (vendor default -> roceops' render): same verdict, same message."""
    need_oracles()
    compared = 0
    for intent in (lab_mini_leaf(),):
        rendered = json.loads(render_device(intent).files["config_db.json"])
        current = vendor_default(rendered)
        src, dst = scoped(current, rendered)
        patch = make_change(src, dst, current).payload
        target = jsonpatch.apply_patch(copy.deepcopy(current), patch)
        diff = list(jsonpatch.make_patch(current, target))
        build_version = f"{release}10.1"
        oracle = gcu_check(release, _asic_type(intent), current, patch, build_version)
        device = gcu.Device(release, build_version, _asic_type(intent), str(intent.hwsku))
        assert len(oracle["ops"]) == len(diff)
        for want, op in zip(oracle["ops"], diff, strict=True):
            if "validated_as" in want:
                continue  # GCU re-diffed this op into another shape
            mine = gcu.classify(op, device)
            assert (want["op"], want["path"]) == (op["op"], op["path"])
            assert mine.accepted == (want["verdict"] != "refused"), (intent.hwsku, release, want, mine)
            if not mine.accepted:
                assert mine.message == want["message"]
            compared += 1
    assert compared > 100


@pytest.mark.oracle
def test_a_sku_no_release_lists_is_read_as_unknown_by_both() -> None:
    """Dell-Z9864f-O64 (Tomahawk 5) is in no release's th5 list: GCU refuses every guarded op on it."""
    need_oracles()
    current = {"DEVICE_METADATA": {"localhost": {"hwsku": "Dell-Z9864f-O64"}},
               "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}, "Ethernet0": {"action": "drop", "detection_time": "200",
                                                                            "restoration_time": "200"}},
               "WRED_PROFILE": {"AZURE_LOSSLESS": {"green_min_threshold": "1048576"}}}
    patch = [_op("replace", "/PFC_WD/Ethernet0/detection_time", "400"),
             _op("replace", "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold", "2097152")]
    oracle = gcu_check("202411", "broadcom", current, patch, "20241110.1")
    assert oracle["asic"] == gcu.UNKNOWN
    device = gcu.Device("202411", "20241110.1", "broadcom", "Dell-Z9864f-O64")
    assert [(o["verdict"], o["message"]) for o in oracle["ops"]] == [
        ("refused", v.message) for v in gcu.classify_all(patch, device)]
