"""Logging in for read-only runs (audit, health): Netmiko's connection, with a session preparation that waits
on the channel instead of sleeping and polling.

Netmiko's own preparation (``_try_session_preparation``) writes a RETURN and sleeps 0.1 s, then finds the
prompt with fixed sleeps and 10 ms polling reads, and for EOS sends ``terminal width`` and ``terminal
length`` one after the other, each read the same way. That costs more CPU per device than the SSH
handshake itself (bench/login_cost.py). :func:`open_session` does the same steps with one RETURN and
blocking reads (:mod:`roceops.platforms.channel`), and leaves the connection as Netmiko's would be: the
SSH channel open, ``base_prompt`` set, ANSI escapes stripped, the platform's session lines sent.
"""

from __future__ import annotations

import re
from typing import Any

from roceops.platforms.base import NetmikoSettings
from roceops.platforms.channel import find_prompt, read_until

PROMPT_AT_END = re.compile(r"(?:^|\n)[^\n]*[$>#][ \t]*$")  # a last line ending in Netmiko's terminators


def base_prompt(prompt: str) -> str:
    """The prompt without its terminator, as Netmiko's ``set_base_prompt`` keeps it."""
    return prompt if len(prompt) == 1 else prompt[:-1]


def open_session(conn: Any, settings: NetmikoSettings, timeout: float) -> None:
    """Connect ``conn`` (a Netmiko connection made with ``auto_connect=False``) and prepare its shell.

    Raises what Netmiko's connect raises (authentication, TCP, SSH errors) or
    :class:`~roceops.platforms.driver.DriverError` when no prompt comes within ``timeout``; the
    connection is closed again on any failure.
    """
    conn._modify_connection_params()
    conn.establish_connection()
    try:
        conn.ansi_escape_codes = True  # as Netmiko's session preparation for these types sets it
        prompt = find_prompt(conn, PROMPT_AT_END, timeout)
        conn.base_prompt = base_prompt(prompt)
        if settings.session_lines:
            _send_session_lines(conn, settings.session_lines, timeout)
    except BaseException:
        conn.disconnect()
        raise


def _send_session_lines(conn: Any, lines: tuple[str, ...], timeout: float) -> None:
    """Send every line in one write and read until the prompt follows the last one's echo."""
    conn.write_channel("".join(f"{line}\n" for line in lines))
    pattern = rf"{re.escape(conn.base_prompt)}[^\n]*[$>#]\s*$"
    read_until(conn, pattern, lines[-1], timeout, echo=lines[-1])
