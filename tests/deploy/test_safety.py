"""Issue 14 without a lab: empty selections, the --lab guards, key files, deadlines, signals, the journal."""

from __future__ import annotations

import ipaddress
import json
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import paramiko
import pytest
from conftest import EXAMPLES
from nornir.core.configuration import Config
from nornir.core.inventory import Host
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.deploy.control import DeviceClock, RunControl
from roceops.deploy.device import DeviceOutcome, deploy_device, run_transaction
from roceops.device.change import Change, Snapshot
from roceops.journal import Journal, open_journal
from roceops.model.loader import load
from roceops.nornir_glue.inventory import NotInLab, build_inventory
from roceops.nornir_glue.runner import connect_host
from roceops.platforms.channel import DeadlineExceeded, read_timeout
from roceops.selection import LimitError, select
from roceops.topology.expand import expand

LAB_MINI = EXAMPLES["lab-mini"]


@pytest.fixture
def no_network(monkeypatch) -> list[tuple[str, int]]:
    """Every TCP connection attempt is recorded and refused (none of these tests may connect anywhere)."""
    attempts: list[tuple[str, int]] = []

    def refuse(sock: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("test: no connection allowed")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.setenv("ROCEOPS_JOURNAL", str(tmp_path / "journal.sqlite"))
    return tmp_path


# ---------------------------------------------------------------------------------------------- defect 3


def test_blank_limit_is_an_error_not_everything() -> None:
    fabric = expand(load(LAB_MINI).intent)
    with pytest.raises(LimitError, match="names no device"):
        select(list(fabric.devices()), "")
    with pytest.raises(LimitError, match="names no device"):
        select(list(fabric.devices()), " , ")
    assert len(select(list(fabric.devices()), None)) == 14


@pytest.mark.parametrize("argv", [
    ["deploy", "--commit", "--limit", ""],
    ["deploy", "--commit", "--limit", "!*"],
    ["deploy", "--limit", "!*"],
    ["audit", "--limit", "!*"],
    ["audit", "--limit", ""],
])
def test_empty_selection_exits_3_before_any_connection(argv: list[str], in_tmp: Path, no_network) -> None:
    result = CliRunner().invoke(app, [*argv, "-f", str(LAB_MINI)])
    assert result.exit_code == 3, result.output
    assert "no device" in result.output or "no run" in result.output
    assert "0 devices" not in result.output
    assert no_network == []


def test_rollback_of_a_run_that_changed_nothing_is_an_error(in_tmp: Path, no_network) -> None:
    with open_journal(in_tmp / "journal.sqlite") as j:  # a dry run: its devices were only diffed
        run = j.start_run("deploy", "lab-mini", "h", {"commit": False}, device_count=1)
        j.record_device(run, "spine01", "eos", "would_change", backup_format="eos_cli", backup="old\n")
        j.finish_run(run, "ok", 0)
    for argv in (["rollback", run, "--commit"], ["rollback", "last"]):
        result = CliRunner().invoke(app, [*argv, "-f", str(LAB_MINI)])
        assert result.exit_code == 3 and "nothing to roll back" in result.output, result.output
    assert no_network == []


def test_deploy_engine_refuses_an_empty_selection(tmp_path: Path) -> None:
    from roceops.deploy.engine import DeployOptions, deploy

    with pytest.raises(ValueError, match="empty"):
        deploy(expand(load(LAB_MINI).intent), [], DeployOptions(commit=True), Journal(tmp_path / "j"), "r")


# ---------------------------------------------------------------------------------------------- defect 1


def test_inventory_never_falls_back_to_management_addresses_with_a_lab(tmp_path: Path) -> None:
    fabric = expand(load(LAB_MINI).intent)
    (tmp_path / "overlay.json").write_text(json.dumps({"spine01": {"host": "127.9.0.1", "port": 2222}}))
    inv = build_inventory(fabric, "spine01", tmp_path)
    assert inv.hosts["spine01"].hostname == "127.9.0.1"
    with pytest.raises(NotInLab, match="does not serve gpu001"):
        build_inventory(fabric, "spine01,gpu001", tmp_path)
    (tmp_path / "overlay.json").write_text(json.dumps({"spine01": {"host": "192.0.2.5", "port": 22}}))
    with pytest.raises(NotInLab, match=r"outside 127\.0\.0\.0/8"):
        build_inventory(fabric, "spine01", tmp_path)


def test_connection_guard_refuses_non_loopback_hosts_of_a_lab_run(no_network) -> None:
    host = Host(name="spine01", hostname="192.0.2.5", data={"roceops_lab": True, "roceops_login": "netmiko"})
    with pytest.raises(NotInLab, match=r"outside 127\.0\.0\.0/8"):
        connect_host(host, Config())
    assert no_network == []


def test_lab_run_without_a_lab_is_refused(in_tmp: Path, no_network) -> None:
    result = CliRunner().invoke(app, ["deploy", "-f", str(LAB_MINI), "--lab", "--limit", "spine01"])
    assert result.exit_code == 3 and "no lab is running" in result.output
    assert no_network == []


# ---------------------------------------------------------------------------------------------- defect 15


def _encrypted_key(path: Path) -> Path:
    paramiko.RSAKey.generate(1024).write_private_key_file(str(path), password="s3cret-Pass")
    return path


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: d / "missing", "cannot read it"),
    (lambda d: d, "cannot read it"),  # a directory
    (lambda d: (d / "k").write_text("not a key\n") and d / "k", "not a private key"),
    (lambda d: _encrypted_key(d / "enc"), "encrypted"),
])
def test_bad_ssh_key_file_is_bad_input_before_any_connection(make: Any, message: str, in_tmp: Path, monkeypatch,
                                                            no_network) -> None:
    keys = in_tmp / "keys"
    keys.mkdir()
    monkeypatch.setenv("ROCEOPS_SSH_KEY", str(make(keys)))
    for argv in (["deploy", "--limit", "spine01"], ["audit", "--limit", "spine01"], ["health", "gpu001"]):
        result = CliRunner().invoke(app, [*argv, "-f", str(LAB_MINI)])
        assert result.exit_code == 3, result.output
        assert "ROCEOPS_SSH_KEY" in result.output and message in result.output
        assert "s3cret-Pass" not in result.output
    assert no_network == []


