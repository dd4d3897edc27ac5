"""Issue 24, "Messages": each message says what happened, in the words of the thing that happened."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

import roceops.cli.lab_cmds as lab_cmds
import roceops.platforms.sonic.driver as sonic_driver
from roceops.audit.engine import AuditResult
from roceops.audit.report import print_table
from roceops.cli.lab_faults import fault_catalogue
from roceops.cli.main import app
from roceops.deploy.device import DeviceOutcome, run_transaction
from roceops.deploy.engine import FAILED
from roceops.device.change import BackupRefused, Change, Snapshot
from roceops.journal import Journal
from roceops.lab.personality import get_personality
from roceops.report.result import Result
from roceops.report.tables import LiteralConsole

runner = CliRunner()
MINI = str(EXAMPLES["lab-mini"])


def _run(args: list[str], code: int) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return re.sub(r"[\s│╭╮╰╯─]+", " ", result.output)  # one line: Rich's error box wraps long messages


class _Control:
    def __init__(self, state_dir: Any) -> None:
        pass

    def clear(self, device: str | None = None) -> dict[str, Any]:
        return {"cleared": [device] if device else ["gpu001", "gpu002", "leaf-su1-r1"]}


def test_lab_clear_names_what_it_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lab_cmds, "ControlClient", _Control)
    one = _run(["lab", "clear", "gpu002"], 0)
    assert "cleared faults on gpu002" in one and "all" not in one
    assert "cleared faults on all 3 devices" in _run(["lab", "clear"], 0)


def test_lab_inject_help_lists_every_fault_with_its_parameters_from_the_registry() -> None:
    result = runner.invoke(app, ["lab", "inject", "--help"])
    assert result.exit_code == 0, result.output
    out = result.output
    catalogue = fault_catalogue()
    every = {f for p in ("sonic", "cumulus", "eos", "linux_mlx5")
             for f in get_personality(p).state_factory.fault_catalogue()}  # type: ignore[attr-defined]
    assert set(catalogue) == every and len(every) >= 24
    for fault, by_platform in catalogue.items():
        line = next((ln for ln in out.splitlines() if ln.strip().startswith(fault + " ")), None)
        assert line is not None, (fault, out)
        for param in {p for ps in by_platform.values() for p in ps}:
            assert f"{param}=" in line, (fault, param, line)
    assert "slow_rdma factor= port= (linux_mlx5)" in out and "hash_seed seed= (cumulus)" in out


@pytest.mark.parametrize("batch", ["%", "x%", "abc", "1.5", "-2"])
def test_a_bad_batch_is_a_usage_error_in_words(batch: str) -> None:
    out = _run(["deploy", "-f", MINI, "--batch", batch], 3)
    assert "could not convert" not in out and "device count or a percentage" in out


def test_hardware_import_of_a_missing_or_wrong_path(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    out = _run(["hardware", "import", str(missing)], 3)
    assert out.count(str(missing)) == 1 and "no such folder" in out and "not a directory" not in out
    afile = tmp_path / "file"
    afile.write_text("x")
    assert "not a folder" in _run(["hardware", "import", str(afile)], 3)


def test_rollback_last_names_the_fabric_it_looked_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = _run(["rollback", "last", "-f", MINI, "--journal", str(tmp_path / "j.sqlite")], 3)
    assert "no deploy of fabric 'lab-mini'" in out and MINI in out.replace(" ", "")
    assert "no run 'last'" not in out


def test_history_shows_a_killed_run_without_none(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    j = Journal(tmp_path / "j.sqlite")
    run = j.start_run("deploy", "lab-mini", "h", {"commit": True}, device_count=1)
    j.db.execute("UPDATE runs SET pid=? WHERE id=?", (dead.pid, run))  # as if that process had been killed
    j.close()
    out = _run(["history", "--journal", str(tmp_path / "j.sqlite")], 0)
    row = next(ln for ln in out.splitlines() if run in ln)
    assert "interrupted" in row and "None" not in row


def test_a_piped_audit_table_keeps_lines_readable_and_values_whole() -> None:
    neighbours = [f"10.1.{i // 256}.{i % 256}" for i in range(300)]
    finding = Result(device="spine01", check="bgp.session", path="bgp.neighbors", expected=neighbours,
                     observed=neighbours[:150], hint="check the BGP sessions", message="")
    result = AuditResult(fabric="lab-mini", devices=["spine01"], audits=[], findings=[finding], seconds=0.1)
    out = io.StringIO()
    print_table(_piped(out), result, [])
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) < 400, max(len(line) for line in text.splitlines())
    flat = re.sub(r"[\s│|]+", "", text)
    assert all(n in flat for n in neighbours)  # wrapped, never cut


def _piped(out: io.StringIO) -> LiteralConsole:
    console = LiteralConsole()
    console.file = out  # not a terminal: the unbounded width of a pipe
    return console


def test_validate_without_f_points_to_the_shipped_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = _run(["validate"], 3)
    assert "no fabric file" in out and "lab-mini.yaml" in out and "-f" in out


class _RefusingDriver:
    commit_timer = False

    def __init__(self) -> None:
        self.calls: list[str] = []

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        self.calls.append("apply")
        raise BackupRefused("sudo config checkpoint t: Error: checkpoint failed")

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        self.calls.append("abort")

    def read_config(self, conn: Any) -> Snapshot:
        self.calls.append("read_config")
        return Snapshot(format="sonic_config_db_json", text="{}")


def test_a_refused_backup_is_its_own_outcome_not_rolled_back() -> None:
    driver = _RefusingDriver()
    outcome = DeviceOutcome(device="leaf", platform="sonic", backup=Snapshot(format="sonic_config_db_json", text="{}"))
    run_transaction(driver, None, outcome, object(), Change(diff="", payload=[]), "t", 300,  # type: ignore[arg-type]
                    lambda conn: None)
    assert outcome.status == "backup_refused" and "nothing was applied" in (outcome.error or "")
    assert driver.calls == ["apply"] and "backup_refused" in FAILED


def test_sonic_raises_backup_refused_when_the_checkpoint_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sonic_driver, "_sudo", lambda conn, command: "Error: not enough disk space")
    sent: list[Any] = []
    monkeypatch.setattr(sonic_driver, "_apply_patch", lambda *a: sent.append(a))
    with pytest.raises(BackupRefused):
        sonic_driver.SonicDriver().apply(object(), Change(diff="", payload={}), "t1", 300)
    assert sent == []


def test_a_host_fault_takes_only_the_parameters_the_registry_lists() -> None:
    """What lab inject --help lists is what the simulated host accepts (netdev= stays another name for port=)."""
    from labtools import lab_mini

    from roceops.lab.fabric_specs import lab_specs
    from roceops.lab.personality import LabError

    spec = next(s for s in lab_specs(lab_mini()) if s.name == "gpu001")
    state = get_personality("linux_mlx5").state_factory(spec.name, spec.platform, spec.extra)
    state.apply_fault("mtu_mismatch", port="eth0", mtu=1500)
    state.apply_fault("nic_reset", netdev="eth0")
    with pytest.raises(LabError, match="takes mtu, port"):
        state.apply_fault("mtu_mismatch", port="eth0", size=1500)
