"""Credentials come from the environment, the SSH agent or key files — never from the fabric file.

ROCEOPS_USERNAME (default ``admin``), ROCEOPS_PASSWORD (optional), ROCEOPS_SSH_KEY (optional key file).
ROCEOPS_KNOWN_HOSTS (optional): an OpenSSH known_hosts file; when set, every device's SSH host key must be
in it and match, or the connection is refused (without it, host keys are accepted as Netmiko does by default).
Values are read at connection-building time and never logged or written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str | None = field(default=None, repr=False)
    key_file: str | None = None
    known_hosts: str | None = None

    def __repr__(self) -> str:  # never show the password, even in debug output
        return f"Credentials(username={self.username!r}, password={'***' if self.password else None}, " \
               f"key_file={self.key_file!r}, known_hosts={self.known_hosts!r})"


def from_environment() -> Credentials:
    return Credentials(
        username=os.environ.get("ROCEOPS_USERNAME", "admin"),
        password=os.environ.get("ROCEOPS_PASSWORD") or None,
        key_file=os.environ.get("ROCEOPS_SSH_KEY") or None,
        known_hosts=os.environ.get(KNOWN_HOSTS_ENV) or None,
    )


KNOWN_HOSTS_ENV = "ROCEOPS_KNOWN_HOSTS"


def strict_host_keys(known_hosts: str) -> dict[str, object]:
    """Netmiko arguments that check every host key against ``known_hosts`` and refuse unknown or changed ones."""
    return {"ssh_strict": True, "system_host_keys": False, "alt_host_keys": True, "alt_key_file": known_hosts}
