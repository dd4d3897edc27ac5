"""Logging in: Netmiko's connection, opened by roceops (:func:`connect`: key file and known_hosts read once per
process, Nagle off) and, for read-only runs (audit, health), prepared with a session preparation that waits
on the channel instead of sleeping and polling (:func:`open_session`; deploy keeps Netmiko's own,
:func:`open_netmiko_session`).

Netmiko's own preparation (``_try_session_preparation``) writes a RETURN and sleeps 0.1 s, then finds the
prompt with fixed sleeps and 10 ms polling reads, and for EOS sends ``terminal width`` and ``terminal
length`` one after the other, each read the same way (cost: bench/login_cost.py). :func:`open_session`
does the same steps with one RETURN and blocking reads (:mod:`roceops.platforms.channel`), and leaves the
connection as Netmiko's would be: the SSH channel open, ``base_prompt`` set, ANSI escapes stripped, the
platform's session lines sent. Its TCP socket has Nagle's algorithm off (:func:`tcp_socket`).
"""

from __future__ import annotations

import functools
import hmac
import re
import socket
from typing import Any

import paramiko
import paramiko.util
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException

from roceops.platforms.base import NetmikoSettings
from roceops.platforms.channel import LOGIN_PROMPT, find_prompt, read_until
from roceops.platforms.ssh_keys import checking_client, checks_host_keys, private_key


def use_c_mac_check() -> None:
    """Make Paramiko check each received packet's MAC with :func:`hmac.compare_digest` (C, constant time) instead
    of its own Python loop over the bytes (``paramiko.util.constant_time_bytes_eq``, ~9 us a packet: 0.3-0.5 ms of
    client CPU a device in an audit). Same answer for every pair of byte strings, including different lengths
    (tests/platforms/test_login.py); pyca/cryptography made the same change (pyca/cryptography issue #1210).
    Paramiko's packetizer looks the function up on ``paramiko.util`` for every packet, so this takes effect for
    every connection of the process."""
    paramiko.util.constant_time_bytes_eq = hmac.compare_digest


use_c_mac_check()

PROMPT_AT_END = re.compile(r"(?:^|\n)[^\n]*[$>#][ \t]*$")  # a last line ending in Netmiko's terminators


AUTH_FAILED = "authentication failed: the device refused the credentials (ROCEOPS_USERNAME, ROCEOPS_SSH_KEY, agent)"


def is_auth_failure(exc: BaseException) -> bool:
    """The device refused the login (Netmiko's and Paramiko's authentication errors), as opposed to a timeout
    or a refused connection."""
    return isinstance(exc, NetmikoAuthenticationException | paramiko.AuthenticationException)


def base_prompt(prompt: str) -> str:
    """The prompt without its terminator, as Netmiko's ``set_base_prompt`` keeps it."""
    return prompt if len(prompt) == 1 else prompt[:-1]


def open_session(conn: Any, settings: NetmikoSettings, timeout: float) -> None:
    """Connect ``conn`` (a Netmiko connection made with ``auto_connect=False``) and prepare its shell the quick way.

    Raises what Netmiko's connect raises (authentication, TCP, SSH, host key errors) or
    :class:`~roceops.device.change.DriverError` when no prompt comes within ``timeout``; the
    connection is closed again on any failure.
    """
    connect(conn)
    try:
        conn.ansi_escape_codes = True  # as Netmiko's session preparation for these types sets it
        prompt = find_prompt(conn, PROMPT_AT_END, timeout)
        conn.base_prompt = base_prompt(prompt)
        if settings.session_lines:
            prompt = _send_session_lines(conn, settings.session_lines, timeout)
        setattr(conn, LOGIN_PROMPT, prompt)  # the drivers' first question for the prompt needs no round trip
    except BaseException:
        conn.disconnect()
        raise


def open_netmiko_session(conn: Any) -> None:
    """Connect ``conn`` (made with ``auto_connect=False``) and let Netmiko prepare the session as it would
    have (deploy: config mode, enable and paging exactly as Netmiko sets them up)."""
    connect(conn)
    conn._try_session_preparation()  # closes the connection itself when it fails


def connect(conn: Any) -> None:
    """Netmiko's ``establish_connection``, with the private key and known_hosts read once per process
    (:mod:`roceops.platforms.ssh_keys`) and a socket with Nagle's algorithm off (:func:`tcp_socket`)."""
    conn._modify_connection_params()
    if conn.key_file and conn.pkey is None:
        conn.pkey = private_key(conn.key_file, conn.passphrase)  # None: Paramiko reads the file as it would
    if checks_host_keys(conn):
        conn._build_ssh_client = functools.partial(checking_client, conn)
    own_socket = conn.sock is None and not conn.ssh_config_file  # a proxy from an ssh_config brings its own
    if own_socket:
        conn.sock = tcp_socket(conn.host, conn.port, conn.conn_timeout)
    try:
        conn.establish_connection()
    except BaseException:
        if own_socket:
            conn.sock.close()
        raise


def tcp_socket(host: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection with Nagle's algorithm off, as OpenSSH's client sets it for interactive sessions.

    Paramiko leaves Nagle on: the handshake's back-to-back small packets then wait for the peer's delayed
    ACK several times per login (bench/login_cost.py).
    Errors are Netmiko's, as if it had opened the socket itself.
    """
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise NetmikoTimeoutException(f"TCP connection to device failed: {host}:{port}: {exc}") from exc
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _send_session_lines(conn: Any, lines: tuple[str, ...], timeout: float) -> str:
    """Send every line in one write, read until the prompt follows the last one's echo; that prompt."""
    conn.write_channel("".join(f"{line}\n" for line in lines))
    pattern = rf"{re.escape(conn.base_prompt)}[^\n]*[$>#]\s*$"
    out = read_until(conn, pattern, lines[-1], timeout, echo=lines[-1])
    return out.rstrip().rsplit("\n", 1)[-1].strip()
