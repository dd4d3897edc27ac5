"""BREAKOUT_CFG from the SKU's platform.json modes and SWITCH_HASH from the fabric's load balancing, both valid
against SONiC's own YANG models (../shared/sonic-yang)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES

from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.sonic.breakout_hash import breakout_cfg
from roceops.platforms.sonic.yang import YangUnavailable, get_validator
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand


def _leaf(example: str, **lb: Any) -> SwitchIntent:
    data = yaml.safe_load(EXAMPLES[example].read_text())
    if lb:
        data["load_balancing"] = {**data.get("load_balancing", {}), **lb}
    fab = expand(FabricIntent.model_validate(data))
    intent = plan(fab, next(s.name for s in fab.switches if s.platform == "sonic" and s.role == "leaf"))
    assert isinstance(intent, SwitchIntent)
    return intent


def _errors(doc: dict[str, Any]) -> list[str]:
    try:
        return list(get_validator().validate(doc))
    except YangUnavailable as exc:
        pytest.skip(f"SONiC YANG validation unavailable: {exc}")


def test_the_800g_leaf_renders_its_cages_breakout_modes() -> None:
    leaf = _leaf("fabric-800g")
    doc = json.loads(render_device(leaf).files["config_db.json"])
    modes = {k: v["brkout_mode"] for k, v in doc["BREAKOUT_CFG"].items()}
    # host cages split 2x400G (Dell-Z9864f-O64 platform.json "2x400G(8)"), uplink cages whole at 800G
    assert set(modes.values()) == {"2x400G(8)", "1x800G"}
    assert {c for c, n in leaf.breakouts.items() if n == 2} == {c for c, m in modes.items() if m == "2x400G(8)"}
    assert _errors(doc) == []


def test_breakout_modes_of_the_sn5600_are_its_hwsku_default() -> None:
    """Mellanox-SN5600-O128 runs every 800G cage as 2x400G (hwsku.json); lab-mini's leaf uses 4 cages."""
    found = breakout_cfg(_leaf("lab-mini"))
    assert {b["mode"] for b in found} == {"2x400G[200G,100G,50G,40G,25G,10G]"}
    assert [b["port"] for b in found] == ["Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"]


def test_switch_hash_from_the_fabric_and_yang_valid() -> None:
    plain = json.loads(render_device(_leaf("lab-mini")).files["config_db.json"])
    assert "SWITCH_HASH" not in plain  # no hash fields in the fabric: the image's default stays
    leaf = _leaf("lab-mini", hash_fields=["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"])
    doc = json.loads(render_device(leaf).files["config_db.json"])
    assert doc["SWITCH_HASH"] == {"GLOBAL": {"ecmp_hash": ["SRC_IP", "DST_IP", "IP_PROTOCOL", "L4_SRC_PORT",
                                                           "L4_DST_PORT"]}}
    assert _errors(doc) == []
