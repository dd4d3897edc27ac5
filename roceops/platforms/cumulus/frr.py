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

from roceops.platforms.frr_conf import BgpReader, TranslationError, bgpd_conf

NVUE_DEFAULT_MULTIPATHS = 64
_BASE = "nv set vrf default router bgp "


def frr_bgpd_conf(hostname: str, nvue_commands: str) -> str:
    """``bgpd.conf`` for one Cumulus switch from its rendered ``nvue.commands``."""
    bgp = BgpReader(maximum_paths=NVUE_DEFAULT_MULTIPATHS)
    for line in (raw.strip() for raw in nvue_commands.splitlines()):
        if line.startswith("nv set router bgp autonomous-system "):
            bgp.asn = int(line.rsplit(" ", 1)[1])
        elif line.startswith("nv set router bgp router-id "):
            bgp.router_id = line.rsplit(" ", 1)[1]
        elif not line.startswith(_BASE):
            continue
        rest = line.removeprefix(_BASE)
        if rest in ("path-selection multipath aspath-ignore on", "path-selection multipath aspath-ignore enabled"):
            bgp.multipath_relax = True
        elif rest.startswith("address-family ipv4-unicast multipaths ebgp "):
            bgp.maximum_paths = int(rest.rsplit(" ", 1)[1])
        elif rest.startswith("address-family ipv4-unicast network "):
            bgp.networks.append(rest.rsplit(" ", 1)[1])
        else:
            bgp.neighbor(rest)
    if bgp.asn is None:
        raise TranslationError(f"{hostname}: no 'nv set router bgp autonomous-system' in nvue.commands")
    return bgpd_conf(hostname, bgp.bgp(bgp.asn, "Cumulus NVUE frr.conf translation by roceops (datacenter defaults)"))
