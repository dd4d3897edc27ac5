"""Read-only runs log in with roceops.platforms.login: the same session as Netmiko's preparation leaves
(base prompt, ANSI stripping), without its sleeps; failures close the connection."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini, netmiko_connect
from netmiko.exceptions import NetmikoAuthenticationException

from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.lab.ssh_lib import asyncssh
from roceops.platforms.base import get_platform
from roceops.platforms.channel import read_until, send_line
from roceops.platforms.login import open_session

pytestmark = pytest.mark.lab

DEVICES = {"sonic": "leaf-su1-r1", "cumulus": "leaf-su2-r1", "eos": "spine01", "linux_mlx5": "gpu001"}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    base, port = free_endpoint_base()
    specs = lab_specs(lab_mini(), list(DEVICES.values()), configured=True)
    thread = LabThread(specs, tmp_path_factory.mktemp("login") / "lab", port=port, base_address=base).start()
    try:
        yield thread
    finally:
        thread.stop()


def quick(lab: LabThread, platform: str, **extra: Any) -> Any:
    conn = netmiko_connect(lab, DEVICES[platform], platform, auto_connect=False, **extra)
    open_session(conn, get_platform(platform).netmiko, timeout=10)
    return conn


@pytest.mark.parametrize("platform", sorted(DEVICES))
def test_quick_login_leaves_the_session_netmiko_would(lab: LabThread, platform: str) -> None:
    full = netmiko_connect(lab, DEVICES[platform], platform)
    fast = quick(lab, platform)
    try:
        assert fast.base_prompt == full.base_prompt
        assert fast.ansi_escape_codes is True
        command = "show version" if platform == "eos" else "hostname"
        assert DEVICES[platform] in send_line_any(fast, command)
    finally:
        for conn in (full, fast):
            with suppress(Exception):
                conn.disconnect()


def send_line_any(conn: Any, command: str) -> str:
    """One command on any of the shells (EOS's unprivileged prompt ends in '>', which send_line does not wait for)."""
    if "@" in conn.base_prompt:
        return send_line(conn, command, 10)
    conn.write_channel(command + "\n")
    return read_until(conn, rf"{re.escape(conn.base_prompt)}[>#]\s*$", command, 10, echo=command)


def test_failed_login_raises_netmiko_s_error_and_leaves_nothing_open(lab: LabThread, tmp_path: Path) -> None:
    """The lab accepts only its own client key: a stranger's key is refused as a real device would."""
    stranger = tmp_path / "stranger"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(stranger))
    conn = netmiko_connect(lab, DEVICES["linux_mlx5"], "linux_mlx5", auto_connect=False)
    conn.key_file = str(stranger)
    with pytest.raises(NetmikoAuthenticationException):
        open_session(conn, get_platform("linux_mlx5").netmiko, timeout=5)
    assert getattr(conn, "remote_conn", None) is None
