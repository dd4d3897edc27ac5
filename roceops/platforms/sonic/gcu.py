"""Would `config apply-patch` accept this operation? GCU's field-operation rules, applied to roceops' patches.

The rules are data (``gcu_rules.json``, built by :mod:`roceops.platforms.sonic.gcu_import` from
sonic-utilities' ``generic_config_updater`` per release branch, with provenance). This module applies them as
``ConfigWrapper.validate_field_operation`` does (sonic-utilities ``generic_config_updater/gu_common.py`` and
``field_operation_validators.py`` at the commits recorded in the data):

1. an operation on a path of ``illegal_operations`` (``remove /PFC_WD/GLOBAL``, ...) is refused;
2. every validator the table names must pass. ``rdma``: the device's ASIC (``get_asic_name``: the
   ``asic_type`` of its image, then its HWSKU looked up in that release's lists) must be listed for the
   matching scenario with a minimum build not newer than the device's, and the operation must be one the
   scenario allows. The field matched is the path below the table (elements holding a digit, such as
   ``Ethernet0`` or ``ROCEOPS_Q3_ECN``, dropped when ``remove_port``), lower-cased, joined with ``/``; an
   operation whose value is an object is judged once per key of it (keys not lower-cased). ``exact_field_match``
   compares the whole field, otherwise its last element. ``object_level_operations`` (202511+ BUFFER_PROFILE)
   accepts those operations on ``/TABLE/<key>`` as such. ``port_state_db`` (PORT speed/FEC) reads STATE_DB,
   which only the switch has: accepted here, and said so.

The refusal texts are the vendor's (``messages`` in the data); apply-patch prints them after
``Failed to apply patch due to:`` (sonic-utilities ``config/main.py`` ``apply_patch``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonpointer

RULES_FILE = Path(__file__).with_name("gcu_rules.json")
UNKNOWN = "unknown"
# SONiC's asic_type (sonic_version.yml) is the sonic-buildimage platform an image is built for:
# platform/mellanox builds Spectrum images, platform/broadcom Tomahawk/Trident/Jericho ones
# (sonic-buildimage platform/ @ 086b03bd70f9e211aaaf5f6aefe0790b508d2a94).
ASIC_TYPES: tuple[tuple[str, str], ...] = (("Spectrum", "mellanox"), ("Tomahawk", "broadcom"),
                                           ("Trident", "broadcom"), ("Jericho", "broadcom"))
_BUILD_DATE = re.compile(r"^\d{8}$")
_BRANCH = re.compile(r"^(\d{6})(\d{2})?$")


@dataclass(frozen=True)
class Verdict:
    """One JSON-patch operation judged: ``accepted``, and GCU's message when it is not (or a note when it is)."""

    op: str
    path: str
    accepted: bool
    message: str = ""

    def line(self) -> str:
        return f"{self.op} {self.path}" + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class Device:
    """What GCU reads of the switch: its release branch (None: no rules), build version, asic_type and HWSKU."""

    release: str | None
    build_version: str
    asic_type: str | None
    hwsku: str


@cache
def rules() -> dict[str, Any]:
    return json.loads(RULES_FILE.read_text())["releases"]  # type: ignore[no-any-return]


def release_of(build_version: str) -> str | None:
    """The sonic-utilities branch a SONiC build carries, when roceops has its rules.

    >>> release_of("202411.1-lab"), release_of("20230531.22"), release_of("master.123-abc"), release_of("201911.5")
    ('202411', '202305', 'master', None)
    """
    first = build_version.split(".", 1)[0]
    m = _BRANCH.match(first)
    branch = m.group(1) if m else first if first == "master" else None
    return branch if branch in rules() else None


def asic_type_of(asic_family: str | None) -> str | None:
    """``Spectrum-4`` -> ``mellanox``, ``Tomahawk 5`` -> ``broadcom`` (see :data:`ASIC_TYPES`)."""
    for prefix, asic_type in ASIC_TYPES:
        if asic_family and asic_family.startswith(prefix):
            return asic_type
    return None


