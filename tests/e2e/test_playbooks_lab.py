"""Issue 8: every shipped playbook runs against the lab; a malformed playbook gives a file:line error."""

from __future__ import annotations

from pathlib import Path

import pytest
from labkit import fresh_lab  # noqa: F401  (fixture)
from typer.testing import CliRunner

from roceops.cli.main import app

REPO = Path(__file__).resolve().parents[2]
MINI = str(REPO / "inventory" / "lab-mini.yaml")
pytestmark = pytest.mark.lab


def play(*args: str):
    return CliRunner().invoke(app, ["play", *args])


@pytest.fixture
def lab_env(fresh_lab, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(fresh_lab.state_dir))
    monkeypatch.chdir(tmp_path)
    return fresh_lab


def test_provision_then_audit_precheck_rollback(lab_env) -> None:
    result = play(str(REPO / "playbooks/provision.yaml"), "-f", MINI, "--lab", "--var", "batch=50%")
    assert result.exit_code == 0, result.output
    assert "play provision: complete (5/5 steps ok)" in result.output
    assert (Path("build") / "manifest.json").exists()

    result = play(str(REPO / "playbooks/audit.yaml"), "-f", MINI, "--lab")
    assert result.exit_code == 0, result.output
    prom = Path("build/reports/roceops.prom").read_text()
    assert "roceops_audit_findings" in prom
    assert "<testsuites>" in Path("build/reports/audit-junit.xml").read_text() or Path(
        "build/reports/audit-junit.xml").read_text().count("testcase") == 14

    result = play(str(REPO / "playbooks/precheck.yaml"), "-f", MINI, "--lab", "--var", "window=1s",
                  "--var", "nodes=gpu[001-008]")
    assert result.exit_code == 0, result.output
    assert Path("build/reports/drain.txt").read_text() == ""

    result = play(str(REPO / "playbooks/rollback.yaml"), "-f", MINI, "--lab")
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["audit", "-f", MINI, "--lab", "--format", "json"])
    assert result.exit_code == 1  # rolled back to the unconfigured backups: drift everywhere again


def test_dry_run_forces_every_step_read_only(lab_env) -> None:
    result = play(str(REPO / "playbooks/provision.yaml"), "-f", MINI, "--lab", "--dry-run")
    steps = [line for line in result.output.splitlines() if line.startswith("[") and "roceops deploy" in line]
    assert len(steps) == 2 and not any("--commit" in line for line in steps), steps
    assert result.exit_code == 1  # the final audit sees the unconfigured lab: nothing was pushed
    assert "stopped at 'audit against intent'" in result.output


def test_malformed_playbook_gives_file_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: roceops/playbook/v1\nname: x\nsteps:\n  - name: go\n    run: deploi\n")
    result = play(str(bad))
    assert result.exit_code == 3
    assert f"{bad}:5:" in result.output and "deploi" in result.output
    bad.write_text("kind: roceops/playbook/v1\nname: x\nsteps:\n  - name: go\n    rn: deploy\n")
    result = play(str(bad))
    assert result.exit_code == 3 and "did you mean 'run'" in result.output
