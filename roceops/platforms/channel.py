"""Talking to a device's shell over a Netmiko session: send a line, wait for the prompt, without spinning.

Netmiko's read loops (and ours, before this module) poll: read the channel, sleep a few milliseconds,
read again. Each poll runs Netmiko's line-feed normalisation and takes the GIL, so many sessions
waiting on slow devices burn CPU that everything else needs — the devices' answers included, when the
lab shares the machine (bench/RESULTS.md, audit: 1,000 devices). :func:`wait_output` instead blocks on
the Paramiko channel's receive buffer until bytes arrive, then reads them the way Netmiko's
``read_channel`` does (see :func:`read_available`).
"""

from __future__ import annotations

import re
import time
from typing import Any

from roceops.device.change import DriverError

FALLBACK_POLL_S = 0.01  # connections without a Paramiko channel (telnet, serial, test doubles)


def read_available(conn: Any) -> str:
    """What the device has sent so far, as Netmiko's ``read_channel`` would return it, but cheaper.

    Netmiko runs its 33 ANSI-escape regexes over every chunk of a ``linux``-family session; here they
    run only on chunks that contain an escape character, which is the same result. Connections with
    Netmiko-side state (a session log, a pushed-back buffer) or without an SSH channel go through
    Netmiko's own ``read_channel``.
    """
    channel = getattr(conn, "channel", None)
    raw = getattr(channel, "read_channel", None)
    if raw is None or getattr(conn, "session_log", None) or getattr(conn, "_read_buffer", "") \
            or not hasattr(conn, "normalize_linefeeds"):
        return str(conn.read_channel())
    text = str(raw())
    if not text:
        return ""
    if not getattr(conn, "disable_lf_normalization", False):
        deadline = time.monotonic() + 1.0  # like Netmiko: a chunk ending in CR may be half of a CRLF
        while "\n" in text and text.endswith("\r") and time.monotonic() < deadline:
            _wait(conn, 0.01)
            text += str(raw())
        if "\r" in text:
            text = _normalize_linefeeds(conn, text)
    if getattr(conn, "ansi_escape_codes", False) and "\x1b" in text:
        text = conn.strip_ansi_escape_codes(text)
    return text


def _normalize_linefeeds(conn: Any, text: str) -> str:
    """Netmiko's ``normalize_linefeeds`` (its regex over the whole chunk), with a fast path for the common
    case: when every CR is the first half of a CRLF, replacing CRLF by LF is the same result."""
    if getattr(conn, "RESPONSE_RETURN", "\n") == "\n":
        plain = text.replace("\r\n", "\n")
        if "\r" not in plain:
            return plain
    return str(conn.normalize_linefeeds(text))


def _wait(conn: Any, timeout: float) -> bool:
    """Block until the channel has data or closes (True), or ``timeout`` passes (False)."""
    buffer = getattr(getattr(conn, "remote_conn", None), "in_buffer", None)
    if buffer is None or not hasattr(buffer, "read"):
        time.sleep(min(max(timeout, 0.0), FALLBACK_POLL_S))
        return True
    try:
        buffer.read(0, max(timeout, 0.001))  # waits for data (or the channel closing) and consumes none of it
    except _pipe_timeout():  # evaluated only when the read raised
        return False
    return True


def _pipe_timeout() -> type[Exception]:
    """Paramiko's PipeTimeout, imported when first needed: the rooms import this module, and rendering (which
    loads every room) needs no SSH library; paramiko and what it imports cost ~0.1 s of CPU at start-up."""
    from paramiko.buffered_pipe import PipeTimeout  # type: ignore[import-untyped]

    return PipeTimeout  # type: ignore[no-any-return]


def wait_output(conn: Any, timeout: float) -> str:
    """The next output of ``conn``, waiting up to ``timeout`` seconds for it; ``""`` if none came.

    Returns at once with whatever is already buffered. A closed channel also ends the wait (and then
    reads ``""``), so callers check that the session is alive when they get nothing.
    """
    text = read_available(conn)
    if text:
        return text
    return read_available(conn) if _wait(conn, timeout) else ""


def alive(conn: Any) -> bool:
    """The SSH channel is open (without Netmiko's ``is_alive``, which writes a NUL byte into the shell)."""
    chan = getattr(conn, "remote_conn", None)
    if chan is None:
        return False
    transport = chan.get_transport() if hasattr(chan, "get_transport") else None
    return not getattr(chan, "closed", False) and not getattr(chan, "eof_received", False) and (
        transport is None or transport.is_active())


DEADLINE_ATTR = "roceops_deadline"  # time.monotonic() by which this connection's work must be over (deploy)


class DeadlineExceeded(DriverError):
    """The device's deadline passed before this read could start."""


def read_timeout(conn: Any, default: float) -> float:
    """How long the next read may wait: the connection's ``read_timeout_override`` (set by every run from its
    ``--timeout``), else ``default``; never past the connection's deadline (``roceops_deadline``), if it has one.

    Raises :class:`DeadlineExceeded` when that deadline has already passed.
    """
    override = getattr(conn, "read_timeout_override", None)
    timeout = float(override) if isinstance(override, int | float) and override > 0 else default
    deadline = getattr(conn, DEADLINE_ATTR, None)
    if isinstance(deadline, float):
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded("the device's deadline passed")
        timeout = min(timeout, left)
    return timeout


