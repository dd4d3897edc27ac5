"""The shared channel reader waits on Paramiko's receive buffer instead of polling, and still notices the end."""

from __future__ import annotations

import re
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paramiko.buffered_pipe import BufferedPipe

from roceops.device.change import DriverError
from roceops.platforms.channel import (
    _echoed,
    _unblanked,
    find_prompt,
    read_timeout,
    read_until,
    send_line,
    strip_echo,
    wait_output,
)


class _Chan:
    def __init__(self) -> None:
        self.in_buffer = BufferedPipe()
        self.closed = False
        self.eof_received = False


class _Conn:
    """What the reader touches of a Netmiko connection: read_channel over a Paramiko-like channel."""

    base_prompt = "admin@leaf01"
    RETURN = "\n"
    read_timeout_override: float | None = None

    def __init__(self) -> None:
        self.remote_conn = _Chan()
        self.reads = 0
        self.written: list[str] = []

    def read_channel(self) -> str:
        self.reads += 1
        buf = self.remote_conn.in_buffer
        return buf.read(65536, 0.001).decode() if buf.read_ready() else ""

    def write_channel(self, text: str) -> None:
        self.written.append(text)

    def feed_later(self, delay: float, data: str) -> threading.Thread:
        t = threading.Thread(target=lambda: (time.sleep(delay), self.remote_conn.in_buffer.feed(data.encode())))
        t.start()
        return t


def test_wakes_when_data_arrives_without_polling() -> None:
    conn = _Conn()
    t = conn.feed_later(0.2, "hello\n")
    start = time.monotonic()
    assert wait_output(conn, 5.0) == "hello\n"
    assert 0.15 < time.monotonic() - start < 2.0
    assert conn.reads == 2  # once before waiting, once after the wake-up: no polling in between
    t.join()


def test_times_out_with_nothing() -> None:
    conn = _Conn()
    start = time.monotonic()
    assert wait_output(conn, 0.2) == ""
    assert time.monotonic() - start >= 0.19 and conn.reads == 1


def test_closed_channel_ends_the_wait_and_the_read() -> None:
    conn = _Conn()
    chan = conn.remote_conn
    threading.Timer(0.1, lambda: (setattr(chan, "closed", True), chan.in_buffer.close())).start()
    start = time.monotonic()
    with pytest.raises(DriverError, match="closed while waiting for `show x`"):
        read_until(conn, r"\$\s*$", "show x", 10.0)
    assert time.monotonic() - start < 2.0


def test_send_line_strips_echo_and_prompt() -> None:
    conn = _Conn()
    conn.feed_later(0.05, "show x\nline 1\nline 2\n")
    conn.feed_later(0.15, "admin@leaf01:~$ ")
    assert send_line(conn, "show x", 5.0) == "line 1\nline 2"
    assert conn.written == ["show x\n"]


def test_read_until_names_the_command_on_timeout() -> None:
    conn = _Conn()
    conn.remote_conn.in_buffer.feed(b"partial")
    with pytest.raises(DriverError, match=r"no prompt 0 s after `show y`; last output: 'partial'"):
        read_until(conn, r"\$\s*$", "show y", 0.3)


def test_connections_without_a_paramiko_channel_fall_back_to_short_sleeps() -> None:
    class Plain:
        remote_conn = None

        def read_channel(self) -> str:
            return ""

    start = time.monotonic()
    assert wait_output(Plain(), 5.0) == ""
    assert time.monotonic() - start < 0.5


def test_read_timeout_prefers_the_connection_override() -> None:
    conn = _Conn()
    assert read_timeout(conn, 120.0) == 120.0
    conn.read_timeout_override = 7.5
    assert read_timeout(conn, 120.0) == 7.5


def test_a_stale_prompt_before_the_echo_does_not_end_the_read() -> None:
    conn = _Conn()
    conn.remote_conn.in_buffer.feed(b"admin@leaf01:~$ ")  # left over from the login
    conn.feed_later(0.1, "echo a ; nv show\n  interface\nout 1\n")
    conn.feed_later(0.2, "admin@leaf01:~$ ")
    assert send_line(conn, "echo a ; nv show interface", 5.0) == "out 1"


class _Raw:
    """Netmiko's SSHChannel side: raw decoded text, chunk by chunk."""

    def __init__(self, chunks: list[str]) -> None:
        self.chunks = chunks

    def read_channel(self) -> str:
        return self.chunks.pop(0) if self.chunks else ""


class _NetmikoLike(_Conn):
    from netmiko.base_connection import BaseConnection as _B

    RETURN = RESPONSE_RETURN = "\n"
    ansi_escape_codes = True
    session_log = None
    _read_buffer = ""
    normalize_linefeeds = _B.normalize_linefeeds
    strip_ansi_escape_codes = _B.strip_ansi_escape_codes

    def __init__(self, chunks: list[str]) -> None:
        super().__init__()
        self.channel = _Raw(chunks)

    def read_channel(self) -> str:  # pragma: no cover - read_available must not fall back here
        raise AssertionError("fell back to Netmiko's read_channel")


