"""Issue 24: every output writer replaces only a regular file (or creates a new one); anything else is refused with
exit 3, and a write error (ENOSPC, EACCES, EROFS) is exit 3 with the path and reason, never exit 1 "drift".

Symlink policy (README "Output files"): a symlink at an output path is refused, never followed and never replaced.
Device nodes and tmpfs mounts are made inside the test's own temporary folder (root only; skipped otherwise).
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any

import pytest
from clikit import no_devices  # noqa: F401  (fixture)
from conftest import EXAMPLES
from hostile_paths import FULL, char_device, fifo, kind, tiny_tmpfs, unix_socket
from typer.testing import CliRunner

import roceops.cli.audit_cmds as audit_cmds
import roceops.cli.health_cmds as health_cmds
import roceops.util.safe_write as safe_write
from roceops.audit.engine import AuditResult
from roceops.cli.main import app
from roceops.health.engine import HealthReport
from roceops.util.safe_write import WriteRefused, write_file

runner = CliRunner()
MINI = str(EXAMPLES["lab-mini"])


def _exit_3(args: list[str], *words: str) -> str:
    started = time.monotonic()
    result = runner.invoke(app, args)
    assert time.monotonic() - started < 20
    assert result.exit_code == 3, (args, result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output, result.output
    for word in words:
        assert word in result.output, (word, result.output)
    return result.output


# --------------------------------------------------------------------------- the writer itself


def test_writes_a_new_file_and_replaces_a_regular_one_atomically(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.prom"
    assert write_file(target, "one\n")
    inode = target.stat().st_ino
    assert write_file(target, "two\n") and target.read_text() == "two\n"
    assert target.stat().st_ino != inode  # a new file renamed over the old one, never written in place
    assert not write_file(target, "two\n", only_if_changed=True)
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.prom"]  # no temp file left


def test_refuses_a_symlink_and_leaves_link_and_target_alone(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("theirs\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere")
    for path in (link, dangling):
        with pytest.raises(WriteRefused, match="symbolic link"):
            write_file(path, "ours\n")
        assert kind(path) == "link"
    assert real.read_text() == "theirs\n" and not (tmp_path / "nowhere").exists()


def test_refuses_fifo_folder_socket_without_opening_them(tmp_path: Path) -> None:
    pipe = fifo(tmp_path / "pipe")
    folder = tmp_path / "folder"
    folder.mkdir()
    with unix_socket(tmp_path / "sock") as sock:
        for path, what in ((pipe, "FIFO"), (folder, "folder"), (sock, "socket")):
            started = time.monotonic()
            with pytest.raises(WriteRefused, match=what):
                write_file(path, "x")
            assert time.monotonic() - started < 1
        assert (kind(pipe), kind(folder), kind(sock)) == ("fifo", "dir", "sock")


def test_refuses_a_device_node_made_in_tmp(tmp_path: Path) -> None:
    node = char_device(tmp_path / "full")
    with pytest.raises(WriteRefused, match="character device"):
        write_file(node, "x" * 100_000)
    assert kind(node) == "chr" and os.stat(node).st_rdev == FULL


def test_enospc_on_a_tiny_tmpfs(tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "small", size="16k") as mnt:
        with pytest.raises(WriteRefused) as caught:
            write_file(mnt / "big.prom", "x" * 200_000)
        assert os.strerror(errno.ENOSPC) in str(caught.value) and str(mnt / "big.prom") in str(caught.value)
        assert list(mnt.iterdir()) == []  # the temp file is gone too


def test_erofs_on_a_read_only_tmpfs(tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "ro", read_only=True) as mnt, pytest.raises(WriteRefused, match="Read-only"):
        write_file(mnt / "report.md", "x")


def test_eacces_is_a_refusal_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path))
    monkeypatch.setattr(safe_write.tempfile, "mkstemp", denied)
    with pytest.raises(WriteRefused, match=os.strerror(errno.EACCES)):
        write_file(tmp_path / "x.md", "x")


# --------------------------------------------------------------------------- every command's output option


def _hostile_files(tmp_path: Path) -> list[Path]:
    real = tmp_path / "real.txt"
    real.write_text("keep\n")
    link = tmp_path / "link"
    link.symlink_to(real)
    return [fifo(tmp_path / "pipe"), link]


def test_audit_and_health_refuse_non_regular_outputs_before_contacting_devices(tmp_path: Path,
                                                                                no_devices: None) -> None:
    targets = _hostile_files(tmp_path)
    if os.geteuid() == 0:
        targets.append(char_device(tmp_path / "full"))
    for target in targets:
        before = kind(target)
        _exit_3(["audit", "-f", MINI, "--format", "prometheus", "--output", str(target)], "cannot write", str(target))
        _exit_3(["health", "gpu001", "-f", MINI, "--drain-file", str(target)], "cannot write", str(target))
        assert kind(target) == before
    assert (tmp_path / "real.txt").read_text() == "keep\n"


def test_render_and_inventory_refuse_a_non_regular_file_inside_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "build"
    (out / "leaf-su1-r1").mkdir(parents=True)
    pipe = fifo(out / "leaf-su1-r1" / "config_db.json")
    _exit_3(["render", "-f", MINI, "--out", str(out), "--limit", "leaf-su1-r1"], "cannot write", "FIFO")
    assert kind(pipe) == "fifo"
    inv = tmp_path / "inv"
    inv.mkdir()
    (inv / "hosts.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    _exit_3(["inventory", "export", "-f", MINI, "--out", str(inv)], "cannot write", "symbolic link")
    assert kind(inv / "hosts.yaml") == "link" and not (tmp_path / "elsewhere.yaml").exists()


def test_hardware_import_refuses_a_fifo_out(tmp_path: Path) -> None:
    from conftest import SHARED

    skus = sorted((SHARED / "reference" / "hardware").rglob("port_config.ini"))
    if not skus:
        pytest.skip("../shared/reference/hardware has no SONiC SKU folder")
    pipe = fifo(tmp_path / "profile.json")
    _exit_3(["hardware", "import", str(skus[0].parent), "--out", str(pipe)], "cannot write", "FIFO")
    assert kind(pipe) == "fifo"


@pytest.mark.parametrize("command", [["render"], ["inventory", "export"], ["demo"]])
def test_an_empty_out_is_a_usage_error(command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _exit_3([*command, "-f", MINI, "--out", ""], "empty path")
    assert list(tmp_path.iterdir()) == []  # nothing written into the working directory


def _empty_audit(*args: Any, **kwargs: Any) -> AuditResult:
    return AuditResult(fabric="lab-mini", devices=[], audits=[], findings=[], seconds=0.0)


def _empty_health(*args: Any, **kwargs: Any) -> HealthReport:
    return HealthReport(nodes=["gpu001"], results=[], verdicts=[], seconds=0.0, devices=0)


def test_a_full_disk_after_the_run_is_exit_3_not_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(audit_cmds, "run_audit", _empty_audit)
    monkeypatch.setattr(health_cmds, "run_health", _empty_health)
    journal = str(tmp_path / "journal.sqlite")
    ok = runner.invoke(app, ["audit", "-f", MINI, "--format", "json", "--output", str(tmp_path / "a.json"),
                             "--journal", journal])
    assert ok.exit_code == 0 and (tmp_path / "a.json").is_file(), ok.output
    with tiny_tmpfs(tmp_path / "small", size="16k") as mnt:
        (mnt / "filler").write_bytes(b"\0" * 12_000)  # leaves less room than one report needs
        big = "x" * 100_000

        def bulky(*args: Any, **kwargs: Any) -> str:
            return big
        monkeypatch.setattr(audit_cmds.reports, "to_markdown", bulky)
        out = _exit_3(["audit", "-f", MINI, "--output", str(mnt / "audit.md"), "--journal", journal],
                      str(mnt / "audit.md"), "No space left on device")
        assert "drift" not in out
        monkeypatch.setattr(health_cmds.reports, "drain_lines", bulky)
        _exit_3(["health", "gpu001", "-f", MINI, "--drain-file", str(mnt / "drain")], "No space left on device")
        assert sorted(p.name for p in mnt.iterdir()) == ["filler"]


def test_a_journal_that_is_not_a_regular_file_is_refused_unopened(tmp_path: Path) -> None:
    pipe = fifo(tmp_path / "journal.sqlite")
    _exit_3(["history", "--journal", str(pipe)], "cannot open the journal", "not a regular file", "FIFO")
    if os.geteuid() == 0:
        node = char_device(tmp_path / "full")
        _exit_3(["history", "--journal", str(node)], "character device")
        assert kind(node) == "chr"
    assert kind(pipe) == "fifo"
