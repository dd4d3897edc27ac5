"""The FRR equivalent of the rendered EOS ``router bgp`` section, as FRR ``bgpd.conf``.

EOS semantics carried over: IPv4 unicast is active for every neighbour by default (FRR's
``bgp default ipv4-unicast``); EOS has no RFC 8212 default-deny, so ``no bgp ebgp-requires-policy``;
``maximum-paths N [ecmp M]`` -> FRR ``maximum-paths N``, and without the statement EOS installs a single
path ("maximum-paths ... default 1", Arista EOS User Manual, BGP commands, maximum-paths), hence
``maximum-paths 1``. ``network P`` under ``router bgp`` -> ``network P`` in ``address-family ipv4 unicast``.
EOS multipath over different AS paths needs ``bgp bestpath as-path multipath-relax``, which we do not
render; it is not translated either (unconfirmed whether recent EOS defaults it on).
"""

from __future__ import annotations

import re

from roceops.platforms.frr_conf import FrrBgp, FrrNeighbor, TranslationError, bgpd_conf

EOS_DEFAULT_MAXIMUM_PATHS = 1
_NEIGHBOR = re.compile(r"neighbor (\S+) (remote-as|description) (.+)")


def frr_bgpd_conf(hostname: str, config_text: str) -> str:
    """``bgpd.conf`` for one EOS switch from its rendered ``config.eos``."""
    asn: int | None = None
    router_id = ""
    relax = False
    max_paths = EOS_DEFAULT_MAXIMUM_PATHS
    remote: dict[str, int] = {}
    desc: dict[str, str] = {}
    networks: list[str] = []
    inside = False
    for raw in config_text.splitlines():
        if raw.startswith("router bgp "):
            asn, inside = int(raw.split()[2]), True
            continue
        if inside and raw and not raw[0].isspace():
            inside = False  # "!" or the next top-level section
        if not inside:
            continue
        line = raw.strip()
        if line.startswith("router-id "):
            router_id = line.split()[1]
        elif line.startswith("maximum-paths "):
            max_paths = int(line.split()[1])
        elif line == "bgp bestpath as-path multipath-relax":
            relax = True
        elif line.startswith("network "):
            networks.append(line.split()[1])
        elif (m := _NEIGHBOR.fullmatch(line)) is not None:
            if m.group(2) == "remote-as":
                remote[m.group(1)] = int(m.group(3))
            else:
                desc[m.group(1)] = m.group(3)
    if asn is None:
        raise TranslationError(f"{hostname}: no 'router bgp' section in config.eos")
    neighbors = tuple(FrrNeighbor(ip=ip, remote_as=a, description=desc.get(ip, "")) for ip, a in remote.items())
    return bgpd_conf(hostname, FrrBgp(
        asn=asn, router_id=router_id, neighbors=neighbors, networks=tuple(dict.fromkeys(networks)),
        maximum_paths=max_paths, multipath_relax=relax, ebgp_requires_policy=False,
        comments=("Arista EOS router bgp translation by roceops",)))
