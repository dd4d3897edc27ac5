"""SSH key material read once per process and file version, not once per connection: the client's private key
and the known_hosts file that strict host key checking (``ROCEOPS_KNOWN_HOSTS``) compares against.

Paramiko parses the private key file again for every connection (trying each key type in turn), and its
``HostKeys.load`` checks every line against every entry read before it: the lab's 1,008-line known_hosts
takes 104 ms per connection that way, 9 ms to index once (bench/login_cost.py). :func:`known_hosts` indexes
the file once, by host name.
"""

from __future__ import annotations

import functools
import hmac
import os
from dataclasses import dataclass
from typing import Any

import paramiko
from paramiko.hostkeys import HostKeyEntry


def _version(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def private_key(path: str, passphrase: str | None) -> paramiko.PKey | None:
    """The private key in ``path`` (None if it cannot be read here: Paramiko then reads it as it would)."""
    version = _version(path)
    return None if version is None else _cached_key(path, *version, passphrase)


@functools.lru_cache(maxsize=8)
def _cached_key(path: str, mtime_ns: int, size: int, passphrase: str | None) -> paramiko.PKey | None:
    try:
        return paramiko.PKey.from_path(path, passphrase)
    except (OSError, paramiko.SSHException, ValueError):
        return None


def key_file_problem(path: str) -> str | None:
    """Why the private key file ``path`` cannot be used for a login (None: it can): not readable, not a
    private key, or encrypted (roceops takes no passphrase; an encrypted key belongs in the SSH agent)."""
    encrypted = "the key is encrypted and roceops takes no passphrase: add it to an SSH agent (ssh-add) instead"
    try:
        paramiko.PKey.from_path(path, None)
    except paramiko.PasswordRequiredException:
        return encrypted
    except OSError as exc:
        return f"cannot read it ({exc.strerror or exc})"
    except TypeError as exc:  # cryptography's answer for an encrypted PEM key without a password
        return encrypted if "encrypted" in str(exc) else f"not a private key file Paramiko can read ({exc})"
    except (paramiko.SSHException, ValueError, IndexError) as exc:
        return f"not a private key file Paramiko can read ({type(exc).__name__})"
    return None


@dataclass(frozen=True)
class KnownHosts:
    """A known_hosts file by host name. As in Paramiko, the first entry of a key type for a host is the one that
    counts. As in OpenSSH, lines that cannot be read are skipped and a key marked ``@revoked`` is trusted for
    no host; ``@cert-authority`` lines are skipped (certificates are not supported: such hosts are unknown,
    so refused)."""

    named: dict[str, dict[str, paramiko.PKey]]
    hashed: tuple[tuple[str, str, paramiko.PKey], ...]  # (|1|salt|hash, key type, key)

    def keys_for(self, name: str) -> dict[str, paramiko.PKey]:
        """Key type -> key for ``name`` (``host`` for port 22, else ``[host]:port``, as Paramiko looks it up)."""
        found = dict(self.named.get(name, {}))
        for host_hash, key_type, key in self.hashed:
            if key_type not in found and hmac.compare_digest(paramiko.HostKeys.hash_host(name, host_hash),
                                                             host_hash):
                found[key_type] = key
        return found


def read_known_hosts(text: str) -> KnownHosts:
    named: dict[str, dict[str, paramiko.PKey]] = {}
    hashed: list[tuple[str, str, paramiko.PKey]] = []
    revoked: set[str] = set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        marker, _, rest = line.partition(" ") if line.startswith("@") else ("", "", line)
        entry = _entry(rest.strip(), lineno)
        if entry is None or marker == "@cert-authority" or (marker and marker != "@revoked"):
            continue
        if marker == "@revoked":
            revoked.add(entry.key.get_base64())
            continue
        key_type = entry.key.get_name()
        for host in entry.hostnames:
            if host.startswith("|1|"):
                hashed.append((host, key_type, entry.key))
            else:
                named.setdefault(host, {}).setdefault(key_type, entry.key)
    if revoked:
        named = {h: {t: k for t, k in keys.items() if k.get_base64() not in revoked} for h, keys in named.items()}
        hashed = [(h, t, k) for h, t, k in hashed if k.get_base64() not in revoked]
    return KnownHosts(named, tuple(hashed))


def _entry(line: str, lineno: int) -> HostKeyEntry | None:
    """One known_hosts entry, or None for a line Paramiko cannot read (a key type it lacks, bad base64)."""
    try:
        entry = HostKeyEntry.from_line(line, lineno)
    except (paramiko.SSHException, ValueError, TypeError, paramiko.hostkeys.InvalidHostKey):
        return None
    return entry if entry is not None and entry.key is not None else None


def known_hosts(path: str) -> KnownHosts | None:
    """The known_hosts file at ``path``, indexed; None if it cannot be read."""
    version = _version(path)
    return None if version is None else _cached_known_hosts(path, *version)


@functools.lru_cache(maxsize=4)
def _cached_known_hosts(path: str, mtime_ns: int, size: int) -> KnownHosts | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return read_known_hosts(fh.read())
    except OSError:
        return None


def checks_host_keys(conn: Any) -> bool:
    """This Netmiko connection checks host keys against its ``alt_key_file`` only (``ssh_strict``)."""
    return (isinstance(getattr(conn, "key_policy", None), paramiko.RejectPolicy)
            and bool(getattr(conn, "alt_host_keys", False)) and bool(getattr(conn, "alt_key_file", None))
            and not getattr(conn, "system_host_keys", False))


def checking_client(conn: Any) -> paramiko.SSHClient:
    """What Netmiko's ``_build_ssh_client`` makes for a strict connection (its policy rejects unknown hosts),
    knowing only this device's entries of the known_hosts file."""
    client = conn._get_ssh_client_instance()
    name = conn.host if int(conn.port) == 22 else f"[{conn.host}]:{conn.port}"
    index = known_hosts(conn.alt_key_file)
    for key_type, key in (index.keys_for(name) if index is not None else {}).items():
        client.get_host_keys().add(name, key_type, key)
    client.set_missing_host_key_policy(conn.key_policy)
    return client
