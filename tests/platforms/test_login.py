"""roceops.platforms.login without a lab: the steps of a quick login against a scripted shell."""

from __future__ import annotations

import hmac
import os
import re
import socket
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netmiko.exceptions import NetmikoTimeoutException
from paramiko.buffered_pipe import BufferedPipe

from roceops.device.change import DriverError
from roceops.platforms.base import NetmikoSettings
from roceops.platforms.channel import current_prompt
from roceops.platforms.login import base_prompt, open_session, tcp_socket
from roceops.platforms.ssh_keys import private_key


class _Chan:
    def __init__(self) -> None:
        self.in_buffer = BufferedPipe()
        self.closed = self.eof_received = False


class _Shell:
    """Just what open_session touches of a Netmiko connection made with auto_connect=False; the "device" echoes
    each line and answers with ``answers`` and its prompt."""

    RETURN = "\n"
    read_timeout_override = None
    ssh_config_file = None
    key_file: str | None = None
    pkey: Any = None
    passphrase: str | None = None

    def __init__(self, prompt: str, answers: dict[str, str] | None = None, silent: bool = False) -> None:
        self.prompt, self.answers, self.silent = prompt, answers or {}, silent
        self.written: list[str] = []
        self.steps: list[str] = []
        self.remote_conn: Any = None
        self.ansi_escape_codes = False
        self.sock: Any = socket.socket()  # given, as with a proxy: open_session opens none of its own

    def _modify_connection_params(self) -> None:
        self.steps.append("params")

    def establish_connection(self) -> None:
        self.steps.append("connect")
        self.remote_conn = _Chan()
        self._feed("Last login: today\n")

    def disconnect(self) -> None:
        self.steps.append("disconnect")
        self.remote_conn = None
        self.sock.close()

    def _feed(self, text: str) -> None:
        self.remote_conn.in_buffer.feed(text.encode())

    def write_channel(self, text: str) -> None:
        self.written.append(text)
        if self.silent:
            return
        for line in text.split("\n")[:-1]:
            answer = self.answers.get(line, "")
            self._feed(f"{line}\n{answer}{chr(10) if answer else ''}{self.prompt}")

    def read_channel(self) -> str:
        buf = self.remote_conn.in_buffer
        return buf.read(65536, 0.001).decode() if buf.read_ready() else ""


def test_base_prompt_keeps_everything_but_the_terminator() -> None:
    assert base_prompt("admin@leaf01:~$") == "admin@leaf01:~"
    assert base_prompt("spine01>") == "spine01"
    assert base_prompt("#") == "#"


def test_linux_shell_one_return_then_the_prompt() -> None:
    shell = _Shell("admin@leaf01:~$ ")
    open_session(shell, NetmikoSettings(device_type="linux"), timeout=2)
    assert shell.steps == ["params", "connect"]
    assert shell.written == ["\n"]
    assert shell.base_prompt == "admin@leaf01:~" and shell.ansi_escape_codes is True


def test_eos_session_lines_go_in_one_write_after_the_prompt() -> None:
    shell = _Shell("spine01>", {"terminal width 511": "Width set to 511 columns.",
                                "terminal length 0": "Pagination disabled."})
    settings = NetmikoSettings(device_type="arista_eos", session_lines=("terminal width 511", "terminal length 0"))
    open_session(shell, settings, timeout=2)
    assert shell.written == ["\n", "terminal width 511\nterminal length 0\n"]
    assert shell.base_prompt == "spine01"


def test_no_prompt_in_time_closes_the_connection() -> None:
    shell = _Shell("spine01>", silent=True)
    with pytest.raises(DriverError, match="no prompt"):
        open_session(shell, NetmikoSettings(device_type="arista_eos"), timeout=0.5)
    assert shell.steps[-1] == "disconnect"


def test_own_socket_has_nagle_off_and_refusals_are_netmiko_s_error() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    host, port = server.getsockname()
    sock = tcp_socket(host, port, 2)
    try:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        sock.close()
        server.close()
    with pytest.raises(NetmikoTimeoutException, match=f"TCP connection to device failed: {host}:{port}"):
        tcp_socket(host, port, 2)  # nothing listens there now


def test_the_drivers_first_prompt_question_after_login_needs_no_round_trip() -> None:
    shell = _Shell("spine01>", {"terminal width 511": "Width set to 511 columns.",
                                "terminal length 0": "Pagination disabled."})
    open_session(shell, NetmikoSettings(device_type="arista_eos",
                                        session_lines=("terminal width 511", "terminal length 0")), timeout=2)
    pattern = re.compile(r"(?:^|\n)([\w.\-]+[>#]) ?$")
    writes = len(shell.written)
    assert current_prompt(shell, pattern, 2) == "spine01>" and len(shell.written) == writes  # remembered
    assert current_prompt(shell, pattern, 2) == "spine01>" and shell.written[writes:] == ["\n"]  # asked again


def test_a_remembered_prompt_the_driver_does_not_recognise_is_asked_for() -> None:
    shell = _Shell("admin@gpu001:~$ ")
    open_session(shell, NetmikoSettings(device_type="linux"), timeout=2)
    writes = len(shell.written)
    with pytest.raises(DriverError):  # an EOS-only pattern: the remembered "$" prompt is not taken, the shell asked
        current_prompt(shell, re.compile(r"(?:^|\n)[\w.\-]+[>#] ?$"), 0.3)
    assert shell.written[writes:] == ["\n"]


def test_the_key_file_is_read_once_per_process_and_version(tmp_path) -> None:
    from roceops.lab.ssh_lib import asyncssh

    path = tmp_path / "id_ed25519"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(path))
    first = private_key(str(path), None)
    assert first is not None and private_key(str(path), None) is first  # cached
    before = path.stat().st_mtime_ns
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(path))  # rotated: a new version
    os.utime(path, ns=(before + 10**9, before + 10**9))  # whatever the file system's timestamp resolution
    assert private_key(str(path), None) is not first
    assert private_key(str(tmp_path / "missing"), None) is None  # Paramiko reports it as it would
    (tmp_path / "junk").write_text("not a key")
    assert private_key(str(tmp_path / "junk"), None) is None
    shell = _Shell("admin@leaf01:~$ ")
    shell.key_file = str(path)
    open_session(shell, NetmikoSettings(device_type="linux"), timeout=2)
    assert shell.pkey is private_key(str(path), None)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=70), st.binary(max_size=70), st.booleans())
def test_packet_mac_check_is_equality_of_the_bytes(a: bytes, b: bytes, same: bool) -> None:
    """After roceops.platforms.login is imported, Paramiko's per-packet MAC check is hmac.compare_digest: true
    exactly when both byte strings are equal (what Paramiko's own loop returns), whatever their lengths."""
    import paramiko.util

    check = paramiko.util.constant_time_bytes_eq
    assert check is hmac.compare_digest
    assert check(a, a if same else b) == (a == (a if same else b))
    assert check(a, bytes(a)) is True and check(a, a + b"\0") is False