def gcu_asic(release: str, asic_type: str | None, hwsku: str) -> str:
    """``get_asic_name()`` of that release: the ASIC GCU's rules are looked up by (``unknown``: none).

    >>> gcu_asic("202411", "mellanox", "Mellanox-SN5600-O128"), gcu_asic("202305", "mellanox", "Mellanox-SN5600-O128")
    ('spc4', 'unknown')
    >>> gcu_asic("202411", "broadcom", "Dell-Z9864f-O64"), gcu_asic("202411", "broadcom", "Arista-7060X6-64PE-O128")
    ('unknown', 'th5')
    """
    data = rules()[release]
    own = data["asic_detection"]["own_asic_types"]
    if asic_type in own:
        return str(own[asic_type])
    mapping = data["hwsku_asics"]
    sku = hwsku.lower()
    if asic_type in ("mellanox", "vs"):
        for family in data["asic_detection"]["mellanox_families_checked"]:
            if sku in (s.lower() for s in mapping["mellanox_asics"].get(family, [])):
                return str(family)
    if asic_type in ("broadcom", "vs"):
        for family, skus in mapping["broadcom_asics"].items():
            if any(s.lower() in sku for s in skus):  # a substring match, as the vendor's loop does
                return str(family)
    return UNKNOWN


def _build_date(build_version: str) -> str | None:
    """The 8-digit part of the build version GCU compares with the scenario's minimum (None: gate skipped)."""
    found = None
    for part in build_version.split("."):
        if part.isdigit() and _BUILD_DATE.match(part):
            found = part
    return found


def _fields(parts: list[str], value: Any, remove_port: bool) -> list[str]:
    elems = [e for e in parts if not any(c.isdigit() for c in e)] if remove_port else parts
    cleaned = "/".join(elems).lower()
    if isinstance(value, dict):
        return [f"{cleaned}/{k}" if cleaned else k for k in value]
    return [cleaned]


def _rdma(spec: dict[str, Any], scenarios: dict[str, Any], op: dict[str, Any], asic: str, build: str | None) -> bool:
    parts = jsonpointer.JsonPointer(op["path"]).parts
    if "object_level_operations" in spec and len(parts) == 2:
        return op["op"] in spec["object_level_operations"]
    if asic == UNKNOWN:
        return False
    exact = spec["exact_field_match"]
    for field in _fields(parts[1:], op.get("value"), spec["remove_port"]):
        name = field if exact else field.split("/")[-1]
        scenario = next((s for s in scenarios.values() if name in s["fields"]), None)
        if scenario is None:
            return False
        minimum = scenario["platforms"].get(asic)
        if not minimum or op["op"] not in scenario["operations"]:
            return False
        if build is not None and build < minimum:
            return False
    return True


def classify(op: dict[str, Any], device: Device) -> Verdict:
    """GCU's verdict on one operation (``op``/``path``/``value`` as sent) for ``device``."""
    path = str(op["path"])
    if device.release is None:
        table = path.split("/")[1] if path.count("/") else path
        guarded = {t for r in rules().values() for t in r["tables"] if t != "PORT"}
        if table in guarded:
            return Verdict(op["op"], path, False, "roceops has no GCU rules for this SONiC release "
                           f"(known: {', '.join(rules())}): the operation is treated as refused")
        return Verdict(op["op"], path, True)
    data = rules()[device.release]
    messages = data["messages"]
    if path in data["illegal_operations"].get(op["op"], []):
        return Verdict(op["op"], path, False, messages["illegal_operation"].format(op["op"], path))
    parts = jsonpointer.JsonPointer(path).parts
    table = parts[0] if parts else ""
    entry = data["tables"].get(table, {})
    asic = gcu_asic(device.release, device.asic_type, device.hwsku)
    build = _build_date(device.build_version)
    note = ""
    for function in entry.get("field_operation_validators", []):
        spec = data["validators"].get(function)
        if spec is None or spec["kind"] == "port_state_db":
            note = "PORT speed/FEC are checked against the switch's STATE_DB, which only the switch has"
            continue
        scenarios = entry["validator_data"]["rdma_config_update_validator"]
        if not _rdma(spec, scenarios, op, asic, build):
            return Verdict(op["op"], path, False, messages["validator_refused"].format(table, function))
    return Verdict(op["op"], path, True, note)


def classify_all(ops: list[dict[str, Any]], device: Device) -> list[Verdict]:
    return [classify(op, device) for op in ops]


def source_of(release: str) -> str:
    """``sonic-net/sonic-utilities@<commit> (202411)``: where a release's rules come from."""
    src = rules()[release]["source"]
    return f"{src['repo']}@{src['commit']} ({src['branch']})"
