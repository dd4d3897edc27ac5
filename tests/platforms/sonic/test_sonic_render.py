"""SONiC rendering: every SONiC switch of the example fabrics renders a CONFIG_DB that SONiC's own YANG
models accept, broken renders are rejected, the PFC/PG/queue/WRED tables agree, output is byte-stable."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SHARED

from roceops.device.intent import SwitchIntent
from roceops.hardware.sku_files import read_port_config
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import Platform, get_platform
from roceops.platforms.sonic import PLATFORM
from roceops.platforms.sonic.config_db_text import SonicRenderError, canonical_config_db, dump_config_db
from roceops.platforms.sonic.render import (
    CABLE_LENGTH_KEY,
    EGRESS_LOSSLESS_PROFILE,
    INGRESS_LOSSY_PROFILE,
    MAP_NAME,
    render_context,
)
from roceops.platforms.sonic.yang import SonicYangValidator, YangUnavailable, get_validator
from roceops.platforms.templating import environment, render_device
from roceops.resources import templates_dir
from roceops.topology.expand import expand

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = ("lab-mini", "fabric", "fabric-800g")
TEMPLATES = templates_dir() / "sonic"
# Every table we render; all of them have a model in shared/sonic-yang (FLEX_COUNTER_TABLE included:
# sonic-flex_counter.yang), so validation must skip none.
RENDERED_TABLES = {
    "PORT", "DEVICE_METADATA", "LOOPBACK_INTERFACE", "INTERFACE", "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PORT_QOS_MAP", "WRED_PROFILE", "SCHEDULER", "QUEUE",
    "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST", "CABLE_LENGTH", "PFC_WD", "FLEX_COUNTER_TABLE",
    "BGP_NEIGHBOR", "BGP_NEIGHBOR_AF", "BGP_GLOBALS", "BGP_GLOBALS_AF", "BGP_GLOBALS_AF_NETWORK", "ROUTE_MAP_SET",
    "ROUTE_MAP", "BREAKOUT_CFG",
}
TABLES_WITHOUT_YANG_MODEL: set[str] = set()
PROFILE_LIST_TABLES = {"BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"}


@cache
def sonic_intents(example: str) -> tuple[SwitchIntent, ...]:
    data = yaml.safe_load((REPO / "inventory" / f"{example}.yaml").read_text())
    fab = expand(FabricIntent.model_validate(data))
    out = tuple(plan(fab, s.name) for s in fab.switches if s.platform == "sonic")
    assert all(isinstance(i, SwitchIntent) for i in out)
    return out  # type: ignore[return-value]


def intent_of(example: str, name: str) -> SwitchIntent:
    return next(i for i in sonic_intents(example) if i.name == name)


@cache
def rendered(example: str, name: str) -> str:
    return render_device(intent_of(example, name)).files["config_db.json"]


def config_db(example: str, name: str) -> dict[str, Any]:
    return json.loads(rendered(example, name))


def all_devices() -> list[tuple[str, str]]:
    return [(ex, i.name) for ex in EXAMPLES for i in sonic_intents(ex)]


def render_with(platform: Platform, intent: SwitchIntent) -> dict[str, Any]:
    text = environment("sonic").get_template("main.j2").render(**platform.render_context(intent))
    return json.loads(canonical_config_db(text))


@pytest.fixture(scope="module")
def validator() -> SonicYangValidator:
    try:
        return get_validator()
    except YangUnavailable as exc:  # pragma: no cover - depends on the host
        pytest.skip(f"SONiC YANG validation unavailable: {exc}")


def expand_range(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def per_port(table: dict[str, dict[str, str]], port: str) -> dict[int, str]:
    """``{id: profile}`` of one port from BUFFER_PG / BUFFER_QUEUE keys ``<port>|<id or range>``."""
    out: dict[int, str] = {}
    for key, fields in table.items():
        name, _, ids = key.partition("|")
        if name == port:
            for i in expand_range(ids):
                assert i not in out, f"{port}: id {i} bound twice"
                out[i] = fields["profile"]
    return out


# --------------------------------------------------------------------------- platform


def test_examples_have_sonic_switches() -> None:
    assert [i.name for i in sonic_intents("lab-mini")] == ["leaf-su1-r1", "leaf-su1-r2"]
    assert len(sonic_intents("fabric")) == 16


def test_platform_is_registered() -> None:
    from netmiko.ssh_dispatcher import CLASS_MAPPER

    assert get_platform("sonic") is PLATFORM
    assert [o.filename for o in PLATFORM.outputs] == ["config_db.json"]
    # no community-SONiC device type in netmiko, hence linux (see the comment in the room's __init__)
    assert "sonic" not in CLASS_MAPPER
    assert PLATFORM.netmiko.device_type == "linux"
    assert PLATFORM.netmiko.device_type in CLASS_MAPPER


# --------------------------------------------------------------------------- YANG


@pytest.mark.parametrize(("example", "name"), all_devices())
def test_renders_and_validates_against_sonic_yang(validator: SonicYangValidator, example: str, name: str) -> None:
    db = config_db(example, name)
    ports = intent_of(example, name).ports.values()
    # a SKU whose buffer templates list no per-port profiles (Dell-Z9864f-O64) renders no profile-list tables
    lists = any(p.ingress_profiles or p.egress_profiles for p in ports)
    assert set(db) == (RENDERED_TABLES if lists else RENDERED_TABLES - PROFILE_LIST_TABLES)
    assert set(validator.skipped_tables(db)) == TABLES_WITHOUT_YANG_MODEL
    assert validator.validate(db) == []


def test_dynamic_buffer_model_validates(validator: SonicYangValidator) -> None:
    intent = intent_of("lab-mini", "leaf-su1-r1")
    dynamic = dataclasses.replace(PLATFORM, code=dataclasses.replace(
        PLATFORM.code, context=lambda device: render_context(device, buffer_model="dynamic")))
    db = render_with(dynamic, intent)
    assert db["DEVICE_METADATA"]["localhost"]["buffer_model"] == "dynamic"
    headroom = {h.profile for p in intent.ports.values() for h in p.headroom.values()}
    assert headroom and not headroom & set(db["BUFFER_PROFILE"])
    for port in intent.ports.values():
        pgs = per_port(db["BUFFER_PG"], port.name)
        assert {pg for pg, prof in pgs.items() if prof == "NULL"} == set(port.headroom)
    assert validator.validate(db) == []


def test_yang_rejects_bad_pfc_enable(validator: SonicYangValidator) -> None:
    db = config_db("lab-mini", "leaf-su1-r1")
    db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,9"
    errors = validator.validate(db)
    assert errors and "([0-7](,[0-7])*)?" in errors[-1] and "pfc_enable" in errors[-1]


def test_yang_rejects_short_pfc_wd_detection(validator: SonicYangValidator) -> None:
    db = config_db("lab-mini", "leaf-su1-r1")
    db["PFC_WD"]["Ethernet0"]["detection_time"] = "50"
    errors = validator.validate(db)
    assert errors and "out of the allowed range" in errors[-1] and "detection_time" in errors[-1]


def test_yang_rejects_ecn_max_below_min(validator: SonicYangValidator) -> None:
    intent = intent_of("lab-mini", "leaf-su1-r1")
    qid, queue = next((q, v) for q, v in intent.qos.queues.items() if v.ecn is not None)
    assert queue.ecn is not None
    bad_ecn = queue.ecn.model_copy(update={"max_bytes": queue.ecn.min_bytes - 1})
    queues = {**intent.qos.queues, qid: queue.model_copy(update={"ecn": bad_ecn})}
    broken = intent.model_copy(update={"qos": intent.qos.model_copy(update={"queues": queues})})
    db = json.loads(render_device(broken).files["config_db.json"])  # rendering is not the policy check
    errors = validator.validate(db)
    assert errors and re.search(r"(Green|Yellow|Red) max threshold must be greater than or equal to min", errors[-1])


# --------------------------------------------------------------------------- cross-table consistency


@pytest.mark.parametrize(("example", "name"), all_devices())
def test_pfc_pg_queue_and_wred_agree(example: str, name: str) -> None:
    db = config_db(example, name)
    intent = intent_of(example, name)
    qos_map = db["PORT_QOS_MAP"]
    pfc_ports = [p for p, f in qos_map.items() if f.get("pfc_enable")]
    assert sorted(pfc_ports) == sorted(p.name for p in intent.ports.values() if p.pfc_priorities)
    for port in db["PORT"]:
        fields = qos_map[port]
        tc_to_pg = db["TC_TO_PRIORITY_GROUP_MAP"][fields["tc_to_pg_map"]]
        tc_to_queue = db["TC_TO_QUEUE_MAP"][fields["tc_to_queue_map"]]
        pfc_to_queue = db["MAP_PFC_PRIORITY_TO_QUEUE"][fields["pfc_to_queue_map"]]
        prios = fields["pfc_enable"].split(",") if fields.get("pfc_enable") else []
        lossless_pgs = {int(tc_to_pg[p]) for p in prios}
        lossless_queues = {int(pfc_to_queue[p]) for p in prios}
        assert all(tc_to_queue[p] == pfc_to_queue[p] for p in prios), f"{port}: TC and PFC queues differ"

        pgs = per_port(db["BUFFER_PG"], port)
        for pg, profile in pgs.items():
            if pg in lossless_pgs:
                body = db["BUFFER_PROFILE"][profile]
                assert int(body["xoff"]) > 0 and int(body["size"]) > 0, f"{port} PG {pg}: {profile} has no headroom"
            else:
                assert profile == INGRESS_LOSSY_PROFILE, f"{port} PG {pg} is lossy but uses {profile}"
        assert lossless_pgs <= set(pgs), f"{port}: lossless PGs {lossless_pgs} missing from BUFFER_PG"

        queues = per_port(db["BUFFER_QUEUE"], port)
        assert set(queues) == set(range(8))
        assert {q for q, prof in queues.items() if prof == EGRESS_LOSSLESS_PROFILE} == lossless_queues
        assert {prof for q, prof in queues.items() if q not in lossless_queues} <= {intent.qos.lossy_queue_profile}
        for q in lossless_queues:
            wred = db["QUEUE"][f"{port}|{q}"]["wred_profile"]
            assert db["WRED_PROFILE"][wred]["ecn"] == "ecn_all"

        if fields.get("pfcwd_sw_enable"):
            assert set(fields["pfcwd_sw_enable"].split(",")) <= set(prios)
            assert port in db["PFC_WD"]
        assert db["CABLE_LENGTH"][CABLE_LENGTH_KEY][port].endswith("m")


def test_ports_and_addresses_follow_the_intent() -> None:
    intent = intent_of("fabric", "leaf-su1-r1")
    db = config_db("fabric", "leaf-su1-r1")
    sku = {row["name"]: row for row in read_port_config(SHARED / "reference/hardware/sonic/skus/Mellanox-SN5600-O128"
                                                                  / "port_config.ini")}
    for name, port in intent.ports.items():
        entry = db["PORT"][name]
        row = sku[name]  # Mellanox-SN5600-O128: 4 lanes per 400G port, Ethernet4 = etp1b
        assert (entry["lanes"], entry["alias"], entry["index"]) == (
            ",".join(map(str, row["lanes"])), row["alias"], str(row["index"]))
        assert (entry["speed"], entry["mtu"], entry["fec"]) == (str(port.speed), str(port.mtu), "rs")
        if port.address:
            assert f"{name}|{port.address}" in db["INTERFACE"] and name in db["INTERFACE"]
    assert f"Loopback0|{intent.loopback}" in db["LOOPBACK_INTERFACE"]
    meta = db["DEVICE_METADATA"]["localhost"]
    assert (meta["hostname"], meta["bgp_asn"], meta["type"]) == (intent.name, str(intent.bgp.asn), "ToRRouter")
    assert set(db["BGP_NEIGHBOR"]) == {f"default|{n.ip}" for n in intent.bgp.neighbors}
    assert set(db["DSCP_TO_TC_MAP"]) == set(db["TC_TO_QUEUE_MAP"]) == {MAP_NAME}
    assert len(db["DSCP_TO_TC_MAP"][MAP_NAME]) == 64


def test_a_port_without_sku_lanes_is_a_render_error_not_a_guess() -> None:
    intent = intent_of("lab-mini", "leaf-su1-r1")
    ports = {n: p.model_copy(update={"lanes": [], "alias": None, "index": None}) for n, p in intent.ports.items()}
    with pytest.raises(SonicRenderError, match="no SKU lanes/alias/index"):
        render_device(intent.model_copy(update={"ports": ports}))
    with pytest.raises(SonicRenderError, match="names no hwsku"):
        render_device(intent.model_copy(update={"hwsku": None}))


# --------------------------------------------------------------------------- determinism and escaping


@pytest.mark.parametrize(("example", "name"), [("lab-mini", "leaf-su1-r2"), ("fabric", "leaf-su2-r8")])
def test_rendering_is_byte_identical(example: str, name: str) -> None:
    intent = intent_of(example, name)
    first = render_device(intent).files["config_db.json"]
    assert render_device(intent).files["config_db.json"] == first
    reordered = intent.model_copy(update={"ports": dict(reversed(list(intent.ports.items())))})
    assert render_device(reordered).files["config_db.json"] == first
    assert first.endswith("}\n") and first == dump_config_db(json.loads(first))


def test_descriptions_are_json_escaped(validator: SonicYangValidator) -> None:
    intent = intent_of("lab-mini", "leaf-su1-r1")
    nasty = 'gpu "001" \\ eth0 </tag> {x}'
    ports = {**intent.ports, "Ethernet0": intent.ports["Ethernet0"].model_copy(update={"description": nasty})}
    db = json.loads(render_device(intent.model_copy(update={"ports": ports})).files["config_db.json"])
    assert db["PORT"]["Ethernet0"]["description"] == nasty
    assert validator.validate(db) == []


# --------------------------------------------------------------------------- canonicalisation errors


def test_broken_template_names_device_and_section(tmp_path: Path) -> None:
    shutil.copytree(TEMPLATES, tmp_path / "sonic")
    ports = tmp_path / "sonic" / "ports.j2"
    ports.write_text(ports.read_text().replace('"mtu": {{ p.mtu | tojson }},', '"mtu": {{ p.mtu | tojson }}'))
    intent = intent_of("lab-mini", "leaf-su1-r2")
    text = environment("sonic", str(tmp_path)).get_template("main.j2").render(**render_context(intent))
    with pytest.raises(SonicRenderError, match=r"leaf-su1-r2: .* section ports\.j2 \(line \d+"):
        canonical_config_db(text)


def test_canonicaliser_rejects_non_strings_and_duplicates() -> None:
    head = "//@section a.j2 sw1\n"
    with pytest.raises(SonicRenderError,
                       match=r"sw1: CONFIG_DB values are strings or lists of strings: PORT\|Ethernet0 mtu = 9216"):
        canonical_config_db(head + '{"PORT": {"Ethernet0": {"mtu": 9216}}}')
    dup = '{\n' + head + '"PORT": {"Ethernet0": {}},\n//@section b.j2 sw1\n"PORT": {"Ethernet8": {}}\n}'
    with pytest.raises(SonicRenderError, match=r"sw1: .*'PORT' twice .*sections: a\.j2, b\.j2"):
        canonical_config_db(dup)
    assert canonical_config_db('{"PFC_WD": {}, "PORT": {"Ethernet0": {"mtu": "9216"}}}') == (
        '{\n  "PORT": {\n    "Ethernet0": {"mtu": "9216"}\n  }\n}\n'
    )


def test_render_context_rejects_overlapping_lanes() -> None:
    intent = intent_of("lab-mini", "leaf-su1-r1")
    p = intent.ports["Ethernet8"]
    clash = p.model_copy(update={"name": "Ethernet4"})
    bad = intent.model_copy(update={"ports": {**intent.ports, "Ethernet4": clash}})
    with pytest.raises(SonicRenderError, match="lane"):
        render_context(bad)


# --------------------------------------------------------------------------- template hygiene


def test_templates_are_sections_joined_by_main() -> None:
    main = (TEMPLATES / "main.j2").read_text()
    included = re.findall(r'{% include "([^"]+)" %}', main)
    sections = sorted(p.name for p in TEMPLATES.glob("*.j2") if p.name != "main.j2")
    assert sorted(included) == sections, "every section template is included exactly once"
    body = re.sub(r"{#.*?#}", "", main, flags=re.S)
    leftovers = re.sub(r'{% include "[^"]+" %},?', "", body)
    assert set(leftovers) <= set("{}\n "), "main.j2 only includes and joins"
    for path in TEMPLATES.glob("*.j2"):
        lines = path.read_text().splitlines()
        assert len(lines) < 150, f"{path.name} has {len(lines)} lines"
        if path.name != "main.j2":
            assert lines[0] == "{{ section() }}", f"{path.name} must start with its section marker"


def test_every_rendered_value_is_a_string() -> None:
    """Strings everywhere; the one leaf-list we write (BGP_NEIGHBOR_AF route maps) is a list of strings."""
    db = copy.deepcopy(config_db("fabric", "leaf-su1-r1"))
    values = [v for entries in db.values() for fields in entries.values() for v in fields.values()]
    lists = [v for v in values if isinstance(v, list)]
    assert values and all(isinstance(v, str) or v in lists for v in values)
    assert lists and all(v == ["ROCEOPS_ALLOW"] for v in lists)


def test_host_subnets_are_advertised_through_frrcfgd_tables() -> None:
    """Issue 16 item 2: every planned network (loopback + host subnets) is a BGP_GLOBALS_AF_NETWORK entry, in
    the mode where SONiC's routing container turns these tables into FRR config."""
    intent = intent_of("lab-mini", "leaf-su1-r1")
    db = config_db("lab-mini", "leaf-su1-r1")
    meta = db["DEVICE_METADATA"]["localhost"]
    assert (meta["docker_routing_config_mode"], meta["frr_mgmt_framework_config"]) == ("unified", "true")
    host_subnets = {n for n in intent.bgp.networks if n != intent.loopback}
    assert host_subnets and all(n.startswith("10.128.") for n in host_subnets)
    assert set(db["BGP_GLOBALS_AF_NETWORK"]) == {f"default|ipv4_unicast|{n}" for n in intent.bgp.networks}
    assert db["BGP_GLOBALS"]["default"] == {"local_asn": str(intent.bgp.asn), "router_id": intent.bgp.router_id,
                                            "load_balance_mp_relax": "true"}
    assert db["BGP_GLOBALS_AF"]["default|ipv4_unicast"]["max_ebgp_paths"] == "64"
    for n in intent.bgp.neighbors:
        af = db["BGP_NEIGHBOR_AF"][f"default|{n.ip}|ipv4_unicast"]
        assert af == {"admin_status": "up", "route_map_in": ["ROCEOPS_ALLOW"], "route_map_out": ["ROCEOPS_ALLOW"]}
    assert db["ROUTE_MAP"]["ROCEOPS_ALLOW|10"] == {"route_operation": "permit"}


