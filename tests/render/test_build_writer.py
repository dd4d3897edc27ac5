"""The build writer: one path check and one mkdir per device folder, files rewritten only when they change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from roceops.device.change import RenderedDevice
from roceops.render.build import UnsafePath, write_build
from roceops.util.safe_write import WriteRefused


def _devices(n: int, files: int, body: str = "x") -> list[RenderedDevice]:
    return [RenderedDevice(f"dev{i}", "linux_mlx5", {f"f{j}.conf": f"{body}{i}.{j}\n" for j in range(files)})
            for i in range(n)]


def test_path_checks_and_mkdir_once_per_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"resolve": 0, "mkdir": 0}
    real_resolve, real_mkdir = Path.resolve, Path.mkdir

    def resolve(self: Path, *a: object, **k: object) -> Path:
        calls["resolve"] += 1
        return real_resolve(self, *a, **k)  # type: ignore[arg-type]

    def mkdir(self: Path, *a: object, **k: object) -> None:
        calls["mkdir"] += 1
        real_mkdir(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "resolve", resolve)
    monkeypatch.setattr(Path, "mkdir", mkdir)
    result = write_build(tmp_path / "build", "f", "0" * 64, _devices(10, 8))
    assert (result.written, result.unchanged) == (80, 0)
    # out_dir, each device folder, the manifest (twice: its check resolves the build folder again)
    assert calls["resolve"] <= 10 + 3
    # each device folder once; the first one makes the build folder too (mkdir(parents=True) retries), the
    # manifest's folder once; the writer before this made one call per file (80)
    assert calls["mkdir"] <= 10 + 3
    assert (tmp_path / "build" / "dev3" / "f5.conf").read_text() == "x3.5\n"


def test_rewrites_only_changed_files(tmp_path: Path) -> None:
    out = tmp_path / "build"
    write_build(out, "f", "0" * 64, _devices(3, 4))
    again = write_build(out, "f", "0" * 64, _devices(3, 4))
    assert (again.written, again.unchanged) == (0, 12)
    (out / "dev1" / "f2.conf").write_text("x1.2\n".upper())  # same size, other bytes
    (out / "dev2" / "f0.conf").write_text("edited by hand, longer\n")
    fixed = write_build(out, "f", "0" * 64, _devices(3, 4))
    assert (fixed.written, fixed.unchanged) == (2, 10)
    assert (out / "dev1" / "f2.conf").read_text() == "x1.2\n"
    assert not list(out.rglob("*.tmp"))


def test_a_file_that_is_a_link_out_of_the_build_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "build"
    write_build(out, "f", "0" * 64, _devices(2, 2))
    target = tmp_path / "elsewhere.conf"
    target.write_text("keep\n")
    (out / "dev1" / "f1.conf").unlink()
    (out / "dev1" / "f1.conf").symlink_to(target)
    with pytest.raises(UnsafePath, match="outside"):
        write_build(out, "f", "0" * 64, _devices(2, 2, body="new"))
    assert target.read_text() == "keep\n"
    assert (out / "dev0" / "f0.conf").read_text() == "x0.0\n"  # nothing was written: checks come first


def test_a_link_inside_the_build_is_refused_not_replaced(tmp_path: Path) -> None:
    out = tmp_path / "build"
    write_build(out, "f", "0" * 64, _devices(2, 2))
    (out / "dev1" / "f1.conf").unlink()
    (out / "dev1" / "f1.conf").symlink_to(out / "dev0" / "f0.conf")
    with pytest.raises(WriteRefused, match="symbolic link"):
        write_build(out, "f", "0" * 64, _devices(2, 2, body="new"))
    assert (out / "dev1" / "f1.conf").is_symlink()
    assert (out / "dev0" / "f0.conf").read_text() == "new0.0\n"  # its own folder came first


def test_a_fifo_in_the_build_is_refused_never_opened(tmp_path: Path) -> None:
    out = tmp_path / "build"
    write_build(out, "f", "0" * 64, _devices(1, 2))
    (out / "dev0" / "f1.conf").unlink()
    os.mkfifo(out / "dev0" / "f1.conf")
    with pytest.raises(WriteRefused, match="FIFO"):
        write_build(out, "f", "0" * 64, _devices(1, 2))


def test_written_files_are_mode_0644(tmp_path: Path) -> None:
    out = tmp_path / "build"
    write_build(out, "f", "0" * 64, _devices(1, 1))
    assert (out / "dev0" / "f0.conf").stat().st_mode & 0o777 == 0o644
