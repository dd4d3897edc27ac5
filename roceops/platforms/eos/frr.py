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

from roceops.platforms.frr_conf import BgpReader, TranslationError, bgpd_conf

EOS_DEFAULT_MAXIMUM_PATHS = 1


def frr_bgpd_conf(hostname: str, config_text: str) -> str:
    """``bgpd.conf`` for one EOS switch from its rendered ``config.eos``."""
    bgp = BgpReader(maximum_paths=EOS_DEFAULT_MAXIMUM_PATHS)
    inside = False
    for raw in config_text.splitlines():
        if raw.startswith("router bgp "):
            bgp.asn, inside = int(raw.split()[2]), True
            continue
        if inside and raw and not raw[0].isspace():
            inside = False  # "!" or the next top-level section
        if not inside:
            continue
        line = raw.strip()
        if line.startswith("router-id "):
            bgp.router_id = line.split()[1]
        elif line.startswith("maximum-paths "):
            bgp.maximum_paths = int(line.split()[1])
        elif line == "bgp bestpath as-path multipath-relax":
            bgp.multipath_relax = True
        elif line.startswith("network "):
            bgp.networks.append(line.split()[1])
        else:
            bgp.neighbor(line)
    if bgp.asn is None:
        raise TranslationError(f"{hostname}: no 'router bgp' section in config.eos")
    return bgpd_conf(hostname, bgp.bgp(bgp.asn, "Arista EOS router bgp translation by roceops"))
