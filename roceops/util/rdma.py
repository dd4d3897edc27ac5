"""RDMA facts that hold for any RoCEv2 host, whatever its NIC driver. Pure."""

from __future__ import annotations


def ipv4_gid(ip: str) -> str:
    """The RoCE v2 GID of an IPv4 address (its IPv4-mapped IPv6 address) as the kernel's sysfs ``gids`` files
    and ``show_gids`` print it (eight groups of four hex digits).

    >>> ipv4_gid("10.128.0.1")
    '0000:0000:0000:0000:0000:ffff:0a80:0001'
    """
    octets = [int(o) for o in ip.split(".")]
    return f"0000:0000:0000:0000:0000:ffff:{octets[0]:02x}{octets[1]:02x}:{octets[2]:02x}{octets[3]:02x}"


__all__ = ["ipv4_gid"]
