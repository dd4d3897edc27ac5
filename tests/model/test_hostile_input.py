"""Issue 14 defects 7-11: hostile or wrong fabric files are refused at load (exit 3) with file:line and a reason,
in well under a second, and nothing is ever written outside `render --out`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.device.change import RenderedDevice
from roceops.render.build import UnsafePath, write_build

runner = CliRunner()
MINI = EXAMPLES["lab-mini"].read_text()


def _fabric(tmp_path: Path, old: str, new: str) -> Path:
    assert old in MINI, old
    path = tmp_path / "fabric.yaml"
    path.write_text(MINI.replace(old, new, 1))
    return path


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _refused(path: Path, *args: str) -> str:
    start = time.process_time()  # CPU seconds: the bound is the cost of refusing, not the machine's load
    result = runner.invoke(app, [*args, "-f", str(path)])
    elapsed = time.process_time() - start
    assert result.exit_code == 3, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "LINT000" not in result.output, result.output
    assert elapsed < 1.0, elapsed
    return result.output


NAME = 'name: "gpu{node:03d}"'
NETDEV_AT = "  platform: linux_mlx5\n"


@pytest.mark.parametrize("old,new,needle,reason", [
    # defect 7: path traversal through a device name
    (NAME, 'name: "../../tmp/x{node}"', "../../tmp/x", "not a safe device name"),
    ("    platform: sonic\n", '    platform: sonic\n    name: "../leaf{su}-{rail}"\n', "../leaf",
     "not a safe device name"),
    ("    platform: eos\n", '    platform: eos\n    name: "spine-{su}"\n', "spine-{su}", "unknown placeholder {su}"),
    # defect 9: shell words, newlines and unbounded format specs
    (NETDEV_AT, NETDEV_AT + '  netdev: "eth{port}; rm -rf /"\n', "rm -rf", "not a safe Linux interface name"),
    (NETDEV_AT, NETDEV_AT + '  netdev: "eth{port}\\nreboot"\n', "reboot", "not a safe Linux interface name"),
    (NETDEV_AT, NETDEV_AT + '  rdma_dev: "mlx5_{port}/../x"\n', "rdma_dev", "not a safe RDMA device name"),
    (NETDEV_AT, NETDEV_AT + '  netdev: "verylongnetdevname{port}"\n', "verylong", "at most 15 characters"),
    (NAME, 'name: "gpu{node:099999999d}"', "099999999d", "may only have a zero-padded width"),
    (NAME, 'name: "gpu{node.__class__}"', "__class__", "unknown placeholder"),
    (NAME, 'name: "gpu{node:3d}"', "node:3d", "zero-padded width"),  # gpu  1: spaces in a name
    ("    platform: sonic\n", '    platform: sonic\n    port_naming: {pattern: "Eth {n};x"}\n', "Eth {n}",
     "not a safe port name"),
    ("hwsku: Mellanox-SN5600-O128", "hwsku: 'x; reboot'", "hwsku", "not a safe word"),
    ("model: lab-node", 'model: "x\\nreboot"', 'model: "x', "not a safe label"),  # a comment line in host scripts
    # defect 10: IPv6 pools are refused with a message, not a lint bug
    ("loopbacks: 10.0.0.0/24", 'loopbacks: "2001:db8::/64"', "2001:db8", "IPv6"),
    # defect 11: strict numbers
    ("count: 2", "count: true", "count: true", "true/false is not a number"),
    ("count: 2", 'count: "2"', 'count: "2"', "written without quotes"),
    ("planes: 1", "planes: true", "planes: true", "whole number"),
    ("weight: 60", "weight: 60.0", "weight: 60.0", "valid integer"),
    ("detect_ms: 200", 'detect_ms: "200"', 'detect_ms: "200"', "valid integer"),
    ("roce: 4096", "roce: 4096.0", "roce: 4096.0", "whole number"),
])
def test_refused_at_load_with_file_line_and_reason(tmp_path: Path, old: str, new: str, needle: str,
                                                   reason: str) -> None:
    path = _fabric(tmp_path, old, new)
    for command in (["validate"], ["render", "--out", str(tmp_path / "out")]):
        output = _refused(path, *command)
        assert f"{path}:{_line_of(path, needle)}:" in output, output
        assert reason in output, output
    assert not (tmp_path / "out").exists()


def test_unit_strings_stay_the_documented_form(tmp_path: Path) -> None:
    path = _fabric(tmp_path, "max: 1500KB", "max: 1.5MB")
    assert runner.invoke(app, ["validate", "-f", str(path)]).exit_code == 0


def _alias_bomb() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n" + MINI


@pytest.mark.parametrize("text,reason", [
    (_alias_bomb(), "aliases are expanded"),
    (MINI + "deep: " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper than 32 levels"),
    (MINI + "deep:\n" + "".join("  " * i + "-\n" for i in range(1, 1000)), "nested deeper than 32 levels"),
    (MINI + "deep: " + "[x, " * 5000 + "]" * 5000 + "\n", "nested deeper than 32 levels"),
])
def test_yaml_bombs_are_refused_quickly(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    output = _refused(path, "validate")
    assert reason in output and f"{path}:" in output, output


def test_a_playbook_alias_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "play.yaml"
    path.write_text(_alias_bomb().split("kind:")[0] + "name: x\nsteps: [{name: v, run: validate}]\n")
    start = time.process_time()
    result = runner.invoke(app, ["play", str(path)])
    assert result.exit_code == 3 and "aliases are expanded" in result.output, result.output
    assert time.process_time() - start < 1.0


def test_the_writer_refuses_paths_outside_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bad = RenderedDevice(name="../escaped", platform="sonic", files={"config_db.json": "{}"})
    with pytest.raises(UnsafePath, match="outside"):
        write_build(out, "f", "0" * 64, [RenderedDevice("leaf1", "sonic", {"config_db.json": "{}"}), bad])
    assert not (tmp_path / "escaped").exists() and not (out / "leaf1").exists()  # nothing written at all


def test_the_writer_refuses_a_symlink_leading_out(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "leaf1").symlink_to(elsewhere)
    with pytest.raises(UnsafePath):
        write_build(out, "f", "0" * 64, [RenderedDevice("leaf1", "sonic", {"config_db.json": "{}"})])
    assert list(elsewhere.iterdir()) == []
