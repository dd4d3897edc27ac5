"""For every SKU in ../shared/reference/hardware/sonic/skus/: a SONiC leaf rendered on it has the SKU's PORT map
and the SKU vendor's buffer model, and is YANG-valid."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from conftest import FIXTURES, SHARED

from roceops.device.compare import compare
from roceops.hardware import switch_profile
from roceops.hardware.sku_files import read_port_config
from roceops.lab.devices.sonic.state import SonicState
from roceops.lab.fabric_specs import lab_specs
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.sonic.driver import expected
from roceops.platforms.sonic.parsers_config_db import parse_config_db
from roceops.platforms.sonic.yang import YangUnavailable, get_validator
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

SKU_DIR = SHARED / "reference/hardware/sonic/skus"
SKUS = sorted(p.name for p in SKU_DIR.glob("*/") if p.is_dir())
pytestmark = pytest.mark.skipif(not (SHARED / "reference/hardware/sonic/skus").is_dir(),
                                reason="../shared/reference/hardware/sonic/skus is not beside this checkout")
MELLANOX_GOLDEN = FIXTURES / "sonic/config_db_buffers_mellanox4600c_t1.json"


def _speed(sku: str) -> int:
    return switch_profile(sku).ports[0].speed


def _fabric_using_every_port(sku: str) -> dict[str, Any]:
    """One rail, one leaf of ``sku`` with all its ports at the SKU speed in use (half hosts, half spines)."""
    speed = f"{_speed(sku) // 1000}G"
    radix = len(switch_profile(sku).ports_at(_speed(sku)))
    return {
        "name": "sku-check",
        "node": {"gpus": 1, "rails": 1, "nic_speed": speed},
        "scalable_units": {"count": 1, "nodes_per_su": radix // 2, "target_count": 1},
        "switch_models": {"leaf": {"radix": radix, "port_speed": speed, "hwsku": sku},
                          "spine": {"radix": radix, "port_speed": speed}},
        "tiers": {"leaf": {"model": "leaf", "platform": "sonic"}, "spine": {"model": "spine", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/24", "p2p": "10.1.0.0/22", "hosts": "10.128.0.0/16",
                       "management": "192.168.100.0/24"},
        "qos": {"pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100}},
    }


@cache
def _leaf_config_db(sku: str) -> dict[str, Any]:
    intent = FabricIntent.model_validate(_fabric_using_every_port(sku))
    fabric = expand(intent)
    leaf = next(sw for sw in fabric.switches if sw.role == "leaf")
    return json.loads(render_device(plan(fabric, leaf.name)).files["config_db.json"])


@pytest.mark.parametrize("sku", SKUS)
def test_the_fabric_lints_clean_against_the_sku(sku: str) -> None:
    report = lint(FabricIntent.model_validate(_fabric_using_every_port(sku)))
    assert not [f for f in report.findings if f.id.startswith("HW")], str(report)


@pytest.mark.parametrize("sku", SKUS)
def test_rendered_port_table_is_the_sku_port_map(sku: str) -> None:
    rows = read_port_config(SKU_DIR / sku / "port_config.ini")
    speed = _speed(sku)
    expected = {r["name"]: {"lanes": ",".join(map(str, r["lanes"])), "alias": r["alias"], "index": str(r["index"]),
                            "speed": str(r.get("speed", speed))}
                for r in rows if r.get("speed", speed) == speed}
    port = _leaf_config_db(sku)["PORT"]
    assert {name: {k: e[k] for k in ("lanes", "alias", "index", "speed")} for name, e in port.items()} == expected


@pytest.mark.parametrize("sku", SKUS)
def test_rendered_leaf_is_yang_valid(sku: str) -> None:
    try:
        validator = get_validator()
    except YangUnavailable as exc:
        pytest.skip(f"libyang/SONiC YANG unavailable: {exc}")
    db = _leaf_config_db(sku)
    assert db["DEVICE_METADATA"]["localhost"]["type"] == "ToRRouter"
    assert db["DEVICE_METADATA"]["localhost"]["hwsku"] == sku
    assert validator.validate(db) == []


@pytest.mark.parametrize("sku", [s for s in SKUS if s.startswith("Mellanox-")])
def test_mellanox_buffers_have_the_structure_of_the_vendor_output(sku: str) -> None:
    golden = json.loads(MELLANOX_GOLDEN.read_text())
    db = _leaf_config_db(sku)
    buffer_tables = {t for t in golden if t.startswith("BUFFER_")} | {"CABLE_LENGTH"}
    assert buffer_tables <= set(db)
    pools = db["BUFFER_POOL"]
    assert set(golden["BUFFER_POOL"]) <= set(pools)  # ingress_zero_pool and the dynamic lossless/lossy pools
    assert {n: p["mode"] for n, p in pools.items()} == {n: "static" if n == "ingress_zero_pool" else "dynamic"
                                                       for n in pools}
    assert set(golden["BUFFER_PROFILE"]) - {"ingress_lossy_profile"} <= set(db["BUFFER_PROFILE"])
    for name in ("ingress_lossless_profile", "egress_lossless_profile", "egress_lossy_profile", "q_lossy_profile"):
        assert "dynamic_th" in db["BUFFER_PROFILE"][name] and "static_th" not in db["BUFFER_PROFILE"][name]
    ports = set(db["PORT"])
    assert set(db["BUFFER_PORT_INGRESS_PROFILE_LIST"]) == set(db["BUFFER_PORT_EGRESS_PROFILE_LIST"]) == ports
    egress = {e["profile_list"] for e in db["BUFFER_PORT_EGRESS_PROFILE_LIST"].values()}
    assert egress <= {e["profile_list"] for e in golden["BUFFER_PORT_EGRESS_PROFILE_LIST"].values()}  # active ports
    lossy_queues = {e["profile"] for k, e in db["BUFFER_QUEUE"].items() if not k.endswith(("|3", "|3-4"))}
    assert lossy_queues == {"q_lossy_profile"}


@pytest.mark.parametrize("sku", [s for s in SKUS if s.startswith("Dell-")])
def test_broadcom_buffers_are_the_static_model(sku: str) -> None:
    db = _leaf_config_db(sku)
    assert db["BUFFER_POOL"]["egress_lossless_pool"]["mode"] == "static"
    assert "static_th" in db["BUFFER_PROFILE"]["egress_lossless_profile"]
    assert db["BUFFER_PROFILE"]["egress_lossless_profile"]["pool"] == "egress_lossless_pool"
    assert "BUFFER_PORT_INGRESS_PROFILE_LIST" not in db and "ingress_zero_pool" not in db["BUFFER_POOL"]


def _drift(sku: str, db: dict[str, Any]) -> set[str]:
    fabric = expand(FabricIntent.model_validate(_fabric_using_every_port(sku)))
    leaf = plan(fabric, next(sw for sw in fabric.switches if sw.role == "leaf").name)
    return {d.path for d in compare(expected(leaf), parse_config_db(db))}


def test_audit_reads_back_the_sku_facts_and_profile_lists() -> None:
    sku = "Mellanox-SN5600-O128"
    db = json.loads(json.dumps(_leaf_config_db(sku)))
    assert _drift(sku, db) == set()
    db["PORT"]["Ethernet4"]["lanes"] = "4,5,6,7,8,9,10,11"  # someone re-laned a port
    db["BUFFER_PORT_INGRESS_PROFILE_LIST"]["Ethernet8"]["profile_list"] = "ingress_lossless_profile"
    assert _drift(sku, db) == {"ports[Ethernet4].lanes", "ports[Ethernet8].ingress_profiles"}


@pytest.mark.parametrize("sku", SKUS)
def test_the_lab_switch_boots_with_the_sku_port_map_and_platform(sku: str) -> None:
    fabric = expand(FabricIntent.model_validate(_fabric_using_every_port(sku)))
    spec = next(s for s in lab_specs(fabric) if s.platform == "sonic")
    boot = json.loads(SonicState(spec.name, spec.platform, spec.extra).running)
    assert boot["DEVICE_METADATA"]["localhost"]["platform"] == switch_profile(sku).platform
    rendered = _leaf_config_db(sku)["PORT"]
    assert {n: (p["lanes"], p["alias"], p["index"]) for n, p in boot["PORT"].items()} == {
        n: (p["lanes"], p["alias"], p["index"]) for n, p in rendered.items()}
