"""FRR ``bgpd.conf`` text from a small vendor-neutral BGP model, shared by the platform translations.

Each platform room turns its *rendered* config (CONFIG_DB, NVUE commands, EOS ``router bgp``) into a
:class:`FrrBgp` the way that NOS's routing stack would (``roceops/platforms/<p>/frr.py``); this module
only lays the result out in FRR's own syntax (FRR 8.x ``show running-config`` order), so that
``roceops verify routing`` can run it in a network namespace. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class TranslationError(ValueError):
    """The rendered config does not give FRR a BGP configuration (names device and reason)."""


@dataclass(frozen=True)
class FrrNeighbor:
    ip: str
    remote_as: int
    description: str = ""
    update_source: str | None = None
    route_map_in: str | None = None
    route_map_out: str | None = None


@dataclass(frozen=True)
class FrrBgp:
    asn: int
    router_id: str
    neighbors: tuple[FrrNeighbor, ...]
    networks: tuple[str, ...]
    maximum_paths: int | None  # None: no statement, FRR's default (its build's MULTIPATH_NUM)
    multipath_relax: bool = False
    default_ipv4_unicast: bool = True  # False: "no bgp default ipv4-unicast" + explicit activate
    ebgp_requires_policy: bool = True  # FRR's traditional-profile default (RFC 8212)
    redistribute: tuple[str, ...] = ()
    permit_route_maps: tuple[str, ...] = ()  # route-map NAME permit 10 (match all)
    comments: tuple[str, ...] = field(default=())


def bgpd_conf(hostname: str, bgp: FrrBgp) -> str:
    """The ``bgpd.conf`` FRR reads at start (``-f``)."""
    lines = [f"! {c}" for c in bgp.comments]
    lines += [f"hostname {hostname}", "!"]
    for name in bgp.permit_route_maps:
        lines += [f"route-map {name} permit 10", "exit", "!"]
    lines += [f"router bgp {bgp.asn}", f" bgp router-id {bgp.router_id}"]
    if not bgp.ebgp_requires_policy:
        lines.append(" no bgp ebgp-requires-policy")
    if not bgp.default_ipv4_unicast:
        lines.append(" no bgp default ipv4-unicast")
    if bgp.multipath_relax:
        lines.append(" bgp bestpath as-path multipath-relax")
    for n in bgp.neighbors:
        lines.append(f" neighbor {n.ip} remote-as {n.remote_as}")
        if n.description:
            lines.append(f" neighbor {n.ip} description {n.description}")
        if n.update_source:
            lines.append(f" neighbor {n.ip} update-source {n.update_source}")
    lines += [" !", " address-family ipv4 unicast"]
    lines += [f"  network {p}" for p in bgp.networks]
    lines += [f"  redistribute {r}" for r in bgp.redistribute]
    for n in bgp.neighbors:
        if not bgp.default_ipv4_unicast:
            lines.append(f"  neighbor {n.ip} activate")
        if n.route_map_in:
            lines.append(f"  neighbor {n.ip} route-map {n.route_map_in} in")
        if n.route_map_out:
            lines.append(f"  neighbor {n.ip} route-map {n.route_map_out} out")
    if bgp.maximum_paths is not None:
        lines.append(f"  maximum-paths {bgp.maximum_paths}")
    lines += [" exit-address-family", "exit", "!"]
    return "\n".join(lines) + "\n"


_NEIGHBOR = re.compile(r"neighbor (\S+) (remote-as|description) (.+)")


@dataclass
class BgpReader:
    """What a room's translation collects while it reads its rendered config: the neighbour lines have the same
    ``neighbor X remote-as N`` / ``neighbor X description D`` shape on NVUE and EOS; the rest is the room's."""

    maximum_paths: int | None
    asn: int | None = None
    router_id: str = ""
    multipath_relax: bool = False
    remote: dict[str, int] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)
    networks: list[str] = field(default_factory=list)

    def neighbor(self, text: str) -> bool:
        """Take ``text`` if it is a neighbour's remote-as or description line."""
        m = _NEIGHBOR.fullmatch(text)
        if m is None:
            return False
        if m.group(2) == "remote-as":
            self.remote[m.group(1)] = int(m.group(3))
        else:
            self.descriptions[m.group(1)] = m.group(3)
        return True

    def bgp(self, asn: int, comment: str) -> FrrBgp:
        """The collected settings as FRR runs them on a NOS without RFC 8212's default deny."""
        neighbors = tuple(FrrNeighbor(ip=ip, remote_as=a, description=self.descriptions.get(ip, ""))
                          for ip, a in self.remote.items())
        return FrrBgp(asn=asn, router_id=self.router_id, neighbors=neighbors,
                      networks=tuple(dict.fromkeys(self.networks)), maximum_paths=self.maximum_paths,
                      multipath_relax=self.multipath_relax, ebgp_requires_policy=False, comments=(comment,))