def prompt_pattern(conn: Any) -> str:
    """A shell prompt at the end of the output: the base prompt Netmiko found, then ``$`` or ``#``."""
    return rf"{re.escape(conn.base_prompt)}[^\n]*[$#]\s*$"


ECHO_GRACE_S = 5.0  # a prompt with no echo before it ends the read after this long a silence


def _unblanked(text: str) -> str:
    """``re.sub(r"\\s+", "", text)``: str.split and the regex's ``\\s`` know the same whitespace."""
    return "".join(text.split())


def _echoed(head: str, echo: str, wanted: str) -> bool:
    """``wanted`` (``echo`` without blanks) is in ``head`` without blanks. An unwrapped echo, found as it is,
    answers at once: removing blanks from ``head`` keeps that occurrence whole."""
    return echo in head or wanted in _unblanked(head)


def read_until(conn: Any, pattern: str, what: str, timeout: float, echo: str | None = None) -> str:
    """Read until ``pattern`` matches the end of the output (and, with ``echo``, comes after that echo).

    Unlike Netmiko's read loops this notices a session that died (reset, closed) at once instead of
    waiting for the read timeout, and it sleeps while the device is quiet instead of polling. ``echo``
    guards against a stale prompt (one the shell printed before the command was read, e.g. after a
    login under load): the read only ends at a prompt once the command's echo has been seen, however
    the terminal wrapped it.
    """
    regex = re.compile(pattern)
    wanted = _unblanked(echo) if echo else ""
    echoed = not wanted
    out = ""
    prompt_at: float | None = None  # when the output last ended in a prompt not preceded by the echo
    deadline = time.monotonic() + timeout
    while True:
        chunk = wait_output(conn, min(1.0, deadline - time.monotonic()))
        if chunk:
            out += chunk
            prompt_at = None
            if regex.search(out[-512:]):
                echoed = echoed or _echoed(out[:2 * len(wanted) + 1024], echo or "", wanted)  # the echo comes first
                if echoed:
                    return out
                prompt_at = time.monotonic()
            continue
        if not alive(conn):
            raise DriverError(f"the SSH session closed while waiting for `{what}`")
        if prompt_at is not None and time.monotonic() - prompt_at >= ECHO_GRACE_S:
            return out  # a shell that does not echo: the prompt came back and nothing followed it
        if time.monotonic() > deadline:
            raise DriverError(f"no prompt {timeout:.0f} s after `{what}`; last output: {out.strip()[-200:]!r}")


def find_prompt(conn: Any, pattern: re.Pattern[str], timeout: float) -> str:
    """The shell's current prompt, asked for with one RETURN: Netmiko's ``find_prompt`` without its fixed
    sleeps (a quarter of a second per call) and polling.

    ``pattern`` matches a prompt at the end of the output. Only a prompt on a fresh line counts (the
    RETURN's own line feed comes before it), so a stale prompt left in the buffer from the login is not
    taken for the answer.
    """
    conn.write_channel(conn.RETURN)
    out = ""
    deadline = time.monotonic() + timeout
    while True:
        chunk = wait_output(conn, min(1.0, deadline - time.monotonic()))
        if chunk:
            out += chunk
            tail = out[-512:]
            if (m := pattern.search(tail)) and "\n" in tail[: m.start() + 1]:
                return tail[m.start():].strip().rsplit("\n", 1)[-1].strip()
            continue
        if not alive(conn):
            raise DriverError("the SSH session closed while waiting for the prompt")
        if time.monotonic() > deadline:
            raise DriverError(f"no prompt {timeout:.0f} s after a RETURN; last output: {out.strip()[-200:]!r}")


LOGIN_PROMPT = "roceops_login_prompt"  # attribute a quick login leaves on the connection (see current_prompt)


def current_prompt(conn: Any, pattern: re.Pattern[str], timeout: float) -> str:
    """The shell's prompt now: the one a quick login (:mod:`roceops.platforms.login`) saw last, the first time
    this is asked after it (nothing has been sent since), else :func:`find_prompt`'s answer."""
    seen = vars(conn).pop(LOGIN_PROMPT, None) if hasattr(conn, "__dict__") else None
    if isinstance(seen, str) and pattern.search("\n" + seen):
        return seen
    return find_prompt(conn, pattern, timeout)


def strip_echo(raw: str, command: str) -> str:
    """Command output without the echo of ``command`` (even wrapped over several lines by the terminal, or
    after a stale prompt) and without the trailing prompt line."""
    last = raw.rfind("\n")  # the prompt's line starts after it
    if last < 0:
        return ""
    wanted = command.replace(" ", "")
    seen = ""
    start = 0
    while start <= last:  # the lines before the prompt's, without splitting the whole output into lines
        end = raw.index("\n", start)
        line = raw[start:end].replace(" ", "")
        seen += line
        if wanted in seen[-(len(wanted) + len(line)):]:  # not in the part seen before: a new one ends in this line
            return raw[end + 1:last].rstrip()
        start = end + 1
    return raw[raw.index("\n") + 1:last].rstrip()


def send_line(conn: Any, command: str, timeout: float) -> str:
    """Run one shell line and return its output, without the echo and the prompt."""
    conn.write_channel(command + "\n")
    return strip_echo(read_until(conn, prompt_pattern(conn), command, timeout, echo=command), command)