# ---------------------------------------------------------------------------------------------- defects 4, 5


class FakeDriver:
    """A platform driver double recording what it was asked to do."""

    def __init__(self, commit_timer: bool, slow_apply_s: float = 0.0, journal: list[str] | None = None) -> None:
        self.commit_timer = commit_timer
        self.slow_apply_s = slow_apply_s
        self.calls: list[str] = []
        self.journal = journal if journal is not None else []
        self.confirm_timeout: int | None = None
        self.slow_confirm = False

    def read_config(self, conn: Any) -> Snapshot:
        self.calls.append("read_config")
        return Snapshot(format="eos_cli", text="old\n")

    def diff(self, current: Snapshot, rendered: Any, intent: Any) -> Change:
        return Change(diff="+new", payload=["new"])

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        self.calls.append(f"apply after {self.journal}")
        self.confirm_timeout = confirm_timeout_s
        end = time.monotonic() + self.slow_apply_s
        while time.monotonic() < end:
            read_timeout(conn, 60.0)  # what every driver read does: raises once the deadline passed
            time.sleep(0.01)

    def confirm(self, conn: Any, txn: str) -> None:
        self.calls.append("confirm")
        if self.slow_confirm:
            time.sleep(1.2)
            read_timeout(conn, 60.0)

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        self.calls.append("abort")


class Conn:
    read_timeout_override = 60.0


class FakeConnector:
    def __init__(self, clock: DeviceClock | None = None) -> None:
        self.conn = Conn()
        self.clock = clock

    def connect(self) -> Any:
        if self.clock is not None:
            self.clock.attach(self.conn)
        return self.conn

    def reconnect(self) -> Any:
        return self.connect()


class Rendered:
    name, platform = "spine01", "eos"


def _verify_ok(conn: Any) -> None:
    return None


def test_read_timeout_is_bounded_by_the_connections_deadline() -> None:
    conn = Conn()
    DeviceClock(time.monotonic() + 2.0, answer_s=60.0).attach(conn)
    assert 1.0 < read_timeout(conn, 120.0) <= 2.0
    conn.roceops_deadline = time.monotonic() - 1  # type: ignore[attr-defined]
    with pytest.raises(DeadlineExceeded):
        read_timeout(conn, 120.0)


