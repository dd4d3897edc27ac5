"""Rendered monitoring: promtool accepts the rules of every example fabric and runs their unit tests (each alert
firing and not); thresholds come from the fabric; labels name SU, rail and tier; rendering is pure and stable."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from roceops.model.loader import load_intent
from roceops.model.monitoring import MonitoringPolicy
from roceops.monitoring import monitoring_files
from roceops.monitoring.files import DASHBOARD, RULE_TESTS, RULES, SCRAPE
from roceops.topology.expand import expand

ROOT = Path(__file__).resolve().parents[2]
FABRICS = sorted((ROOT / "inventory").glob("*.yaml"))
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed (Debian package prometheus)")
ALERTS = {"RoCEPauseStorm", "RoCEPfcOnLossyPriority", "RoCEEcnWithoutCnp", "RoCEPfcWatchdogStorm",
          "RoCELosslessQueueDrops", "RoCEFabricLinkFlapping", "RoCETelemetryTargetDown"}


def _files(path: Path, **monitoring: object) -> dict[str, str]:
    intent = load_intent(path)
    if monitoring:
        intent = intent.model_copy(update={"monitoring": MonitoringPolicy.model_validate(monitoring)})
    return monitoring_files(expand(intent))


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


@needs_promtool
@pytest.mark.parametrize("fabric", FABRICS, ids=[f.stem for f in FABRICS])
def test_promtool_checks_and_tests_the_rules_of_every_example(fabric: Path, tmp_path: Path) -> None:
    folder = _write(tmp_path, _files(fabric))
    checked = _promtool("check", "rules", RULES, cwd=folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(ALERTS)} rules found" in checked.stdout
    tested = _promtool("test", "rules", RULE_TESTS, cwd=folder)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_has_a_firing_and_a_quiet_case() -> None:
    tests = yaml.safe_load(_files(FABRICS[0])[RULE_TESTS])["tests"]
    fires = {t["alert_rule_test"][0]["alertname"] for t in tests if t["alert_rule_test"][0]["exp_alerts"]}
    quiet = {t["alert_rule_test"][0]["alertname"] for t in tests if not t["alert_rule_test"][0]["exp_alerts"]}
    assert fires == quiet == ALERTS


@needs_promtool
def test_the_unit_tests_catch_a_rule_that_departs_from_them(tmp_path: Path) -> None:
    """Tests generated for a 1000/s storm bound fail against rules rendered with a 10x higher bound."""
    mini = ROOT / "inventory" / "lab-mini.yaml"
    files = _files(mini)
    files[RULES] = _files(mini, pause_storm_pps=10_000.0)[RULES]
    result = _promtool("test", "rules", RULE_TESTS, cwd=_write(tmp_path, files))
    assert result.returncode != 0
    assert "RoCEPauseStorm" in result.stdout + result.stderr


def test_thresholds_and_lossless_priorities_come_from_the_fabric() -> None:
    rules = yaml.safe_load(_files(ROOT / "inventory" / "lab-mini.yaml", pause_storm_pps=250.0, rate_window_s=30,
                                  scrape_interval_s=5, alert_for_s=15)[RULES])
    by_name = {r["alert"]: r for r in rules["groups"][0]["rules"]}
    assert by_name["RoCEPauseStorm"]["expr"] == 'rate(roceops_pfc_pause_frames_total{priority=~"3"}[30s]) > 250'
    assert by_name["RoCEPfcOnLossyPriority"]["expr"].startswith('rate(roceops_pfc_pause_frames_total{priority!~"3"}')
    assert by_name["RoCEPauseStorm"]["for"] == "15s" and rules["groups"][0]["interval"] == "5s"
    assert by_name["RoCEPauseStorm"]["labels"] == {"severity": "critical", "fabric": "lab-mini"}
    for label in ("tier", "su", "rail"):
        assert f"$labels.{label}" in by_name["RoCEPauseStorm"]["annotations"]["description"]
    assert "sum by (su, rail)" in by_name["RoCEEcnWithoutCnp"]["expr"]


def test_monitoring_policy_is_strict() -> None:
    with pytest.raises(ValidationError, match="extra"):
        MonitoringPolicy.model_validate({"pause_storm": 5})
    with pytest.raises(ValidationError):
        MonitoringPolicy.model_validate({"scrape_interval_s": "10"})  # strict: no strings for numbers
    with pytest.raises(ValidationError, match="twice"):
        MonitoringPolicy.model_validate({"scrape_interval_s": 30, "rate_window_s": 45})


def test_dashboard_has_tier_su_and_rail_panels() -> None:
    board = json.loads(_files(ROOT / "inventory" / "lab-mini.yaml")[DASHBOARD])
    rows = [p for p in board["panels"] if p["type"] == "row"]
    assert [r["title"] for r in rows] == ["Tier: leaf", "Tier: spine", "Tier: host", "SU $su", "Rail $rail"]
    assert [r.get("repeat") for r in rows[-2:]] == ["su", "rail"]
    exprs = [t["expr"] for p in board["panels"] if p["type"] != "row" for t in p["targets"]]
    assert any('tier="spine"' in e for e in exprs) and any('su=~"$su"' in e for e in exprs)
    assert any('rail=~"$rail"' in e for e in exprs)
    assert {v["name"] for v in board["templating"]["list"]} == {"datasource", "tier", "su", "rail"}


def test_scrape_config_names_the_exporters_and_the_rules() -> None:
    scrape = yaml.safe_load(_files(ROOT / "inventory" / "lab-mini.yaml", exporters=["c0:9105", "c1:9105"])[SCRAPE])
    job = scrape["scrape_configs"][0]
    assert job["static_configs"][0]["targets"] == ["c0:9105", "c1:9105"]
    assert scrape["rule_files"] == [RULES] and job["honor_labels"] is True


def test_rendering_is_deterministic() -> None:
    assert _files(FABRICS[0]) == _files(FABRICS[0])
