"""Issue 5 against the lab: full deploy, idempotence, dry run, faults leave devices at their backup, lock, secrets."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from labkit import changed_host_keys, deployed_lab, fresh_lab, read_configs, run_on_device  # noqa: F401  (fixtures)
from typer.testing import CliRunner

from roceops.audit.engine import AuditOptions, run_audit
from roceops.cli.main import app
from roceops.locking import fabric_lock
from roceops.plan import plan
from roceops.platforms.templating import render_device

pytestmark = pytest.mark.lab


def snapshot_all(lab) -> dict[str, str]:
    """Every device's configuration text, read over SSH through the platform drivers."""
    return read_configs(lab.fabric, lab.state_dir, lab.names, workers=16)


def audit(lab):
    return run_audit(lab.fabric, lab.names, AuditOptions(lab_dir=lab.state_dir, quiet=True, timeout_s=10))


def test_full_deploy_matches_intent_and_second_deploy_changes_nothing(fresh_lab) -> None:
    first = fresh_lab.deploy(canary=3, batch="50%")
    assert first.exit_code == 0, {n: (o.status, o.error) for n, o in first.outcomes.items()}
    assert {o.status for o in first.outcomes.values()} == {"changed"}
    result = audit(fresh_lab)
    assert result.findings == [], [(f.device, f.path, f.expected, f.observed) for f in result.findings]
    second = fresh_lab.deploy()
    assert {o.status for o in second.outcomes.values()} == {"unchanged"}
    assert second.exit_code == 0


def test_dry_run_changes_nothing(fresh_lab) -> None:
    before = snapshot_all(fresh_lab)
    report = fresh_lab.deploy(commit=False)
    assert {o.status for o in report.outcomes.values()} == {"would_change"}
    assert all(o.diff for o in report.outcomes.values())
    assert snapshot_all(fresh_lab) == before


@pytest.mark.parametrize(("device", "fault", "params", "status", "code"), [
    # SONiC refuses `config checkpoint` first: nothing applied, its own outcome (issue 24); Cumulus rolls back
    ("leaf-su1-r1", "reject_config", {}, "backup_refused", 1),
    ("leaf-su2-r1", "reject_config", {}, "rolled_back", 1),
    ("spine01", "reject_config", {}, "rolled_back", 1),
    ("gpu001", "reject_config", {}, "rolled_back", 1),
    # the line inside the transaction, not a count: the lines before it vary (an `enable` after a slow prompt)
    ("spine02", "drop", {"on": "configure session"}, "rolled_back", 1),
    ("leaf-su1-r2", "drop", {"after": 3}, "rolled_back", 1),
    ("leaf-su2-r2", "refuse", {}, "unreachable", 2),
    ("gpu002", "slow", {"ms": 8000}, None, None),
])
def test_fault_leaves_device_at_backup(fresh_lab, device: str, fault: str, params: dict, status: str | None,
                                       code: int | None) -> None:
    before = snapshot_all(fresh_lab) if fault not in ("refuse",) else {}
    fresh_lab.thread.inject(device, fault, **params)
    # the slow device's timeout applies to every device: 4 s leaves the others room on a loaded machine
    timeout = 4.0 if fault == "slow" else 10.0
    report = fresh_lab.deploy(max_fail=len(fresh_lab.names), timeout_s=timeout)
    outcome = report.outcomes[device]
    if status is not None:
        assert outcome.status == status, (outcome.status, outcome.error)
        assert report.exit_code == code
    else:  # a device slower than its --timeout: `timeout` within the deadline, never half-configured
        assert outcome.status == "timeout", (outcome.status, outcome.error)
        assert outcome.seconds < timeout + 2.5, outcome.seconds  # the deadline, plus a margin for a loaded machine
    fresh_lab.thread.clear(device)
    others = {n: o.status for n, o in report.outcomes.items() if n != device}
    assert set(others.values()) == {"changed"}, others
    if before:
        assert snapshot_all(fresh_lab)[device].strip() == before[device].strip()
    journal = {r.device: r for r in fresh_lab.journal.devices(report.run_id)}
    assert journal[device].status == outcome.status
    assert journal[device].error


def test_max_fail_stops_rollout_and_rolls_back_failing_wave(fresh_lab) -> None:
    before = snapshot_all(fresh_lab)
    fresh_lab.thread.inject("leaf-su1-r1", "reject_config")
    report = fresh_lab.deploy(canary=3, batch="50%", max_fail=0)
    fresh_lab.thread.clear("leaf-su1-r1")
    assert report.stopped_after_wave == 0
    assert report.exit_code == 1
    canary = report.rollout.canary
    assert "leaf-su1-r1" in canary
    assert report.outcomes["leaf-su1-r1"].status == "backup_refused"  # its checkpoint was refused: nothing applied
    assert all(report.outcomes[n].status == "rolled_back" for n in canary if n != "leaf-su1-r1")
    assert all(report.outcomes[n].status == "not_touched" for n in fresh_lab.names if n not in canary)
    after = snapshot_all(fresh_lab)
    assert {n: after[n].strip() for n in canary} == {n: before[n].strip() for n in canary}


