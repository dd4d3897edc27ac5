"""Issue 14 defect 19: a plain (non-editable) install works from any working directory.

The sdist is built from a copy of this working tree, the wheel from that sdist (so both must carry the templates
and the example fabric), and the wheel is installed into a fresh venv from the local wheelhouse only
(``ROCEOPS_WHEELHOUSE``, built by .ci/run; without it the install test skips with that reason). Then validate,
render and the demo run from an empty temporary directory, as after ``pip install dist/*.whl`` or ``pipx install``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
UNSHIPPED = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".roceops", ".mypy_cache", ".ci",
             ".pytest_cache", ".ruff_cache")


def test_every_template_folder_and_the_example_fabric_are_shipped() -> None:
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {pattern for patterns in data_files.values() for pattern in patterns}
    folders = sorted(p.name for p in (REPO / "templates").iterdir() if p.is_dir())
    assert folders and {f"templates/{f}/*" for f in folders} <= shipped, (folders, shipped)
    assert data_files["share/roceops/inventory"] == ["inventory/lab-mini.yaml"]
    for folder in folders:
        assert data_files[f"share/roceops/templates/{folder}"] == [f"templates/{folder}/*"]
        assert not [p for p in (REPO / "templates" / folder).iterdir() if p.is_dir()], "data-files are not recursive"


@pytest.fixture
def wheelhouse() -> Path:
    path = os.environ.get("ROCEOPS_WHEELHOUSE")
    if not path or not Path(path).is_dir():
        pytest.skip("set ROCEOPS_WHEELHOUSE to a wheel folder (.ci/run builds one) so pip needs no network")
    return Path(path)


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: rc {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.slow
@pytest.mark.lab
def test_wheel_from_sdist_installs_offline_and_runs_from_any_directory(tmp_path: Path, wheelhouse: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*UNSHIPPED))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCEOPS_", "VIRTUAL_ENV", "PYTEST", "PIP_"))}
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse), PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_CONFIG_FILE=os.devnull)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python, pip = str(venv / "bin" / "python"), [str(venv / "bin" / "python"), "-m", "pip"]
    _run([*pip, "install", "-q", "setuptools>=68", "wheel"], tmp_path, env)
    dist = tmp_path / "dist"
    _run([python, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(dist)!r})"], source, env)
    (sdist,) = dist.glob("roceops-*.tar.gz")
    _run([*pip, "wheel", "-q", "--no-deps", "-w", str(dist), str(sdist)], tmp_path, env)
    (wheel,) = dist.glob("roceops-*.whl")
    _run([*pip, "install", "-q", str(wheel)], tmp_path, env)
    shutil.rmtree(source)  # nothing may come from the source tree any more

    anywhere = tmp_path / "elsewhere"
    anywhere.mkdir()
    roceops = str(venv / "bin" / "roceops")
    fabric = anywhere / "fabric.yaml"
    fabric.write_text((REPO / "inventory" / "fabric.yaml").read_text())
    assert "valid" in _run([roceops, "validate", "-f", str(fabric)], anywhere, env)
    _run([roceops, "render", "-f", str(fabric), "--out", "out", "--limit", "leaf-su1-r1,spine01"], anywhere, env)
    assert (anywhere / "out" / "leaf-su1-r1" / "config_db.json").is_file()
    story = _run([roceops, "demo"], anywhere, env, timeout=600)
    assert "demo OK" in story, story
    assert not (anywhere / "inventory").exists() and not (anywhere / "templates").exists()


def test_lab_up_without_a_fabric_uses_the_shipped_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a directory with no inventory/, `lab up` serves the lab-mini fabric roceops ships (no lab is started)."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    import roceops.cli.lab_cmds as lab_cmds
    from roceops.cli.main import app

    served: list[str] = []

    def start(specs: Any, state: Path, **kw: Any) -> SimpleNamespace:
        served.extend(s.name for s in specs)
        return SimpleNamespace(devices=len(served), seconds=0.1, pid=1, overlay="x")

    monkeypatch.setattr(lab_cmds, "start_lab", start)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lab", "up"])
    assert result.exit_code == 0, result.output
    assert "lab-mini" in result.output and len(served) == 14, (result.output, served)