def test_parser_reads_the_frrcfgd_routing_tables_back() -> None:
    """parse_config_db reads ASN, router-id and networks from the frrcfgd tables (and still the legacy keys)."""
    from roceops.platforms.sonic.driver import expected
    from roceops.platforms.sonic.parsers_config_db import parse_config_db

    intent = intent_of("lab-mini", "leaf-su1-r1")
    db = config_db("lab-mini", "leaf-su1-r1")
    bgp = parse_config_db(db).bgp
    want = expected(intent).bgp
    assert bgp is not None and want is not None and want.networks is not None
    assert (bgp.asn, bgp.router_id, bgp.networks) == (want.asn, want.router_id, want.networks)
    assert [n.ip for n in bgp.neighbors or ()] == [n.ip for n in want.neighbors or ()]
    db["BGP_GLOBALS_AF_NETWORK"].pop(f"default|ipv4_unicast|{want.networks[-1]}")
    assert (parse_config_db(db).bgp or bgp).networks == want.networks[:-1]
    legacy = {k: v for k, v in db.items() if not k.startswith(("BGP_GLOBALS", "BGP_NEIGHBOR_AF"))}
    legacy["BGP_NEIGHBOR"] = {k.removeprefix("default|"): v for k, v in db["BGP_NEIGHBOR"].items()}
    old = parse_config_db(legacy).bgp
    assert old is not None and "networks" not in old.model_fields_set
    assert old.asn == intent.bgp.asn and len(old.neighbors or ()) == len(want.neighbors or ())
