"""The shipped Slurm wrappers: shellcheck-clean, and the Prolog's exit policy (only a failed check fails a job)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

SCRIPTS = sorted((REPO / "playbooks" / "slurm").glob("*.sh"))


def test_wrappers_pass_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("shellcheck not installed (Debian package `shellcheck`)")
    assert [p.name for p in SCRIPTS] == ["roceops-healthcheck.sh", "roceops-prolog.sh"]
    done = subprocess.run([shellcheck, "-s", "sh", *map(str, SCRIPTS)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize(("status", "expected"), [(0, 0), (1, 1), (2, 0), (3, 0), (127, 0)])
def test_prolog_fails_a_job_only_on_a_failed_check(tmp_path: Path, status: int, expected: int) -> None:
    fake = tmp_path / "fake-roceops"
    fake.write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/args"\nexit {status}\n')
    fake.chmod(0o755)
    env_file = tmp_path / "settings.env"
    env_file.write_text(f"ROCEOPS={fake}\nROCEOPS_FABRIC=/nowhere/fabric.yaml\n")
    # slurmd's environment: almost empty; the settings file is named by ROCEOPS_SLURM_ENV here
    done = subprocess.run([str(REPO / "playbooks" / "slurm" / "roceops-prolog.sh")], capture_output=True,
                          text=True, env={"ROCEOPS_SLURM_ENV": str(env_file), "SLURMD_NODENAME": "gpu001"},
                          check=False)
    assert done.returncode == expected, done.stderr
    assert (tmp_path / "args").read_text().split() == ["slurm", "prolog"]
    assert ("not a failed check" in done.stderr) == (status not in (0, 1))
    assert os.access(REPO / "playbooks" / "slurm" / "roceops-healthcheck.sh", os.X_OK)
