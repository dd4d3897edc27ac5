"""render_build: forked workers render and write their own devices' folders; the build must equal
render_devices + write_build byte for byte, paths are all checked before anything is written, and a device that
fails in a worker is named without a traceback and leaves the manifest as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO

from roceops.api import expand, load
from roceops.device.change import RenderedDevice
from roceops.render import build
from roceops.render.build import DeviceFailed, UnsafePath, render_build, render_devices, write_build
from roceops.topology.fabric import Fabric


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return expand(load(REPO / "inventory" / "lab-mini.yaml"))


@pytest.mark.parametrize("workers", [1, 2])
def test_streamed_build_equals_render_then_write(fabric: Fabric, tmp_path: Path, workers: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "PARALLEL_THRESHOLD", 2)  # fork even for lab-mini's 14 devices
    devices = list(fabric.devices())
    expected = write_build(tmp_path / "a", fabric.intent.name, "0" * 64, render_devices(fabric, devices, workers=1))
    streamed = render_build(fabric, devices, tmp_path / "b", "0" * 64, workers=workers)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert (streamed.devices, streamed.written, streamed.unchanged) == (len(devices), expected.written, 0)
    (tmp_path / "b" / devices[0].name / next(iter(expected.devices[0].files))).write_text("edited\n")
    again = render_build(fabric, devices, tmp_path / "b", "0" * 64, workers=workers)
    assert (again.written, again.unchanged) == (1, expected.written - 1)  # only the edited file is rewritten
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_a_link_out_of_the_build_is_refused_before_anything_is_written(fabric: Fabric, tmp_path: Path) -> None:
    devices = list(fabric.devices())
    out, elsewhere = tmp_path / "build", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / devices[-1].name).mkdir(parents=True)
    name = next(iter(build.get_platform(devices[-1].platform).outputs)).filename
    os.symlink(elsewhere / "stolen", out / devices[-1].name / name)
    with pytest.raises(UnsafePath, match="outside"):
        render_build(fabric, devices, out, "0" * 64, workers=2)
    assert sorted(p.name for p in out.iterdir()) == [devices[-1].name]  # no other folder, no manifest
    assert not (elsewhere / "stolen").exists()


def test_a_device_failing_in_a_worker_is_named_and_the_manifest_is_not_written(
        fabric: Fabric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "PARALLEL_THRESHOLD", 2)
    real = build.render_device
    victim = list(fabric.devices())[5].name

    def failing(intent: object) -> RenderedDevice:
        if getattr(intent, "name", None) == victim:
            raise ValueError("no headroom row")  # what a planning error looks like from a forked worker
        return real(intent)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "render_device", failing)  # forked workers inherit the patch
    with pytest.raises(DeviceFailed, match=f"cannot render {victim}: no headroom row"):
        render_build(fabric, list(fabric.devices()), tmp_path / "out", "0" * 64, workers=2)
    assert not (tmp_path / "out" / build.MANIFEST).exists()


def test_a_failed_check_while_workers_render_writes_nothing(fabric: Fabric, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "PARALLEL_THRESHOLD", 2)
    calls: list[str] = []

    def lint_fails() -> bool:  # runs in the parent while the forked workers render
        calls.append("checked")
        return False

    assert render_build(fabric, list(fabric.devices()), tmp_path / "out", "0" * 64, workers=2,
                        check=lint_fails) is None
    assert calls == ["checked"] and not (tmp_path / "out").exists()

    def lint_crashes() -> bool:
        raise RuntimeError("lint bug")

    with pytest.raises(RuntimeError, match="lint bug"):  # the gate closes: no worker waits for ever
        render_build(fabric, list(fabric.devices()), tmp_path / "out", "0" * 64, workers=2, check=lint_crashes)
    assert not (tmp_path / "out").exists()


def test_a_device_folder_linked_out_of_the_build_is_refused(fabric: Fabric, tmp_path: Path) -> None:
    devices = list(fabric.devices())
    out, elsewhere = tmp_path / "build", tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    os.symlink(elsewhere, out / devices[3].name)
    with pytest.raises(UnsafePath, match=f"refusing to write {out / devices[3].name}"):
        render_build(fabric, devices, out, "0" * 64, workers=2)
    assert list(elsewhere.iterdir()) == [] and sorted(p.name for p in out.iterdir()) == [devices[3].name]
