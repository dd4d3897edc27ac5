"""lint(): the examples are clean, every rule is tested and documented, findings serialize, and it is fast."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO
from test_rules import CASES

from roceops.lint import RULES, LintReport, Severity, lint
from roceops.model.intent import FabricIntent
from roceops.model.loader import load
from roceops.topology.expand import expand

# rules tested in test_fabric_rules.py with a hand-modified fabric
# HW006: tests/lint/test_hardware_rules.py; LB004, LB005: tests/platforms/test_load_balancing_platforms.py
FABRIC_TESTED = {"TOPO000", "TOPO002", "TOPO005", "TOPO008", "TOPO009", "ASN002", "HW006", "LB004", "LB005",
                 "HW020", "HW021", "HW022", "HW023", "HW024", "HW026", "HW027",  # test_model_profile_rules.py
                 "ECN010",  # ECN010: tests/plan/test_speed_examples.py (the 800G example's mixed-speed leaf)
                 "HW028"}  # tests/hardware/test_vendor_managed.py (a vendor-managed SKU imported into a catalogue)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_lint_clean(name: str) -> None:
    source = load(EXAMPLES[name])
    report = lint(source.intent)
    for f in report.warnings:
        line, col = source.locate(f.path)
        print(f"{EXAMPLES[name].name}:{line}:{col}: {f}")
    assert report.errors == []
    assert report.ok


def test_every_rule_has_a_breaking_test() -> None:
    tested = {c[0] for c in CASES} | FABRIC_TESTED
    assert tested == {r.id for r in RULES}


def test_every_rule_is_documented() -> None:
    doc = (REPO / "docs" / "lint-rules.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z]+\d{3})` \| (error|warning) \|", doc, re.MULTILINE))
    assert documented >= {(r.id, str(r.severity)) for r in RULES}


def test_rules_are_well_formed() -> None:
    for r in RULES:
        assert re.fullmatch(r"[A-Z]{2,5}\d{3}", r.id)
        assert r.summary and r.hint
        assert r.severity in (Severity.ERROR, Severity.WARNING)


def test_report_shape() -> None:
    # exclude_unset: a dumped default would count as pinned (the DCQCN speed profile yields to pinned values)
    data = FabricIntent.model_validate({**_superpod(1).model_dump(mode="json", exclude_unset=True),
                                        "mtu": {"host": 9216}})
    report = lint(data)
    assert isinstance(report, LintReport)
    assert [f.id for f in report.errors] == ["MTU001"]
    # EOS spines on an SN5600 SKU: lint's headroom estimate for them is roceops' formula, below NVIDIA's table
    assert [f.id for f in report.warnings] == ["HDRM004"] and not report.ok
    dumped = report.findings[0].model_dump(mode="json")
    assert dumped == {"id": "MTU001", "severity": "error", "path": "mtu.host", "message": dumped["message"],
                      "hint": dumped["hint"]}
    assert str(report).startswith("error MTU001 mtu.host: ")


def test_findings_are_sorted_errors_first() -> None:
    data = _superpod(1).model_dump(mode="json")
    data["mtu"] = {"host": 9216}
    data["qos"]["pfc_watchdog"]["enabled"] = False
    report = lint(FabricIntent.model_validate(data))
    assert [f.severity for f in report.findings] == sorted((f.severity for f in report.findings),
                                                           key=lambda s: s != Severity.ERROR)


def test_lint_reuses_a_given_fabric() -> None:
    intent = _superpod(2)
    fabric = expand(intent)
    report = lint(intent, fabric)
    assert report.fabric is fabric
    assert report.ok


def _superpod(sus: int) -> FabricIntent:
    """NVIDIA B200-style: 32 nodes x 8 rails per SU, 64-port 400G switches, core tier when needed."""
    return FabricIntent.model_validate({
        "name": f"perf-{sus}su",
        "scalable_units": {"count": sus, "nodes_per_su": 32, "target_count": sus},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/15", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"},
        "qos": {"pfc_watchdog": {"detect_ms": 200, "restore_ms": 400, "poll_ms": 100}},
        "load_balancing": {"qps_per_connection": 16},  # 32 connections on 32 uplinks: quiet LB001
    })


def test_16_sus_lint_under_3_seconds() -> None:
    intent = _superpod(16)
    start = time.process_time()  # CPU seconds: a loaded CI machine must not fail a cost bound
    report = lint(intent)
    elapsed = time.process_time() - start
    assert report.ok, str(report)
    assert report.fabric is not None and len(report.fabric.hosts) == 512
    assert elapsed < 3.0, f"lint of 16 SUs (expansion included) took {elapsed:.2f} CPU s"


@pytest.mark.slow
def test_64_sus_lint_beyond_expansion_under_3_seconds(tmp_path: Path) -> None:
    intent = _superpod(64)
    fabric = expand(intent)
    start = time.process_time()
    report = lint(intent, fabric)
    elapsed = time.process_time() - start
    assert len(fabric.links) > 45_000
    assert report.ok, str(report)
    assert elapsed < 3.0, f"lint of 64 SUs took {elapsed:.2f} s beyond expansion"
