"""Issue 14 against the lab: --lab never leaves loopback, Ctrl-C/SIGTERM/kill -9 mid-deploy, device deadlines."""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from labkit import Lab, fresh_lab, read_configs  # noqa: F401  (fixture)
from labtools import free_endpoint_base, lab_mini
from typer.testing import CliRunner

from roceops.audit.engine import AuditOptions, run_audit
from roceops.cli.main import app
from roceops.journal import open_journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[2]
LAB_MINI = REPO / "inventory" / "lab-mini.yaml"


def configs(lab: Lab, names: list[str]) -> dict[str, str]:
    """Each device's configuration text, read through its platform driver."""
    return {n: text.strip() for n, text in read_configs(lab.fabric, lab.state_dir, names, timeout_s=20).items()}


def drift(lab: Lab, names: list[str]) -> dict[str, list[str]]:
    result = run_audit(lab.fabric, names, AuditOptions(lab_dir=lab.state_dir, quiet=True, timeout_s=20))
    found: dict[str, list[str]] = {}
    for f in result.findings:
        if f.check == "config.drift" or f.check.startswith("device."):
            found.setdefault(f.device, []).append(f.path or f.check)
    return found


# ---------------------------------------------------------------------------------------------- defect 1


def test_lab_deploy_with_devices_the_lab_does_not_serve_contacts_nothing_and_exits_3(tmp_path: Path,
                                                                                      monkeypatch) -> None:
    served = ["spine01", "gpu001"]
    attempts: list[str] = []
    real_connect = socket.socket.connect

    def recording_connect(sock: socket.socket, address) -> None:  # type: ignore[no-untyped-def]
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address[0])
            if not ipaddress.ip_address(address[0]).is_loopback:
                raise OSError("test: a connection outside loopback was attempted")
        return real_connect(sock, address)

    state = tmp_path / "lab"
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(lab_mini(), served), state, base_address=base, port=port).start()
    try:
        monkeypatch.setenv("ROCEOPS_LAB_DIR", str(state))
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(socket.socket, "connect", recording_connect)
        runner = CliRunner()
        result = runner.invoke(app, ["deploy", "-f", str(LAB_MINI), "--lab", "--commit",
                                     "--journal", str(tmp_path / "j.sqlite")])
        assert result.exit_code == 3, result.output
        assert "does not serve 12 of the 14 selected devices" in result.output
        audit = runner.invoke(app, ["audit", "-f", str(LAB_MINI), "--lab", "--journal", str(tmp_path / "j.sqlite")])
        assert audit.exit_code == 3, audit.output
        health = runner.invoke(app, ["health", "gpu001", "-f", str(LAB_MINI), "--lab"])  # its leaves are not served
        assert health.exit_code == 3 and "does not serve" in health.output, health.output
        assert attempts == []  # refused before any connection
        served_only = runner.invoke(app, ["deploy", "-f", str(LAB_MINI), "--lab", "--limit", "spine01",
                                          "--journal", str(tmp_path / "j.sqlite"), "--no-diff"])
        assert served_only.exit_code == 0, served_only.output
        assert attempts and all(ipaddress.ip_address(a) in ipaddress.ip_network("127.0.0.0/8") for a in attempts)
    finally:
        thread.stop()


def test_lab_records_its_fabric_and_commands_without_f_use_it(tmp_path: Path, monkeypatch) -> None:
    """`lab up` writes fabric.json; --lab without -f uses that file; another fabric is refused as a whole."""
    state = tmp_path / "lab"
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(state))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    up = runner.invoke(app, ["lab", "up", "-f", str(LAB_MINI), "--limit", "spine01",
                             "--port", str(free_endpoint_base()[1])])
    assert up.exit_code == 0, up.output
    try:
        record = json.loads((state / "fabric.json").read_text())
        assert record["path"] == str(LAB_MINI.resolve()) and len(record["sha256"]) == 64
        shown = runner.invoke(app, ["lab", "status", "--format", "json"])
        assert json.loads(shown.output)["fabric"] == record
        dry = runner.invoke(app, ["deploy", "--lab", "--limit", "spine01", "--no-diff", "--format", "json",
                                  "--journal", str(tmp_path / "j.sqlite")])  # no -f: the lab's fabric
        assert dry.exit_code == 0, dry.output
        assert [d["status"] for d in json.loads(dry.output)["devices"]] == ["would_change"]
        other = tmp_path / "other.yaml"
        other.write_text(LAB_MINI.read_text() + "\n# another revision\n")
        refused = runner.invoke(app, ["deploy", "-f", str(other), "--lab", "--limit", "spine01",
                                      "--journal", str(tmp_path / "j.sqlite")])
        assert refused.exit_code == 3, refused.output
        assert "the running lab serves" in refused.output
    finally:
        down = runner.invoke(app, ["lab", "down"])
    assert down.exit_code == 0 and not (state / "fabric.json").exists()


