"""`roceops slurm healthcheck|prolog` against the lab with a recording stand-in for scontrol (the real Slurm runs
in test_slurm_lab.py, as root): what is drained, with which reason, what is resumed and what is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES
from labkit import deployed_lab  # noqa: F401  (fixture)
from typer.testing import CliRunner

from roceops.cli.main import app

pytestmark = pytest.mark.lab
runner = CliRunner()


def fake_scontrol(tmp: Path, show_node: str) -> Path:
    """A scontrol that records its argv (one line per call) and answers `show node` with ``show_node``."""
    path = tmp / "scontrol"
    path.write_text(f'#!/bin/sh\necho "$@" >> "{tmp}/calls"\n'
                    f'if [ "$1" = show ]; then echo "{show_node}"; fi\n')
    path.chmod(0o755)
    return path


def hook(lab, tmp: Path, command: str, node: str, show_node: str = "", *extra: str):
    scontrol = fake_scontrol(tmp, show_node)
    args = ["slurm", command, "-f", str(EXAMPLES["lab-mini"]), "--lab", "--node", node]
    if command == "healthcheck":
        args += ["--scontrol", str(scontrol), "--window", "0.5", "--deadline", "15"]
    result = runner.invoke(app, [*args, *extra], env={"ROCEOPS_LAB_DIR": str(lab.state_dir)})
    calls = (tmp / "calls").read_text().splitlines() if (tmp / "calls").exists() else []
    return result, calls


def test_failed_check_drains_through_scontrol_with_roceops_reason(deployed_lab, tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    deployed_lab.thread.inject("gpu002", "nic_reset", port="eth1")
    try:
        result, calls = hook(deployed_lab, tmp_path, "healthcheck", "gpu002")
        prolog, _ = hook(deployed_lab, tmp_path / "p", "prolog", "gpu002")
    finally:
        deployed_lab.thread.clear(None)
        assert deployed_lab.deploy(["gpu002"]).exit_code == 0
    assert result.exit_code == 1, result.output
    assert len(calls) == 1
    assert calls[0].startswith("update NodeName=gpu002 State=DRAIN Reason=roceops: nic.roce gpu002:eth1")
    assert prolog.exit_code == 1 and "roceops: nic.roce gpu002:eth1" in prolog.stderr
    assert not (tmp_path / "p" / "calls").exists()  # the prolog called no Slurm command


def test_healthy_node_resumes_only_its_own_drain(deployed_lab, tmp_path: Path) -> None:
    ours = ("NodeName=gpu001 State=IDLE+DRAIN ThreadsPerCore=1 Reason=roceops: nic.roce gpu001:eth0: x "
            "[root@2026-12-06T03:00:00]")
    result, calls = hook(deployed_lab, tmp_path, "healthcheck", "gpu001", ours)
    assert result.exit_code == 0, result.output
    assert calls == ["show node gpu001 --oneliner", "update NodeName=gpu001 State=RESUME"]
    (tmp_path / "calls").unlink()
    theirs = "NodeName=gpu001 State=IDLE+DRAIN Reason=disk replacement [admin@2026-12-06T03:00:00]"
    result, calls = hook(deployed_lab, tmp_path, "healthcheck", "gpu001", theirs)
    assert result.exit_code == 0 and calls == ["show node gpu001 --oneliner"]


def test_a_node_the_fabric_does_not_know_is_bad_input(deployed_lab, tmp_path: Path) -> None:
    result, calls = hook(deployed_lab, tmp_path, "healthcheck", "login01")
    assert result.exit_code == 3 and "ROCEOPS_FABRIC_NODE" in result.stderr and calls == []
    mapped, _ = hook(deployed_lab, tmp_path, "prolog", "login01", "", "--fabric-node", "gpu001")
    assert mapped.exit_code == 0, mapped.output
