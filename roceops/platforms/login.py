"""Logging in for read-only runs (audit, health): Netmiko's connection, with a session preparation that waits
on the channel instead of sleeping and polling.

Netmiko's own preparation (``_try_session_preparation``) writes a RETURN and sleeps 0.1 s, then finds the
prompt with fixed sleeps and 10 ms polling reads, and for EOS sends ``terminal width`` and ``terminal
length`` one after the other, each read the same way. That costs more CPU per device than the SSH
handshake itself (bench/login_cost.py). :func:`open_session` does the same steps with one RETURN and
blocking reads (:mod:`roceops.platforms.channel`), and leaves the connection as Netmiko's would be: the
SSH channel open, ``base_prompt`` set, ANSI escapes stripped, the platform's session lines sent. Its TCP
socket has Nagle's algorithm off (:func:`tcp_socket`).
"""

from __future__ import annotations

import functools
import os
import re
import socket
from typing import Any

import paramiko
from netmiko.exceptions import NetmikoTimeoutException

from roceops.platforms.base import NetmikoSettings
from roceops.platforms.channel import LOGIN_PROMPT, find_prompt, read_until

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
    if conn.key_file and conn.pkey is None:
        conn.pkey = private_key(conn.key_file, conn.passphrase)  # None: Paramiko reads the file as it would
    if getattr(conn, "ssh_strict", False) and getattr(conn, "alt_key_file", None) \
            and getattr(conn, "alt_host_keys", False) and not getattr(conn, "system_host_keys", False):
        conn._build_ssh_client = functools.partial(_checking_client, conn)  # known_hosts read once, not per login
    own_socket = conn.sock is None and not conn.ssh_config_file  # a proxy from an ssh_config brings its own
    if own_socket:
        conn.sock = tcp_socket(conn.host, conn.port, conn.conn_timeout)
    try:
        conn.establish_connection()
    except BaseException:
        if own_socket:
            conn.sock.close()
        raise
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


def private_key(path: str, passphrase: str | None) -> paramiko.PKey | None:
    """The private key in ``path``, read once per process and file version (Paramiko reads and parses the
    file again for every connection, trying each key type in turn); None if it cannot be read here."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _cached_key(path, stat.st_mtime_ns, stat.st_size, passphrase)


@functools.lru_cache(maxsize=8)
def _cached_key(path: str, mtime_ns: int, size: int, passphrase: str | None) -> paramiko.PKey | None:
    try:
        return paramiko.PKey.from_path(path, passphrase)
    except (OSError, paramiko.SSHException, ValueError):
        return None


def known_host_keys(path: str) -> paramiko.HostKeys | None:
    """The known_hosts file at ``path``, read once per process and file version; None if it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _cached_host_keys(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4)
def _cached_host_keys(path: str, mtime_ns: int, size: int) -> paramiko.HostKeys | None:
    try:
        return paramiko.HostKeys(path)
    except (OSError, paramiko.SSHException, ValueError):
        return None


def _checking_client(conn: Any) -> paramiko.SSHClient:
    """What Netmiko's ``_build_ssh_client`` makes for a strict connection (its key policy rejects unknown
    hosts), knowing only this device's entries of the known_hosts file instead of parsing all of it."""
    client = conn._get_ssh_client_instance()
    keys = known_host_keys(conn.alt_key_file)
    name = conn.host if int(conn.port) == 22 else f"[{conn.host}]:{conn.port}"  # as Paramiko looks it up
    for key_type, key in ((keys.lookup(name) if keys is not None else None) or {}).items():
        client.get_host_keys().add(name, key_type, key)
    client.set_missing_host_key_policy(conn.key_policy)
    return client


def tcp_socket(host: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection with Nagle's algorithm off, as OpenSSH's client sets it for interactive sessions.

    Paramiko leaves Nagle on: the handshake's back-to-back small packets then wait for the peer's delayed
    ACK (40 ms on Linux) several times per login, which made a login ~70 ms instead of ~5 ms on the lab
    (bench/RESULTS.md). Errors are Netmiko's, as if it had opened the socket itself.
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
