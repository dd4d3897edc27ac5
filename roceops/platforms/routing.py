"""What a room gives ``roceops verify routing`` (the routing plane built in network namespaces). Pure types.

A switch room translates one of its rendered files to an FRR ``bgpd.conf``; a host room turns its rendered
files into the ``ip`` commands and sysctls its namespace applies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class FrrTranslation:
    """The rendered file a switch's BGP is read from (a RenderOutput filename) and its translation."""

    source: str
    bgpd_conf: Callable[[str, str], str]  # (hostname, file text) -> FRR bgpd.conf; raises TranslationError


@dataclass(frozen=True)
class HostRouting:
    nics: dict[str, tuple[int | None, list[str]]]  # netdev -> (mtu, addresses)
    ip_commands: list[str]  # for ``ip -batch``: addresses, MTUs, routes, rules
    sysctls: dict[str, str]


HostRoutingFromFiles = Callable[[Mapping[str, str]], HostRouting]  # rendered files -> the host's routing
