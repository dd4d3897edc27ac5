"""What NVUE writes to ``/etc/frr/frr.conf`` for our ``nv set router bgp`` / ``nv set vrf default router bgp``
commands, as FRR ``bgpd.conf``.

Cumulus Linux runs FRR with the ``datacenter`` defaults profile, where ``bgp ebgp-requires-policy`` is off
(FRR docs, "bgp ebgp-requires-policy": enabled by default only in the traditional profile); NVUE itself
writes ``bgp bestpath as-path multipath-relax`` for ``path-selection multipath aspath-ignore on`` and
``maximum-paths N`` for ``address-family ipv4-unicast multipaths ebgp N`` (default 64 when unset:
docs.nvidia.com/networking-ethernet-software/cumulus-linux-515/Layer-3/Border-Gateway-Protocol-BGP/
Optional-BGP-Configuration/ "BGP ECMP ... maximum-paths ... 64 by default"), ``neighbor X remote-as N``
(numbered), ``network P`` under ``address-family ipv4 unicast``, which NVUE enables for every numbered
neighbour. Unconfirmed: NVUE's extra timers/capability lines (not needed for routing, left out).
"""

from __future__ import annotations

import re

from roceops.platforms.frr_conf import FrrBgp, FrrNeighbor, TranslationError, bgpd_conf

NVUE_DEFAULT_MULTIPATHS = 64
_BASE = "nv set vrf default router bgp "
_NEIGHBOR = re.compile(r"neighbor (\S+) (remote-as|description) (.+)")


def frr_bgpd_conf(hostname: str, nvue_commands: str) -> str:
    """``bgpd.conf`` for one Cumulus switch from its rendered ``nvue.commands``."""
    asn: int | None = None
    router_id = ""
    relax = False
    max_paths = NVUE_DEFAULT_MULTIPATHS
    remote: dict[str, int] = {}
    desc: dict[str, str] = {}
    networks: list[str] = []
    for line in (raw.strip() for raw in nvue_commands.splitlines()):
        if line.startswith("nv set router bgp autonomous-system "):
            asn = int(line.rsplit(" ", 1)[1])
        elif line.startswith("nv set router bgp router-id "):
            router_id = line.rsplit(" ", 1)[1]
        elif not line.startswith(_BASE):
            continue
        rest = line.removeprefix(_BASE)
        if rest == "path-selection multipath aspath-ignore on":
            relax = True
        elif rest.startswith("address-family ipv4-unicast multipaths ebgp "):
            max_paths = int(rest.rsplit(" ", 1)[1])
        elif rest.startswith("address-family ipv4-unicast network "):
            networks.append(rest.rsplit(" ", 1)[1])
        elif (m := _NEIGHBOR.fullmatch(rest)) is not None:
            if m.group(2) == "remote-as":
                remote[m.group(1)] = int(m.group(3))
            else:
                desc[m.group(1)] = m.group(3)
    if asn is None:
        raise TranslationError(f"{hostname}: no 'nv set router bgp autonomous-system' in nvue.commands")
    neighbors = tuple(FrrNeighbor(ip=ip, remote_as=a, description=desc.get(ip, "")) for ip, a in remote.items())
    return bgpd_conf(hostname, FrrBgp(
        asn=asn, router_id=router_id, neighbors=neighbors, networks=tuple(dict.fromkeys(networks)),
        maximum_paths=max_paths, multipath_relax=relax, ebgp_requires_policy=False,
        comments=("Cumulus NVUE frr.conf translation by roceops (datacenter defaults)",)))
