"""Sort keys for port names and addresses, shared by every platform and the lab."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """natsort's default key: digit runs compare as numbers (strings and ints alternate, so keys always compare).

    >>> sorted(["Ethernet16", "Ethernet8", "Ethernet0"], key=natural_key)
    ['Ethernet0', 'Ethernet8', 'Ethernet16']
    >>> sorted(["swp10", "swp2s1", "swp2"], key=natural_key)
    ['swp2', 'swp2s1', 'swp10']
    """
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(text))


def natsorted(items: Iterable[str]) -> list[str]:
    """``items`` in :func:`natural_key` order.

    >>> natsorted(["Ethernet1/10", "Ethernet1/2"])
    ['Ethernet1/2', 'Ethernet1/10']
    """
    return sorted(items, key=natural_key)