def test_deadline_in_a_commit_timer_transaction_leaves_the_revert_to_the_timer() -> None:
    clock = DeviceClock(time.monotonic() + 1.5)
    driver = FakeDriver(commit_timer=True, slow_apply_s=5.0)
    connector = FakeConnector(clock)
    outcome = DeviceOutcome(device="spine01", platform="eos", backup=Snapshot(format="eos_cli", text="old\n"))
    start = time.monotonic()
    run_transaction(driver, connector, outcome, connector.connect(), Change(diff="", payload=["x"]), "t", 300,  # type: ignore[arg-type]
                    _verify_ok, clock)
    assert time.monotonic() - start < 2.5
    assert outcome.status == "timeout" and "commit timer" in (outcome.error or "")
    assert driver.confirm_timeout is not None and driver.confirm_timeout <= 1  # ends by our deadline
    assert "confirm" not in driver.calls and "abort" not in driver.calls


def test_deadline_while_confirming_says_the_outcome_is_unknown_and_sends_nothing_more() -> None:
    clock = DeviceClock(time.monotonic() + 1.0)
    driver = FakeDriver(commit_timer=True)
    driver.slow_confirm = True
    connector = FakeConnector(clock)
    outcome = DeviceOutcome(device="spine01", platform="eos", backup=Snapshot(format="eos_cli", text="old\n"))
    run_transaction(driver, connector, outcome, connector.connect(), Change(diff="", payload=["x"]), "t", 300,  # type: ignore[arg-type]
                    _verify_ok, clock)
    assert outcome.status == "timeout" and "either confirmed or reverted" in (outcome.error or "")
    assert driver.calls[-1] == "confirm"


def test_deadline_without_a_commit_timer_rolls_back_within_the_grace() -> None:
    clock = DeviceClock(time.monotonic() + 1.0)
    driver = FakeDriver(commit_timer=False, slow_apply_s=5.0)
    connector = FakeConnector(clock)
    outcome = DeviceOutcome(device="leaf", platform="sonic", backup=Snapshot(format="eos_cli", text="old\n"))
    run_transaction(driver, connector, outcome, connector.connect(), Change(diff="", payload=["x"]), "t", 300,  # type: ignore[arg-type]
                    lambda conn: None, clock)
    assert outcome.status == "timeout" and "rolled back" in (outcome.error or "")
    assert driver.calls[-2:] == ["abort", "read_config"] and clock.in_grace  # restored, then read back


def test_write_ahead_comes_before_the_first_change_and_a_stop_before_it_changes_nothing() -> None:
    written: list[str] = []
    driver = FakeDriver(commit_timer=True, journal=written)
    control = RunControl()
    outcome = deploy_device(driver, FakeConnector(control.clock(30)), Rendered(), None, commit=True,  # type: ignore[arg-type]
                            txn="t", clock=control.clock(30), before_apply=lambda o: written.append(o.device))
    assert driver.calls[1] == "apply after ['spine01']"  # journalled, then applied
    assert outcome.status in ("changed", "rolled_back")
    stopped = RunControl()
    stopped.request_stop(2)
    driver2, written2 = FakeDriver(commit_timer=True), []  # type: ignore[var-annotated]
    outcome2 = deploy_device(driver2, FakeConnector(), Rendered(), None, commit=True, txn="t",  # type: ignore[arg-type]
                             clock=stopped.clock(30), before_apply=lambda o: written2.append(o.device))
    assert outcome2.status == "interrupted" and written2 == [] and driver2.calls == ["read_config"]
    assert stopped.refusal() == "not started: the run was interrupted (SIGINT)"


def test_run_deadline_caps_device_clocks_and_refuses_new_devices() -> None:
    control = RunControl(deadline_s=1.0)
    assert control.clock(60).remaining() <= 1.0
    assert control.refusal() is None
    control.run_deadline = time.monotonic() - 0.1
    assert control.refusal() == "not started: the run's --deadline passed"


# ---------------------------------------------------------------------------------------------- defect 6


