"""`roceops --version` and `--help` stay fast: importing the CLI loads no heavy library (issue 32).

Start-up CPU is measured by bench/startup.py; this test guards the cause cheaply: which modules the CLI's import
pulls in (``python -X importtime`` lists every module a process imports).
"""

from __future__ import annotations

import os
import subprocess
import sys

# Libraries a command imports when it runs, never at start-up (each costs tens to hundreds of ms of CPU).
HEAVY = ("pydantic", "pydantic_core", "jinja2", "netmiko", "paramiko", "nornir", "asyncssh", "rich",
         "yaml", "ruamel", "prometheus_client", "hostlist", "grpc", "kubernetes", "libyang", "hier_config",
         "jsonpatch", "cryptography", "asyncio", "ssl")


def _imported(code: str) -> set[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          env=env, check=True, timeout=120)
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")
            and "|" in line}


def test_cli_import_loads_no_heavy_library() -> None:
    modules = _imported("import roceops.cli.main")
    assert "roceops.cli.main" in modules  # the listing is real
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"importing the CLI loads {heavy}: import them inside the command that needs them"


def test_version_loads_no_heavy_library() -> None:
    code = ("import sys; sys.argv = ['roceops', '--version']\nfrom roceops.cli.main import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass")
    modules = _imported(code)
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"`roceops --version` loads {heavy}"
