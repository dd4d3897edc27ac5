"""Issue 24: no third-party warning reaches a user's stderr from roceops' own import path.

asyncssh (the lab's SSH server) is imported only where the lab serves, and there with exactly the
CryptographyDeprecationWarning its import raises on cryptography >= 51 filtered; every other command never loads it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "inventory" / "lab-mini.yaml"
RUN_CLI = "import sys; from roceops.cli.main import app; sys.argv[0] = 'roceops'; app()"


def _python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "args",
    [["--help"], ["validate", "-f", str(MINI)], ["topology", "-f", str(MINI)], ["hardware", "list"], ["audit", "-h"]],
    ids=lambda a: " ".join(a[:1]),
)
def test_commands_write_nothing_to_stderr(args: list[str], tmp_path: Path) -> None:
    done = _python(RUN_CLI, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stderr == ""
    assert done.stdout


def test_the_cli_does_not_import_asyncssh(tmp_path: Path) -> None:
    code = "import sys, roceops.cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] == 'asyncssh'))"
    done = _python(code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_lab_server_imports_asyncssh_without_its_dsa_warning(tmp_path: Path) -> None:
    """Even with that category made an error, importing the lab's SSH server succeeds: the filter is at the import."""
    code = (
        "import warnings\n"
        "from cryptography.utils import CryptographyDeprecationWarning\n"
        "warnings.simplefilter('error', CryptographyDeprecationWarning)\n"
        "import roceops.lab.sshserver\n"
        "warnings.warn('still shown', CryptographyDeprecationWarning)\n"
    )
    done = _python(code, cwd=tmp_path)
    # the filter is scoped to the import: a later warning of the same category is still raised
    assert "still shown" in done.stderr and "DSA" not in done.stderr, done.stderr
