"""IP addresses of an EOS running-config as integers: BGP neighbours sorted and matched to the interface whose
network holds them (pure).

Dotted quads (every address roceops configures) are read directly; anything else goes through :mod:`ipaddress`,
so the results and errors are those of ``ipaddress.ip_address`` / ``ipaddress.ip_interface``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from roceops.util.sorting import quad_bytes

__all__ = ["SubnetIndex", "network_key"]

_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # 0..255 without leading zeros, as ipaddress wants
_V4 = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")
_V4_INTERFACE = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}/([0-9]+)")


def _v4(m: re.Match[str]) -> int:
    a, b, c, d = (int(x) for x in m.groups()[:4])
    return (a << 24) | (b << 16) | (c << 8) | d


def network_key(prefix: str) -> tuple[int, int, int]:
    """(version, netmask, network) of ``ipaddress.ip_interface(prefix).network`` (same ValueError), a dotted quad
    with a prefix length read directly (:func:`~roceops.util.sorting.quad_bytes`)."""
    address, slash, length = prefix.partition("/")
    if slash and length.isascii() and length.isdigit() and int(length) <= 32:
        packed = quad_bytes(address)
        if packed is not None:  # the canonical quads _V4_INTERFACE matches
            mask = (0xFFFFFFFF << (32 - int(length))) & 0xFFFFFFFF
            return 4, mask, int.from_bytes(packed, "big") & mask
    if (m := _V4_INTERFACE.fullmatch(prefix)) and int(m.group(5)) <= 32:
        mask = (0xFFFFFFFF << (32 - int(m.group(5)))) & 0xFFFFFFFF
        return 4, mask, _v4(m) & mask
    net = ipaddress.ip_interface(prefix).network
    return net.version, int(net.netmask), int(net.network_address)


class SubnetIndex:
    """The first (in the given order) of several named interface networks that contains an address: what
    ``next((n for net, n in subnets if addr in net), None)`` answers, by one dict lookup per distinct
    (IP version, netmask) instead of a containment test per network."""

    def __init__(self, subnets: Iterable[tuple[tuple[int, int, int], str]]) -> None:
        """``subnets``: (:func:`network_key`, name) pairs."""
        self.groups: dict[tuple[int, int], dict[int, tuple[int, str]]] = {}
        for i, ((version, mask, network), name) in enumerate(subnets):
            self.groups.setdefault((version, mask), {}).setdefault(network, (i, name))

    def find(self, address: tuple[int, int]) -> str | None:
        """The name for an address given as :func:`roceops.util.sorting.ip_key`."""
        best: tuple[int, str] | None = None
        for (version, mask), group in self.groups.items():
            if version == address[0]:
                hit = group.get(address[1] & mask)
                if hit is not None and (best is None or hit[0] < best[0]):
                    best = hit
        return best[1] if best is not None else None
