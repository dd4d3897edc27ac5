"""SONiC CONFIG_DB validation against the upstream YANG models (libyang 2.x)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("libyang", reason="libyang python binding not installed (pip install libyang==2.8.0)")

from roceops.platforms.sonic import yang
from roceops.platforms.sonic.yang import SonicYangValidator, YangUnavailable, get_validator

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
YANG_DIR = SHARED / "sonic-yang"
FIXTURES = SHARED / "fixtures" / "sonic"

try:
    VALIDATOR = get_validator()
except YangUnavailable as exc:  # pragma: no cover - depends on the host
    pytest.skip(f"SONiC YANG validation unavailable: {exc}", allow_module_level=True)


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture
def example() -> dict[str, Any]:
    return load(YANG_DIR / "example_config_db.json")


_PORT_RE = re.compile(r"Ethernet[0-9]+")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from key.split("|")
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, str):
        yield from node.split(",")


def with_ports_and_metadata(config_db: dict[str, Any]) -> dict[str, Any]:
    """Add the PORT table (every referenced port) and DEVICE_METADATA the fragments lack."""
    ports = sorted({s for s in _strings(config_db) if _PORT_RE.fullmatch(s)}, key=lambda p: int(p[8:]))
    assert ports, "fixture references no ports"
    out = dict(config_db)
    out["PORT"] = {p: {"lanes": p[len("Ethernet") :], "speed": "100000", "admin_status": "up"} for p in ports}
    out["DEVICE_METADATA"] = {"localhost": {"buffer_model": "traditional"}}
    return out


# ----------------------------------------------------------------------------- golden pair


def test_validator_is_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(yang.ENV_VAR, raising=False)
    assert get_validator() is VALIDATOR
    assert yang.yang_dir() == YANG_DIR.resolve()


def test_example_validates(example: dict[str, Any]) -> None:
    assert VALIDATOR.validate(example) == []
    assert VALIDATOR.skipped_tables(example) == []


def test_example_translation_matches_golden(example: dict[str, Any]) -> None:
    golden = load(YANG_DIR / "example_yang_instance.json")
    assert VALIDATOR.to_instance(example) == golden


def test_value_typing_rfc7951(example: dict[str, Any]) -> None:
    inst = VALIDATOR.to_instance(example)
    port = inst["sonic-port:sonic-port"]["sonic-port:PORT"]["PORT_LIST"][0]
    assert port["speed"] == 100000 and port["mtu"] == 9100 and port["lanes"] == "0,1,2,3"
    wred = inst["sonic-wred-profile:sonic-wred-profile"]["sonic-wred-profile:WRED_PROFILE"]
    entry = wred["WRED_PROFILE_LIST"][0]
    assert entry["green_min_threshold"] == "1048576"  # uint64 stays a string
    assert entry["wred_green_enable"] is True
    egress = inst["sonic-buffer-port-egress-profile-list:sonic-buffer-port-egress-profile-list"]
    lst = egress["sonic-buffer-port-egress-profile-list:BUFFER_PORT_EGRESS_PROFILE_LIST"]
    assert lst["BUFFER_PORT_EGRESS_PROFILE_LIST_LIST"][0]["profile_list"] == [
        "egress_lossless_profile",
        "egress_lossy_profile",
    ]


def test_unknown_tables_are_skipped(example: dict[str, Any]) -> None:
    example["NO_SUCH_TABLE"] = {"x": {"a": "b"}}
    translation = VALIDATOR.translate(example)
    assert translation.skipped == ["NO_SUCH_TABLE"]
    assert VALIDATOR.skipped_tables(example) == ["NO_SUCH_TABLE"]
    assert VALIDATOR.validate(example) == []


def test_unknown_field_and_bad_key_are_reported(example: dict[str, Any]) -> None:
    example["SCHEDULER"]["scheduler.0"]["colour"] = "blue"
    errors = VALIDATOR.validate(example)
    assert len(errors) == 1 and 'Node "colour" not found' in errors[0]
    example["SCHEDULER"]["scheduler.0"].pop("colour")
    example["SCHEDULER"]["a|b|c"] = {"type": "DWRR"}
    assert VALIDATOR.validate(example) == [
        "SCHEDULER|a|b|c: no list or container of YANG table SCHEDULER takes this key"
    ]


# ----------------------------------------------------------------------------- upstream fixtures


@pytest.mark.parametrize(
    "name",
    [
        "config_db_qos_mellanox4600c_c64.json",
        "config_db_qos_dell9332.json",
        "config_db_buffers_mellanox4600c_t1.json",
    ],
)
def test_upstream_fixture_validates(name: str) -> None:
    config_db = load(FIXTURES / name)
    assert VALIDATOR.validate(with_ports_and_metadata(config_db)) == []


def test_dell_fixture_without_ports_fails() -> None:
    config_db = load(FIXTURES / "config_db_qos_dell9332.json")
    config_db["DEVICE_METADATA"] = {"localhost": {"buffer_model": "traditional"}}
    errors = VALIDATOR.validate(config_db)
    assert len(errors) == 1
    assert "no matching subtype found" in errors[0] or "Invalid leafref value" in errors[0]


# ----------------------------------------------------------------------------- mutations

Mutation = Callable[[dict[str, Any]], None]


def _set(table: str, key: str, field: str, value: str) -> Mutation:
    def apply(db: dict[str, Any]) -> None:
        db[table][key][field] = value

    return apply


def _rekey(table: str, old: str, new: str) -> Mutation:
    def apply(db: dict[str, Any]) -> None:
        db[table][new] = db[table].pop(old)

    return apply


def _poll_interval_too_long(db: dict[str, Any]) -> None:
    db["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "400"
    db["PFC_WD"]["Ethernet0"]["detection_time"] = "300"


def _pg_on_unknown_port(db: dict[str, Any]) -> None:
    db["BUFFER_PG"]["Ethernet8|3-4"] = {"profile": "pg_lossless_100000_5m_profile"}


def _pool_percentage(db: dict[str, Any]) -> None:
    del db["BUFFER_POOL"]["ingress_lossless_pool"]["size"]
    db["BUFFER_POOL"]["ingress_lossless_pool"]["percentage"] = "50"


def _profile_without_pool(db: dict[str, Any]) -> None:
    del db["BUFFER_PROFILE"]["egress_lossy_profile"]["pool"]


MUTATIONS: list[tuple[str, Mutation, str]] = [
    (
        "pfc_enable_bad_priority",
        _set("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,9"),
        'Unsatisfied pattern - "3,9" does not conform to "([0-7](,[0-7])*)?".',
    ),
    (
        "wred_threshold_with_unit",
        _set("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold", "1MB"),
        'Invalid type uint64 value "1MB".',
    ),
    (
        "wred_max_below_min",
        _set("WRED_PROFILE", "AZURE_LOSSLESS", "green_max_threshold", "1000"),
        "Green max threshold must be greater than or equal to min threshold",
    ),
    (
        "queue_unknown_wred_profile",
        _set("QUEUE", "Ethernet0|3", "wred_profile", "NO_SUCH_PROFILE"),
        'Invalid leafref value "NO_SUCH_PROFILE" - no target instance',
    ),
    ("dscp_out_of_range", _set("DSCP_TO_TC_MAP", "AZURE", "64", "1"), "Invalid DSCP"),
    ("tc_out_of_range", _set("DSCP_TO_TC_MAP", "AZURE", "3", "16"), "Invalid Traffic Class"),
    (
        "pfcwd_detection_too_short",
        _set("PFC_WD", "Ethernet0", "detection_time", "50"),
        'Unsatisfied range - value "50" is out of the allowed range.',
    ),
    (
        "pfcwd_poll_interval_above_detection",
        _poll_interval_too_long,
        "detection_time must be greater than or equal to POLL_INTERVAL",
    ),
    (
        "buffer_pg_bad_range",
        _rekey("BUFFER_PG", "Ethernet0|3-4", "Ethernet0|3-9"),
        "Invalid Buffer PG number",
    ),
    ("buffer_pg_unknown_port", _pg_on_unknown_port, 'Invalid leafref value "Ethernet8"'),
    (
        "pool_percentage_traditional",
        _pool_percentage,
        "Percentage must be configured in dynamic buffer model",
    ),
    ("voq_forbids_queue_list", _set("DEVICE_METADATA", "localhost", "switch_type", "voq"), "When condition"),
    (
        "wred_bad_ecn",
        _set("WRED_PROFILE", "AZURE_LOSSLESS", "ecn", "ecn_purple"),
        'Invalid enumeration value "ecn_purple".',
    ),
    ("profile_without_pool", _profile_without_pool, 'Mandatory node "pool" instance does not exist.'),
    (
        "dynamic_th_out_of_range",
        _set("BUFFER_PROFILE", "egress_lossy_profile", "dynamic_th", "8"),
        'Unsatisfied range - value "8" is out of the allowed range.',
    ),
]


@pytest.mark.parametrize(("mutate", "expected"), [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_mutation_rejected(example: dict[str, Any], mutate: Mutation, expected: str) -> None:
    mutated = copy.deepcopy(example)
    mutate(mutated)
    errors = VALIDATOR.validate(mutated)
    assert errors, "mutation was accepted"
    assert any(expected in e for e in errors), errors


def test_error_carries_data_path(example: dict[str, Any]) -> None:
    _set("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,9")(example)
    (error,) = VALIDATOR.validate(example)
    path = "/sonic-port-qos-map:sonic-port-qos-map/PORT_QOS_MAP/PORT_QOS_MAP_LIST[ifname='Ethernet0']"
    assert error.startswith(f"{path}/pfc_enable: Unsatisfied pattern")


def test_loading_and_validation_are_quiet(example: dict[str, Any], capfd: pytest.CaptureFixture[str]) -> None:
    SonicYangValidator(YANG_DIR)  # fresh context: import warnings must not reach stderr
    _set("PFC_WD", "Ethernet0", "detection_time", "50")(example)
    assert VALIDATOR.validate(example)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


# ----------------------------------------------------------------------------- schema-driven

_TOY_YANG = """
module toy-table {
    namespace "http://example.com/toy-table";
    prefix toy;
    container toy-table {
        container TOY {
            list TOY_ADDR_LIST {
                key "addr";
                leaf addr { type string { pattern "[0-9.]+"; } }
                leaf weight { type uint8; }
            }
            list TOY_NAME_LIST {
                key "name";
                leaf name { type string; }
                leaf-list members { type uint16; }
                leaf big { type uint64; }
                leaf on { type boolean; }
            }
        }
    }
}
"""


def test_new_table_needs_no_code(tmp_path: Path) -> None:
    (tmp_path / "toy-table.yang").write_text(_TOY_YANG)
    validator = SonicYangValidator(tmp_path)
    config_db = {
        "TOY": {
            "10.0.0.1": {"weight": "3"},
            "red": {"members@": "1,2", "big": "5", "on": "false"},
        }
    }
    assert validator.to_instance(config_db) == {
        "toy-table:toy-table": {
            "toy-table:TOY": {
                "TOY_ADDR_LIST": [{"addr": "10.0.0.1", "weight": 3}],
                "TOY_NAME_LIST": [{"name": "red", "members": [1, 2], "big": "5", "on": False}],
            }
        }
    }
    assert validator.validate(config_db) == []
    config_db["TOY"]["red"]["members@"] = "1,70000"
    (error,) = validator.validate(config_db)
    assert "members" in error and "70000" in error


def test_missing_model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(YangUnavailable, match="libyang2-dev"):
        SonicYangValidator(tmp_path)
    monkeypatch.setenv(yang.ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(YangUnavailable, match=yang.ENV_VAR):
        yang.yang_dir()