# ---------------------------------------------------------------------------------------------- defects 4, 6

SIGNAL_DEVICES = ["gpu001", "gpu002", "gpu003"]


def _start_deploy(lab: Lab, tmp: Path, journal: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ROCEOPS_LAB_DIR": str(lab.state_dir)}
    cmd = [sys.executable, "-m", "roceops.cli.main", "deploy", "-f", str(LAB_MINI), "--lab", "--commit",
           "--limit", ",".join(SIGNAL_DEVICES), "--workers", "1", "--timeout", "60", "--journal", str(journal),
           "--format", "json"]
    return subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_applying(journal: Path, proc: subprocess.Popen[bytes], timeout: float = 60) -> str:
    """The first device the journal says is being changed (polls the SQLite file the deploy writes)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        if journal.exists():
            with sqlite3.connect(journal, timeout=5) as db:
                try:
                    row = db.execute("SELECT device FROM device_results WHERE status='applying'").fetchone()
                except sqlite3.OperationalError:
                    row = None
            if row:
                return str(row[0])
        time.sleep(0.05)
    raise AssertionError("no device reached `applying`")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_deploy_finishes_in_flight_starts_nothing_new_and_exits_128_plus_it(
        fresh_lab, tmp_path: Path, sig: signal.Signals, code: int) -> None:
    before = configs(fresh_lab, SIGNAL_DEVICES)
    for name in SIGNAL_DEVICES:
        fresh_lab.thread.inject(name, "slow", ms=40)
    journal = tmp_path / "j.sqlite"
    proc = _start_deploy(fresh_lab, tmp_path, journal)
    in_flight = _wait_applying(journal, proc)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    fresh_lab.thread.clear(None)
    assert proc.returncode == code, err.decode()[-2000:]
    report = json.loads(out)
    statuses = {d["device"]: d["status"] for d in report["devices"]}
    assert report["interrupted_by"] == sig.name
    assert f"{sig.name}: starting no new device" in err.decode()
    assert statuses[in_flight] in ("changed", "rolled_back"), statuses  # finished inside its transaction
    others = [n for n in SIGNAL_DEVICES if n != in_flight]
    assert all(statuses[n] == "not_started" for n in others), statuses
    after = configs(fresh_lab, SIGNAL_DEVICES)
    assert all(after[n] == before[n] for n in others)  # never touched
    if statuses[in_flight] == "changed":
        assert in_flight not in drift(fresh_lab, [in_flight])
    else:
        assert after[in_flight] == before[in_flight]
    with open_journal(journal) as j:
        run = j.runs(1)[0]
        assert run.state == "interrupted" and run.exit_code == code and run.mode == "commit"
        rows = {r.device: r.status for r in j.devices(run.id)}
        assert rows == statuses


def test_kill_9_mid_deploy_shows_interrupted_and_rollback_restores_the_changed_devices(fresh_lab,
                                                                                      tmp_path: Path) -> None:
    before = configs(fresh_lab, SIGNAL_DEVICES)
    for name in SIGNAL_DEVICES:
        fresh_lab.thread.inject(name, "slow", ms=40)
    journal = tmp_path / "j.sqlite"
    proc = _start_deploy(fresh_lab, tmp_path, journal)
    in_flight = _wait_applying(journal, proc)
    end = time.monotonic() + 60
    while configs(fresh_lab, [in_flight])[in_flight] == before[in_flight]:  # kill once the device has changed
        assert time.monotonic() < end and proc.poll() is None
    proc.kill()
    proc.communicate(timeout=30)
    fresh_lab.thread.clear(None)
    runner = CliRunner()
    env = {"ROCEOPS_LAB_DIR": str(fresh_lab.state_dir)}
    listed = runner.invoke(app, ["history", "--journal", str(journal), "--format", "json"], env=env)
    assert listed.exit_code == 0, listed.output
    run = json.loads(listed.output)[0]
    assert run["result"] == "interrupted" and run["mode"] == "commit" and run["devices"] == 3
    assert in_flight in run["may_have_changed"]
    table = runner.invoke(app, ["history", "--journal", str(journal)], env=env)
    assert "interrupted" in table.output and in_flight in table.output
    restored = runner.invoke(app, ["rollback", run["id"], "-f", str(LAB_MINI), "--lab", "--commit",
                                   "--journal", str(journal), "--format", "json"], env=env)
    assert restored.exit_code == 0, restored.output
    undone = {d["device"]: d["status"] for d in json.loads(restored.output)["devices"]}
    assert set(undone) == set(run["may_have_changed"]) and undone[in_flight] == "changed", undone
    assert configs(fresh_lab, SIGNAL_DEVICES) == before
    with open_journal(journal) as j:  # the rollback is journalled like a deploy: it can be undone in turn
        rollback_run = j.runs(1)[0]
        assert rollback_run.kind == "rollback" and rollback_run.mode == "commit" and rollback_run.state == "ok"
        assert j.may_have_changed(rollback_run.id) == sorted(undone)


# ---------------------------------------------------------------------------------------------- defect 5


@pytest.mark.parametrize(("slow", "ms", "max_fail"), [
    ("spine01", 3000, 3),  # past the deadline while logging in: its session is cut
    ("spine01", 300, 3),  # past it in the transaction: the commit timer (set to end by the deadline) reverts it
    ("leaf-su1-r1", 3000, 0),  # SONiC has no commit timer; the wave is rolled back past --max-fail
])
def test_slow_device_is_bounded_by_the_deadline_and_ends_timeout(fresh_lab, slow: str, ms: int,
                                                                 max_fail: int) -> None:
    names = [slow, "gpu001", "gpu005"]  # one wave (hosts behind different leaves)
    before = configs(fresh_lab, names)
    fresh_lab.thread.inject(slow, "slow", ms=ms)
    deadline = 10.0
    start = time.monotonic()
    report = fresh_lab.deploy(names, timeout_s=60.0, deadline_s=deadline, max_fail=max_fail)
    elapsed = time.monotonic() - start
    fresh_lab.thread.clear(slow)
    outcome = report.outcomes[slow]
    assert outcome.status == "timeout", (outcome.status, outcome.error)
    assert outcome.seconds <= deadline + 3.0, outcome.seconds
    others = {n: report.outcomes[n].status for n in names[1:]}
    if max_fail:
        assert elapsed <= deadline + 4.0, elapsed  # the run ends within its deadline and a small margin
        assert set(others.values()) == {"changed"}, others
    else:  # past --max-fail the wave is rolled back, as for any other failure
        assert set(others.values()) == {"rolled_back"}, others
        assert report.stopped_after_wave == 0
    assert report.exit_code == 2
    time.sleep(1.0)  # a commit timer set to end by the deadline has run out
    after = configs(fresh_lab, names)
    assert after[slow] == before[slow]  # rolled back, or reverted by the device's own commit timer
    if not max_fail:
        assert all(after[n] == before[n] for n in names[1:])


# ---------------------------------------------------------------------------------------------- defects 2, 6, 15


def test_fix_hints_carry_the_runs_options_and_history_counts_the_audited_devices(fresh_lab, tmp_path: Path,
                                                                                 monkeypatch) -> None:
    """An unconfigured lab device drifts everywhere: each fix hint targets this lab (-f FILE --lab)."""
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(fresh_lab.state_dir))
    monkeypatch.chdir(tmp_path)
    journal = tmp_path / "j.sqlite"
    runner = CliRunner()
    result = runner.invoke(app, ["audit", "-f", str(LAB_MINI), "--lab", "--limit", "gpu001,spine01", "--format",
                                 "json", "--journal", str(journal)])
    assert result.exit_code == 1, result.output
    hints = [f["hint"] for f in json.loads(result.output)["findings"] if "roceops deploy" in f.get("hint", "")]
    assert hints
    assert all(f"--commit -f {LAB_MINI} --lab" in h for h in hints), hints[:3]
    listed = json.loads(runner.invoke(app, ["history", "--journal", str(journal), "--format", "json"]).output)
    assert (listed[0]["kind"], listed[0]["mode"], listed[0]["devices"]) == ("audit", "read", 2)


def test_refused_login_says_authentication_failed(fresh_lab, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(fresh_lab.state_dir))
    monkeypatch.chdir(tmp_path)
    fresh_lab.thread.inject("spine01", "auth_reject")
    result = CliRunner().invoke(app, ["deploy", "-f", str(LAB_MINI), "--lab", "--commit", "--limit", "spine01",
                                      "--format", "json", "--journal", str(tmp_path / "j.sqlite")])
    fresh_lab.thread.clear("spine01")
    assert result.exit_code == 2, result.output
    device = json.loads(result.output)["devices"][0]
    assert device["status"] == "unreachable" and device["error"].startswith("authentication failed")
    assert "timeout" not in device["error"].lower()
