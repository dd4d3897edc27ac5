"""The simulated switch's `config apply-patch` field-operation check, as sonic-utilities' generic_config_updater
does it (``ConfigWrapper.validate_field_operation`` in gu_common.py and field_operation_validators.py).

It reads the vendor's rules as data (``roceops/platforms/sonic/gcu_rules.json``: the vendor's
gcu_field_operation_validators.conf.json per release, with how each release's code matches fields) the way the
lab reads SONiC's YANG models; it never imports the product's classification code, so a product bug is not
mirrored here. A refusal raises :class:`GcuRefused` with the vendor's own text.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonpatch
import jsonpointer

RULES = Path(__file__).resolve().parents[3] / "platforms" / "sonic" / "gcu_rules.json"


class GcuRefused(Exception):
    """apply-patch stops: ``str()`` is what it prints after ``Failed to apply patch due to:``."""


@cache
def _rules() -> dict[str, Any]:
    return json.loads(RULES.read_text())["releases"]  # type: ignore[no-any-return]


def _branch(build: str) -> str | None:
    head = build.split(".", 1)[0]
    branch = head[:6] if head[:6].isdigit() else head
    return branch if branch in _rules() else None


def _asic(data: dict[str, Any], asic_type: str, hwsku: str) -> str:
    """get_asic_name(): asic_type first, then the release's HWSKU lists (Mellanox: exact, Broadcom: substring)."""
    if asic_type in data["asic_detection"]["own_asic_types"]:
        return str(data["asic_detection"]["own_asic_types"][asic_type])
    lists = data["hwsku_asics"]
    if asic_type in ("mellanox", "vs"):
        for fam in data["asic_detection"]["mellanox_families_checked"]:
            if hwsku.lower() in [s.lower() for s in lists["mellanox_asics"].get(fam, [])]:
                return str(fam)
    if asic_type in ("broadcom", "vs"):
        for fam, skus in lists["broadcom_asics"].items():
            if any(s.lower() in hwsku.lower() for s in skus):
                return str(fam)
    return "unknown"


def _passes(spec: dict[str, Any], scenarios: dict[str, Any], element: dict[str, Any], asic: str,
            build: str) -> bool:
    parts = jsonpointer.JsonPointer(element["path"]).parts
    if spec.get("object_level_operations") is not None and len(parts) == 2:
        return bool(element["op"] in spec["object_level_operations"])
    if asic == "unknown":
        return False
    dated = [p for p in build.split(".") if p.isdigit() and len(p) == 8]
    below = parts[1:]
    if spec["remove_port"]:
        below = [p for p in below if not any(ch.isdigit() for ch in p)]
    base = "/".join(below).lower()
    value = element.get("value")
    fields = ([f"{base}/{k}" if base else k for k in value] if isinstance(value, dict) else [base])
    for field in fields:
        found = None
        for scenario in scenarios.values():
            if any((field == f) if spec["exact_field_match"] else (field.split("/")[-1] == f)
                   for f in scenario["fields"]):
                found = scenario
                break
        if found is None or not found["platforms"].get(asic) or element["op"] not in found["operations"]:
            return False
        if dated and dated[-1] < found["platforms"][asic]:
            return False
    return True


def check(current: dict[str, Any], target: dict[str, Any], build: str, asic_type: str, hwsku: str) -> None:
    """Refuse (GcuRefused) what that release's apply-patch would refuse on the diff current -> target."""
    branch = _branch(build)
    if branch is None:
        return  # a lab release with no rules: nothing to enforce
    data = _rules()[branch]
    diff = list(jsonpatch.make_patch(current, target))
    for element in diff:
        if element["path"] in data["illegal_operations"].get(element["op"], []):
            raise GcuRefused(data["messages"]["illegal_operation"].format(element["op"], element["path"]))
    asic = _asic(data, asic_type, hwsku)
    for element in diff:
        table = jsonpointer.JsonPointer(element["path"]).parts[0]
        entry = data["tables"].get(table, {})
        for function in entry.get("field_operation_validators", []):
            spec = data["validators"].get(function, {"kind": "port_state_db"})
            if spec["kind"] == "port_state_db":
                continue  # the lab has no STATE_DB of supported speeds/FECs: not enforced
            scenarios = entry["validator_data"]["rdma_config_update_validator"]
            if not _passes(spec, scenarios, element, asic, build):
                raise GcuRefused(data["messages"]["validator_refused"].format(table, function))
