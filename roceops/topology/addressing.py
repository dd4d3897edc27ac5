"""Deterministic address allocation from the intent's pools (integer arithmetic, no I/O)."""

from __future__ import annotations

import ipaddress
import math

from roceops.util.picklable import PicklableError


class PoolExhausted(PicklableError, ValueError):
    def __init__(self, pool_name: str, network: str, needed: int) -> None:
        super().__init__(f"addressing.{pool_name} {network} is too small: {needed} addresses needed")
        self.path = f"addressing.{pool_name}"


class Pool:
    """Hands out consecutive blocks of ``2**(32-prefix)`` addresses from a network."""

    def __init__(self, name: str, network: str, skip_first: int = 0) -> None:
        self.name = name
        self.network = ipaddress.IPv4Network(network)
        self._next = int(self.network.network_address) + skip_first
        self._end = int(self.network.broadcast_address) + 1

    def take(self, size: int = 1) -> int:
        start = self._next
        if start % size:
            start += size - start % size
        if start + size > self._end:
            raise PoolExhausted(self.name, str(self.network), self.used + size)
        self._next = start + size
        return start

    @property
    def used(self) -> int:
        return self._next - int(self.network.network_address)


def ip(value: int) -> str:
    """Dotted quad of an integer address (hot path: no ipaddress objects).

    >>> ip(167772161)
    '10.0.0.1'
    """
    return f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.{value & 255}"


def split(network: str, parts: int, pool_name: str) -> list[str]:
    """Split ``network`` into ``parts`` equal subnets (rounded up to a power of two)."""
    net = ipaddress.IPv4Network(network)
    extra = math.ceil(math.log2(parts)) if parts > 1 else 0
    if net.prefixlen + extra > 31:
        raise PoolExhausted(pool_name, network, parts * 2)
    return [str(s) for s in list(net.subnets(prefixlen_diff=extra))[:parts]]