def test_second_concurrent_deploy_fails_fast_naming_the_holder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo = Path(__file__).resolve().parents[2]
    held = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with fabric_lock(Path(".roceops"), "lab-mini", "deploy"):
            held.set()
            release.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    try:
        result = CliRunner().invoke(app, ["deploy", "-f", str(repo / "inventory/lab-mini.yaml"), "--lab"])
    finally:
        release.set()
        t.join()
    assert result.exit_code == 3
    assert "already running" in result.output and "pid" in result.output


def test_credentials_never_leak(fresh_lab, tmp_path: Path, monkeypatch) -> None:
    secret = "Canary-Pa55word-7f3e"
    monkeypatch.setenv("ROCEOPS_PASSWORD", secret)
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(fresh_lab.state_dir))
    monkeypatch.chdir(tmp_path)
    fresh_lab.thread.inject("spine01", "auth_reject")
    repo = Path(__file__).resolve().parents[2]
    journal = tmp_path / "j.sqlite"
    result = CliRunner().invoke(app, ["deploy", "-f", str(repo / "inventory/lab-mini.yaml"), "--lab", "--commit",
                                      "--limit", "spine01,gpu001", "--journal", str(journal), "--timeout", "10"])
    fresh_lab.thread.clear("spine01")
    assert result.exit_code == 2, result.output
    assert secret not in result.output
    assert secret.encode() not in journal.read_bytes()
    for path in fresh_lab.state_dir.rglob("*"):
        if path.is_file() and not path.is_socket():
            assert secret.encode() not in path.read_bytes(), path
    assert secret not in os.environ.get("ROCEOPS_LAB_PASSWORD", "")


def test_changed_host_key_refuses_the_deploy_before_anything_is_sent(fresh_lab, tmp_path: Path, monkeypatch) -> None:
    """ROCEOPS_KNOWN_HOSTS with a key the devices do not have: every device unreachable, none touched."""
    monkeypatch.setenv("ROCEOPS_KNOWN_HOSTS", str(changed_host_keys(fresh_lab, tmp_path / "known_hosts")))
    before = snapshot_all(fresh_lab)
    report = fresh_lab.deploy(["spine01", "gpu001", "leaf-su1-r1"])
    assert {o.status for o in report.outcomes.values()} == {"unreachable"} and report.exit_code == 2
    assert all("does not match" in (o.error or "") for o in report.outcomes.values())
    assert snapshot_all(fresh_lab) == before


def test_bringup_is_never_taken_silently(fresh_lab, tmp_path: Path, monkeypatch) -> None:
    """A fresh SONiC switch: the dry run names the path and the refused operations; --commit without --bringup
    stops that device (exit 1) with nothing sent; with --bringup it is configured and audits clean."""
    import json

    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(fresh_lab.state_dir))
    monkeypatch.chdir(tmp_path)
    repo = Path(__file__).resolve().parents[2]
    base = ["deploy", "-f", str(repo / "inventory/lab-mini.yaml"), "--lab", "--limit", "leaf-su1-r1,spine01",
            "--journal", str(tmp_path / "j.sqlite")]
    before = snapshot_all(fresh_lab)
    dry = CliRunner().invoke(app, [*base, "--format", "json", "--no-diff"])
    assert dry.exit_code == 0, dry.output
    leaf = next(d for d in json.loads(dry.output)["devices"] if d["device"] == "leaf-su1-r1")
    assert leaf["status"] == "would_change" and leaf["path"] == "bringup"
    assert any("refuses add /PFC_WD: Modification of PFC_WD table is illegal" in r for r in leaf["path_reasons"])
    # --max-fail 1: the stopped leaf counts as a failure; the wave is not rolled back for it
    stopped = CliRunner().invoke(app, [*base, "--commit", "--max-fail", "1", "--format", "json", "--no-diff"])
    assert stopped.exit_code == 1, stopped.output
    statuses = {d["device"]: d["status"] for d in json.loads(stopped.output)["devices"]}
    assert statuses == {"leaf-su1-r1": "needs_bringup", "spine01": "changed"}
    assert snapshot_all(fresh_lab)["leaf-su1-r1"] == before["leaf-su1-r1"]  # nothing sent to it
    # the rendered config merged in by hand (`config load`: no service restarts): the config is right, the
    # modes are not in effect, and audit and deploy both say so (facts.mode)
    rendered = render_device(plan(fresh_lab.fabric, "leaf-su1-r1")).files["config_db.json"]
    run_on_device(fresh_lab.fabric, fresh_lab.state_dir, "leaf-su1-r1", ["sudo config load -y /tmp/rendered.json"],
                  {"/tmp/rendered.json": rendered})
    stale = run_audit(fresh_lab.fabric, ["leaf-su1-r1"], AuditOptions(lab_dir=fresh_lab.state_dir, quiet=True,
                                                                      timeout_s=10))
    modes = [f for f in stale.findings if f.check == "facts.mode"]
    assert len(modes) == 1 and "bgpcfgd" in modes[0].message, [(f.check, f.path) for f in stale.findings]
    done = CliRunner().invoke(app, [*base, "--commit", "--bringup", "--format", "json", "--no-diff"])
    assert done.exit_code == 0, done.output
    assert {d["device"]: d["status"] for d in json.loads(done.output)["devices"]}["leaf-su1-r1"] == "changed"
    result = run_audit(fresh_lab.fabric, ["leaf-su1-r1", "spine01"],
                       AuditOptions(lab_dir=fresh_lab.state_dir, quiet=True, timeout_s=10))
    assert result.findings == [], [(f.device, f.path) for f in result.findings]