def test_read_available_matches_netmiko_and_strips_escapes_only_when_present() -> None:
    from roceops.platforms.channel import read_available

    conn = _NetmikoLike(["line 1\r\nline\x1b[2K 2\r", "\nend\r\n", "plain\r\n"])
    assert read_available(conn) == "line 1\nline 2\nend\n"  # the CR-ending chunk waited for its LF
    assert read_available(conn) == "plain\n"
    assert read_available(conn) == ""


def test_a_shell_that_does_not_echo_still_answers_after_a_quiet_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    import roceops.platforms.channel as channel

    monkeypatch.setattr(channel, "ECHO_GRACE_S", 0.3)
    conn = _Conn()
    conn.feed_later(0.05, "out 1\nadmin@leaf01:~$ ")
    start = time.monotonic()
    assert read_until(conn, r"\$\s*$", "show x", 10.0, echo="show x") == "out 1\nadmin@leaf01:~$ "
    assert 0.3 <= time.monotonic() - start < 3.0


_PROMPT = re.compile(r"\n[^\n]*[$#>][ \t]*$")


def test_find_prompt_skips_a_stale_prompt_and_returns_the_fresh_one() -> None:
    conn = _Conn()
    conn.remote_conn.in_buffer.feed(b"admin@leaf01:~$ ")  # left over from the login
    conn.feed_later(0.1, "\nroot@leaf01:~# ")  # the answer to the RETURN
    start = time.monotonic()
    assert find_prompt(conn, _PROMPT, 5.0) == "root@leaf01:~#"
    assert conn.written == ["\n"] and time.monotonic() - start < 2.0  # one RETURN, no fixed sleeps


def test_find_prompt_fails_on_a_closed_channel_and_on_silence() -> None:
    conn = _Conn()
    with pytest.raises(DriverError, match="no prompt 0 s after a RETURN"):
        find_prompt(conn, _PROMPT, 0.2)
    chan = conn.remote_conn
    threading.Timer(0.1, lambda: (setattr(chan, "closed", True), chan.in_buffer.close())).start()
    with pytest.raises(DriverError, match="closed while waiting for the prompt"):
        find_prompt(conn, _PROMPT, 10.0)


class _Netmiko:
    RESPONSE_RETURN = "\n"

    def normalize_linefeeds(self, a_string: str) -> str:
        from netmiko.base_connection import BaseConnection

        return str(BaseConnection.normalize_linefeeds(self, a_string))  # type: ignore[arg-type]


@given(st.text(alphabet="\r\nab", max_size=40))
def test_linefeed_fast_path_equals_netmiko_on_any_text(text: str) -> None:
    from roceops.platforms.channel import _normalize_linefeeds

    assert _normalize_linefeeds(_Netmiko(), text) == _Netmiko().normalize_linefeeds(text)


@pytest.mark.parametrize("text", ["a\r\nb\r\n", "a\n\r\nb", "x\r\r\ny", "a\rb\r\n", "a\n\rb", "\r\n\r", "\r\r\r\n",
                                  "plain\n", "prompt# \r\n\r\n", "a\r\n\r\n\rb\r"])
def test_linefeeds_are_normalised_exactly_as_netmiko_does(text: str) -> None:
    from roceops.platforms.channel import _normalize_linefeeds

    assert _normalize_linefeeds(_Netmiko(), text) == _Netmiko().normalize_linefeeds(text)


def _strip_echo_by_lines(raw: str, command: str) -> str:
    """strip_echo as first written (the whole output split into lines): the reference for the find-based one."""
    lines = raw.split("\n")
    wanted = command.replace(" ", "")
    seen = ""
    for i, line in enumerate(lines[:-1]):
        seen += line.replace(" ", "")
        if wanted in seen:
            return "\n".join(lines[i + 1:-1]).rstrip()
    return "\n".join(lines[1:-1]).rstrip()


_ECHO_TEXT = st.text(alphabet="ab \n\t$#", max_size=60)


@given(_ECHO_TEXT, st.text(alphabet="ab \t", max_size=8))
def test_strip_echo_equals_the_line_split_version(raw: str, command: str) -> None:
    assert strip_echo(raw, command) == _strip_echo_by_lines(raw, command)
    assert strip_echo(f"{command}\n{raw}", command) == _strip_echo_by_lines(f"{command}\n{raw}", command)


@given(_ECHO_TEXT, st.text(alphabet="ab \t\n\x0b\x85\u2028\u3000", max_size=12))
def test_echo_test_equals_the_blank_free_search(head: str, echo: str) -> None:
    wanted = re.sub(r"\s+", "", echo)
    assert _unblanked(echo) == wanted
    assert _echoed(head, echo, wanted) == (wanted in re.sub(r"\s+", "", head))
