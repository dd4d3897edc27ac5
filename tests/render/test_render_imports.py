"""Rendering loads no SSH library: every room is imported to render (the registry loads them all), and paramiko
with what it imports (invoke, unittest.mock, ...) cost ~0.1 s of start-up before the render workers can fork."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from roceops import api
from roceops.cli import fabric_cmds
from roceops.render import build
from roceops.registry import platforms
platforms()
print(sorted({m.split('.')[0] for m in sys.modules} & {'paramiko', 'netmiko', 'invoke', 'asyncssh'}))
"""


def test_render_imports_no_ssh_library() -> None:
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
