"""Sort keys and id ranges shared by every platform and the lab: port names, IP addresses, ``0-2,4`` id lists.

Pure and cheap (they sit on render, parse and lab-answer paths): dotted quads are read without
:mod:`ipaddress`, whose checks cost more than the sort itself.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from functools import lru_cache
from socket import inet_aton, inet_ntoa
from typing import Any

__all__ = ["id_ranges", "id_set", "ip_key", "ip_sort_key", "natsorted", "natural_key", "port_key", "prefix_key",
           "quad_bytes"]

_DIGITS = re.compile(r"(\d+)")
_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # 0..255 without leading zeros, as ipaddress wants
_DOTTED_QUAD = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")
INVALID_IP_VERSION = 9  # ip_sort_key puts what is not an address after every address


def quad_bytes(text: str) -> bytes | None:
    """The four bytes of ``text`` when it is a canonical dotted quad (``inet_aton`` reads it and ``inet_ntoa`` gives
    the same text back: no ``1.2.3``, ``010.0.0.1`` or ``0x1.2.3.4``), else None. A C-level fast path for the
    sort keys of the IPv4 addresses most outputs and intents hold.

    >>> quad_bytes("10.0.0.1"), quad_bytes("010.0.0.1"), quad_bytes("1.2.3"), quad_bytes("fd00::1")
    (b'\\n\\x00\\x00\\x01', None, None, None)
    """
    try:
        packed = inet_aton(text)
    except (OSError, ValueError):  # not IPv4 (or text inet_aton cannot take)
        return None
    return packed if inet_ntoa(packed) == text else None


def natural_key(text: str) -> tuple[Any, ...]:
    """natsort's default key: digit runs compare as numbers (text and numbers alternate, so keys always compare).

    >>> sorted(["Ethernet16", "Ethernet8", "Ethernet0"], key=natural_key)
    ['Ethernet0', 'Ethernet8', 'Ethernet16']
    >>> sorted(["swp10", "swp2s1", "swp2", "Ethernet1/10", "Ethernet1/2"], key=natural_key)
    ['Ethernet1/2', 'Ethernet1/10', 'swp2', 'swp2s1', 'swp10']
    """
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(text))


port_key = lru_cache(maxsize=1 << 14)(natural_key)  # natural_key remembered: every switch repeats its port names


def natsorted(items: Iterable[str]) -> list[str]:
    """``items`` in natural order (:func:`natural_key`).

    >>> natsorted(["Ethernet8", "Ethernet16", "Ethernet0"])
    ['Ethernet0', 'Ethernet8', 'Ethernet16']
    """
    return sorted(items, key=port_key)


def ip_key(ip: str) -> tuple[int, int]:
    """(version, integer value) of an address: numeric order, IPv4 before IPv6; ValueError if not an address.

    >>> sorted(["10.0.0.10", "10.0.0.9", "fd00::1", "10.0.1.0"], key=ip_key)
    ['10.0.0.9', '10.0.0.10', '10.0.1.0', 'fd00::1']
    >>> ip_key("10.0.0.256")
    Traceback (most recent call last):
    ...
    ValueError: '10.0.0.256' does not appear to be an IPv4 or IPv6 address
    """
    if m := _DOTTED_QUAD.fullmatch(ip):
        a, b, c, d = (int(octet) for octet in m.groups())
        return 4, (a << 24) | (b << 16) | (c << 8) | d
    addr = ipaddress.ip_address(ip)
    return addr.version, int(addr)


def ip_sort_key(ip: str) -> tuple[int, int, str]:
    """:func:`ip_key` for text that may not be an address (device output): those sort last, by their text.

    >>> sorted(["swp1", "10.0.0.2", "10.0.0.1"], key=ip_sort_key)
    ['10.0.0.1', '10.0.0.2', 'swp1']
    """
    try:
        version, value = ip_key(ip)
    except ValueError:
        return INVALID_IP_VERSION, 0, ip
    return version, value, ip


def prefix_key(prefix: str) -> tuple[int, int, int]:
    """(version, address, length) of an ``address/len`` prefix, in numeric order; no ``ipaddress.ip_network``
    object (Python 3.11's /31 and /32 networks are reference cycles). ValueError if not a prefix.

    >>> sorted(["10.0.0.8/31", "10.0.0.10/32", "10.0.0.8/30", "fd00::/64"], key=prefix_key)
    ['10.0.0.8/30', '10.0.0.8/31', '10.0.0.10/32', 'fd00::/64']
    """
    address, _, length = prefix.partition("/")
    version, value = ip_key(address)
    return version, value, int(length) if length else (32 if version == 4 else 128)


def id_ranges(ids: Iterable[int]) -> list[str]:
    """Ids compressed into runs of consecutive values (``0-2``), in order; the inverse of :func:`id_set`.

    >>> id_ranges([0, 1, 2, 4, 5, 6, 7])
    ['0-2', '4-7']
    >>> id_ranges([3]), id_ranges([])
    (['3'], [])
    """
    out: list[str] = []
    values = sorted(set(ids))
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
        i = j + 1
    return out


def id_set(spec: str) -> list[int]:
    """A ``0-2`` / ``3,4`` / ``5`` id list as its ids, in the order written; ValueError if malformed.

    >>> id_set("0-2"), id_set("3,4"), id_set("5"), id_set("0-1,6")
    ([0, 1, 2], [3, 4], [5], [0, 1, 6])
    """
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        low, dash, high = part.partition("-")
        out.extend(range(int(low), int(high) + 1) if dash else (int(low),))
    return out
