"""create_file, the render writer's way to write a file it found absent: the same result and refusals as
replace_file (mode 0644 whatever the umask, nothing left behind, a link or FIFO that appears is refused, an OS
error is a WriteRefused naming the path), and a temporary file left by a dead process does not stop it."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from hostile_paths import tiny_tmpfs

from roceops.util.safe_write import WriteRefused, create_file


def test_a_new_file_has_the_bytes_and_mode_0644_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        create_file(tmp_path / "config_db.json", b"{}\n")
    finally:
        os.umask(old)
    assert (tmp_path / "config_db.json").read_bytes() == b"{}\n"
    assert stat.S_IMODE((tmp_path / "config_db.json").stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config_db.json"]  # no temporary file left


def test_a_temporary_file_left_by_a_dead_process_is_not_in_the_way(tmp_path: Path) -> None:
    stale = tmp_path / f".config.eos.{os.getpid()}.tmp"
    stale.write_bytes(b"half")
    create_file(tmp_path / "config.eos", b"hostname spine01\n")
    assert (tmp_path / "config.eos").read_bytes() == b"hostname spine01\n"
    assert stale.read_bytes() == b"half"  # not ours to remove; the write went through another name


def test_a_link_that_appears_at_the_target_is_refused_and_nothing_is_left(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    target, elsewhere = tmp_path / "nccl.conf", tmp_path / "elsewhere"
    real_fchmod = os.fchmod

    def link_appears(fd: int, mode: int) -> None:  # between the check of the caller and the rename
        target.symlink_to(elsewhere)
        real_fchmod(fd, mode)

    monkeypatch.setattr(os, "fchmod", link_appears)
    with pytest.raises(WriteRefused, match="symbolic link"):
        create_file(target, b"x\n")
    assert target.is_symlink() and not elsewhere.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nccl.conf"]


def test_a_full_disk_is_a_refusal_naming_the_file(tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "full") as mnt, pytest.raises(WriteRefused) as caught:
        create_file(mnt / "roce-setup.sh", b"x" * 200_000)
    assert os.strerror(errno.ENOSPC) in str(caught.value) and str(mnt / "roce-setup.sh") in str(caught.value)
    assert list(mnt.iterdir()) == []  # the temporary file is gone too
