"""Keep secrets out of every message, log line, report and journal entry."""

from __future__ import annotations

import os
import re

SECRET_ENV = ("ROCEOPS_PASSWORD", "ROCEOPS_LAB_PASSWORD", "ROCEOPS_ENABLE_SECRET")
_PATTERNS = [re.compile(r"(?i)(password|secret|passphrase)(\s*[=:]\s*)\S+")]


def redact(text: str) -> str:
    """Replace known secret values (from the environment) and ``password=...`` shapes with ``***``.

    >>> os.environ["ROCEOPS_PASSWORD"] = "hunter2"
    >>> redact("auth failed for admin/hunter2; password: hunter2")
    'auth failed for admin/***; password: ***'
    """
    for var in SECRET_ENV:
        value = os.environ.get(var)
        if value and len(value) >= 3:
            text = text.replace(value, "***")
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)
    return text


def reason(exc: BaseException) -> str:
    """What went wrong, in one redacted line: the exception's first line, and the next one when the first only
    announces it (Netmiko's "A paramiko SSHException occurred during connection creation:" is followed by
    the reason).

    >>> reason(ValueError("\\nA paramiko SSHException occurred:\\n\\nHost key does not match\\n"))
    'A paramiko SSHException occurred: Host key does not match'
    """
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return redact(" ".join(lines[:2]) if lines[0].endswith(":") and len(lines) > 1 else lines[0])
