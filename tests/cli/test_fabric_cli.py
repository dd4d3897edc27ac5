"""The fabric commands through the real CLI: exit codes, formats, render manifest, --limit, inventory."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

from roceops.cli.main import app

runner = CliRunner()
MINI = str(EXAMPLES["lab-mini"])


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("example", ["fabric", "lab-mini"])
def test_validate_passes_on_examples(example: str) -> None:
    result = run("validate", "-f", str(EXAMPLES[example]))
    assert result.exit_code == 0, result.output
    assert "valid" in result.output


def test_validate_exit_1_on_lint_errors_and_3_on_bad_input(tmp_path: Path) -> None:
    text = EXAMPLES["lab-mini"].read_text()
    lint_bad = tmp_path / "lint.yaml"
    lint_bad.write_text(text.replace("mtu:\n  switch: 9216\n  host: 9000", "mtu:\n  switch: 9000\n  host: 9000"))
    result = run("validate", "-f", str(lint_bad), "--format", "json")
    assert result.exit_code == 1
    assert any(f["id"].startswith("MTU") for f in json.loads(result.output)["findings"])
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("nodes_per_su: 4", "nodes_per_sux: 4"))
    result = run("validate", "-f", str(bad))
    assert result.exit_code == 3
    assert "bad.yaml:" in result.output and "did you mean 'nodes_per_su'" in result.output
    assert "Traceback" not in result.output


def test_topology_json_counts() -> None:
    data = json.loads(run("topology", "-f", MINI, "--format", "json").output)
    roles = {t["role"]: t["count"] for t in data["summary"]}
    assert roles == {"leaf": 4, "spine": 2, "host": 8}
    assert data["cables"] == {"host-leaf": 16, "leaf-spine": 16}


def test_cabling_csv() -> None:
    rows = list(csv.DictReader(io.StringIO(run("cabling", "-f", MINI, "--format", "csv").output)))
    assert len(rows) == 32
    assert rows[0].keys() == {"a_device", "a_port", "b_device", "b_port", "tier", "length_m", "speed"}
    assert {r["tier"] for r in rows} == {"host-leaf", "leaf-spine"}


def test_intent_prints_device_intent_json() -> None:
    data = json.loads(run("intent", "leaf-su2-r1", "-f", MINI).output)
    assert data["platform"] == "cumulus" and data["qos"]["lossless_priorities"] == [3]
    assert run("intent", "nope", "-f", MINI).exit_code == 3


def test_render_writes_manifest_and_is_byte_identical(tmp_path: Path) -> None:
    out = tmp_path / "build"
    assert run("render", "-f", MINI, "--out", str(out)).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["devices"]) == 14
    first = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = run("render", "-f", MINI, "--out", str(out))
    assert "0 files written" in result.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == first
    entry = next(d for d in manifest["devices"] if d["device"] == "spine01")
    assert entry["platform"] == "eos" and set(entry["files"]) == {"config.eos"}


def test_render_limit_by_group_glob_and_exclusion(tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert run("render", "-f", MINI, "--out", str(out), "--limit", "leaf&su1,spine0*,!spine02").exit_code == 0
    devices = {d["device"] for d in json.loads((out / "manifest.json").read_text())["devices"]}
    assert devices == {"leaf-su1-r1", "leaf-su1-r2", "spine01"}
    result = run("render", "-f", MINI, "--out", str(out), "--limit", "lef")
    assert result.exit_code == 3 and "did you mean" in result.output


def test_inventory_export_has_no_secrets(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ROCEOPS_PASSWORD", "Never-Written-123")
    assert run("inventory", "export", "-f", MINI, "--out", str(tmp_path)).exit_code == 0
    for name in ("hosts.yaml", "groups.yaml", "defaults.yaml"):
        assert "Never-Written-123" not in (tmp_path / name).read_text()
    assert "leaf-su1-r1:" in (tmp_path / "hosts.yaml").read_text()


def test_version_and_help_with_examples() -> None:
    assert run("--version").output.startswith("roceops ")
    for command in ("validate", "topology", "cabling", "intent", "render", "deploy", "history", "rollback", "audit",
                    "health", "play", "demo"):
        result = run(command, "--help")
        assert result.exit_code == 0 and "Example" in result.output, command
    for sub in ("up", "status", "down", "inject", "clear"):
        assert "Example" in run("lab", sub, "--help").output


def test_lab_cli_up_twice_inject_status_down(tmp_path: Path, monkeypatch) -> None:
    """The detached lab through the CLI: clear one-line errors for the usual mistakes."""
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(tmp_path / "lab"))
    try:
        up = run("lab", "up", "-f", MINI, "--port", "2291", "--limit", "spine01,gpu001")
        assert up.exit_code == 0, up.output
        again = run("lab", "up", "-f", MINI, "--port", "2291")
        assert again.exit_code == 3 and "already running" in again.output
        assert run("lab", "inject", "gpu001", "nic_reset", "--port", "eth0").exit_code == 0
        status = json.loads(run("lab", "status", "--format", "json").output)
        faults = {d["name"]: d["faults"] for d in status["devices"]}
        assert "nic_reset" in faults["gpu001"] and not faults["spine01"]
        bad = run("lab", "inject", "gpu001", "no_such_fault")
        assert bad.exit_code == 3 and "unknown fault" in bad.output
    finally:
        down = run("lab", "down")
    assert down.exit_code == 0
    again = run("lab", "down")
    assert again.exit_code == 3 and "no lab is running" in again.output


@pytest.mark.parametrize("command", [["audit"], ["deploy"], ["health", "gpu001"]])
def test_a_known_hosts_file_that_is_not_there_is_bad_input(command: list[str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(tmp_path / "nowhere"))
    result = run(*command, "-f", MINI, "--journal", str(tmp_path / "j.sqlite")) if command[0] != "health" \
        else run(*command, "-f", MINI)
    assert result.exit_code == 3, result.output
    assert "ROCEOPS_KNOWN_HOSTS" in result.output and "no readable known_hosts file" in result.output