def test_a_killed_run_is_interrupted_with_the_devices_it_may_have_changed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    j = Journal(tmp_path / "j.sqlite")
    run = j.start_run("deploy", "lab-mini", "h", {"commit": True}, device_count=3)
    j.db.execute("UPDATE runs SET pid=? WHERE id=?", (dead.pid, run))  # as if that process had been killed
    j.about_to_apply(run, "spine01", "eos", "eos_cli", "old\n")
    j.record_device(run, "gpu001", "linux_mlx5", "changed", backup_format="host_state_json", backup="{}")
    j.record_device(run, "gpu002", "linux_mlx5", "not_started")
    j.close()
    with open_journal(tmp_path / "j.sqlite") as again:  # reopened: everything was on disk
        row = again.run(run)
        assert row is not None and row.state == "interrupted" and row.mode == "commit"
        assert again.may_have_changed(run) == ["gpu001", "spine01"]
    live = Journal(tmp_path / "j.sqlite")
    running = live.start_run("deploy", "lab-mini", "h", {"commit": False})
    assert live.run(running).state == "running"  # type: ignore[union-attr]
    live.db.execute("UPDATE runs SET host='another-host', pid=? WHERE id=?", (dead.pid, running))
    elsewhere = live.run(running)
    assert elsewhere is not None and not elsewhere.interrupted  # a pid from another host proves nothing here
    assert elsewhere.state == "unfinished (ran on another-host)"
    live.close()


def test_history_tells_dry_runs_from_commits_and_shows_audit_device_counts(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with open_journal(path) as j:
        dry = j.start_run("deploy", "lab-mini", "h", {"commit": False}, device_count=2)
        j.finish_run(dry, "ok", 0)
        audit = j.start_run("audit", "lab-mini", "h", {}, device_count=14)
        j.finish_run(audit, "0 findings", 0)
        commit = j.start_run("deploy", "lab-mini", "h", {"commit": True}, device_count=1)
        j.finish_run(commit, "ok", 0)
    result = CliRunner().invoke(app, ["history", "--journal", str(path), "--format", "json"])
    rows = {r["id"]: r for r in json.loads(result.output)}
    assert (rows[dry]["mode"], rows[dry]["devices"]) == ("dry run", 2)
    assert (rows[commit]["mode"], rows[commit]["devices"]) == ("commit", 1)
    assert (rows[audit]["mode"], rows[audit]["devices"]) == ("read", 14)


def test_journals_of_the_previous_schema_are_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE runs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, user TEXT NOT NULL, started REAL "
                     "NOT NULL, finished REAL, fabric TEXT NOT NULL, fabric_sha256 TEXT NOT NULL, args TEXT NOT NULL "
                     "DEFAULT '{}', result TEXT, exit_code INTEGER);"
                     "INSERT INTO runs VALUES ('r1','deploy','u',1.0,2.0,'f','h','{\"commit\": true}','ok',0);")
    db.commit()
    db.close()
    with open_journal(path) as j:
        row = j.run("r1")
        assert row is not None and row.mode == "commit" and row.device_count is None and row.state == "ok"


def test_is_loopback_literals_only() -> None:
    from roceops.nornir_glue.inventory import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("127.255.1.2")
    assert not is_loopback("localhost") and not is_loopback("::1x") and not is_loopback("10.0.0.1")
    assert ipaddress.ip_address("127.1.2.3").is_loopback


@pytest.mark.parametrize("limit", ["", " , ", "!*"])
def test_a_play_with_writing_steps_refuses_an_empty_selection(limit: str, in_tmp: Path, no_network) -> None:
    book = Path(__file__).resolve().parents[2] / "playbooks" / "provision.yaml"
    result = CliRunner().invoke(app, ["play", str(book), "-f", str(LAB_MINI), "--limit", limit])
    assert result.exit_code == 3, result.output
    assert "no device" in result.output
    assert no_network == [] and not (in_tmp / "build").exists()  # stopped before rendering anything


def test_a_run_deadline_that_passed_starts_no_device(in_tmp: Path, no_network) -> None:
    """`--deadline` takes a duration like health's; once it passed, no device starts (exit 2, nothing contacted)."""
    result = CliRunner().invoke(app, ["deploy", "-f", str(LAB_MINI), "--limit", "spine01,gpu001", "--commit",
                                      "--deadline", "1ms", "--format", "json"])
    assert result.exit_code == 2, result.output
    devices = json.loads(result.output)["devices"]
    assert {d["status"] for d in devices} == {"not_started"}
    assert all("--deadline passed" in d["error"] for d in devices)
    assert no_network == []
