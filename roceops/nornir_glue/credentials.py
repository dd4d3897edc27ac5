"""Credentials come from the environment, the SSH agent or key files — never from the fabric file.

ROCEOPS_USERNAME (default ``admin``), ROCEOPS_PASSWORD (optional), ROCEOPS_SSH_KEY (optional key file).
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

    def __repr__(self) -> str:  # never show the password, even in debug output
        return f"Credentials(username={self.username!r}, password={'***' if self.password else None}, " \
               f"key_file={self.key_file!r})"


def from_environment() -> Credentials:
    return Credentials(
        username=os.environ.get("ROCEOPS_USERNAME", "admin"),
        password=os.environ.get("ROCEOPS_PASSWORD") or None,
        key_file=os.environ.get("ROCEOPS_SSH_KEY") or None,
    )
