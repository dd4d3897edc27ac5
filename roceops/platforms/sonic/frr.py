"""What SONiC's routing container (docker-fpm-frr) makes of our CONFIG_DB, as FRR ``bgpd.conf``.

Sources (sonic-net/sonic-buildimage @ 086b03bd, notes in ``../shared/reference/hardware/sonic/frr-notes.md``):

* ``frr_mgmt_framework_config == "true"``: frrcfgd's templates
  (src/sonic-frr-mgmt-framework/templates/bgpd/bgpd.conf.db.j2, .nbr_or_peer.j2, .nbr_af.j2,
  .addr_family.j2, .route_map.j2) read BGP_GLOBALS|<vrf> (``local_asn`` required, else nothing),
  BGP_GLOBALS_AF (``max_ebgp_paths`` -> ``maximum-paths``; absent -> no statement), BGP_GLOBALS_AF_NETWORK,
  ROUTE_REDISTRIBUTE, BGP_NEIGHBOR|<vrf>|<ip> (one-part legacy keys are skipped, frrcfgd.py 2648) and
  BGP_NEIGHBOR_AF. ``no bgp default ipv4-unicast`` unless ``default_ipv4_unicast`` is true; never
  ``no bgp ebgp-requires-policy`` (FRR's RFC 8212 default stays on).
* otherwise, in ``separated``/``unified`` mode, bgpcfgd and dockers/docker-fpm-frr/frr/bgpd/bgpd.main.conf.j2:
  ``no bgp ebgp-requires-policy`` (line 109), ``no bgp default ipv4-unicast``, multipath-relax (constants),
  ``network <Loopback0>/32`` only (159-162: routed-port subnets are *not* announced), ``maximum-paths 64``
  (214), DEVICE_METADATA ``bgp_asn``/``bgp_router_id``, BGP_NEIGHBOR keyed by IP, activated through
  the PEER_V4 peer-group whose route-maps permit all (approximated here by activate + no policy).
* ``split``/``split-unified``: FRR config is not generated from CONFIG_DB (TranslationError).
"""

from __future__ import annotations

import json
from typing import Any

from roceops.platforms.frr_conf import FrrBgp, FrrNeighbor, TranslationError, bgpd_conf

CLASSIC_MAXIMUM_PATHS = 64  # bgpd.main.conf.j2:214, constants.bgp.maximum_paths default(64)
VRF = "default"
AFI_SAFI = "ipv4_unicast"


def frr_bgpd_conf(hostname: str, config_db_text: str) -> str:
    """``bgpd.conf`` for one SONiC switch from its rendered ``config_db.json``."""
    try:
        db: dict[str, Any] = json.loads(config_db_text)
    except json.JSONDecodeError as exc:
        raise TranslationError(f"{hostname}: config_db.json is not JSON: {exc.msg}") from None
    meta = db.get("DEVICE_METADATA", {}).get("localhost", {})
    mode = meta.get("docker_routing_config_mode", "separated")  # frrcfgd.py 2167-2170 falls back to separated
    if mode in ("split", "split-unified"):
        raise TranslationError(f"{hostname}: docker_routing_config_mode {mode}: FRR config is not generated "
                               "from CONFIG_DB")
    if meta.get("frr_mgmt_framework_config") == "true":
        return bgpd_conf(hostname, _frrcfgd(hostname, db))
    return bgpd_conf(hostname, _classic(hostname, db, meta))


def _frrcfgd(hostname: str, db: dict[str, Any]) -> FrrBgp:
    inst = db.get("BGP_GLOBALS", {}).get(VRF, {})
    if "local_asn" not in inst:
        raise TranslationError(f"{hostname}: frrcfgd renders no BGP instance without BGP_GLOBALS|{VRF} local_asn")
    af = db.get("BGP_GLOBALS_AF", {}).get(f"{VRF}|{AFI_SAFI}", {})
    nbr_af = db.get("BGP_NEIGHBOR_AF", {})
    neighbors = []
    for key, f in sorted(db.get("BGP_NEIGHBOR", {}).items()):
        parts = key.split("|")
        if len(parts) != 2 or parts[0] != VRF:
            continue  # frrcfgd skips legacy one-part keys; other VRFs are not ours
        ip = parts[1]
        a = nbr_af.get(f"{VRF}|{ip}|{AFI_SAFI}", {})
        if a.get("admin_status") not in ("up", "true"):
            continue  # not activated in IPv4 unicast: no routes exchanged (nbr_af.j2)
        neighbors.append(FrrNeighbor(ip=ip, remote_as=int(f["asn"]), description=f.get("name", ""),
                                     update_source=f.get("local_addr"),
                                     route_map_in=_first(a.get("route_map_in")),
                                     route_map_out=_first(a.get("route_map_out"))))
    prefix = f"{VRF}|{AFI_SAFI}|"
    networks = tuple(k.removeprefix(prefix) for k in db.get("BGP_GLOBALS_AF_NETWORK", {}) if k.startswith(prefix))
    redistribute = tuple(k.split("|")[1] for k in db.get("ROUTE_REDISTRIBUTE", {})
                         if k.startswith(f"{VRF}|") and k.endswith("|bgp|ipv4"))
    if af.get("redistribute_connected") == "true":
        redistribute += ("connected",)
    permits = tuple(sorted({k.split("|")[0] for k, v in db.get("ROUTE_MAP", {}).items()
                            if v.get("route_operation") == "permit" and not (set(v) - {"route_operation"})}))
    max_paths = af.get("max_ebgp_paths")
    return FrrBgp(asn=int(inst["local_asn"]), router_id=inst.get("router_id", ""), neighbors=tuple(neighbors),
                  networks=networks, maximum_paths=int(max_paths) if max_paths is not None else None,
                  multipath_relax=inst.get("load_balance_mp_relax") == "true",
                  default_ipv4_unicast=inst.get("default_ipv4_unicast") == "true", ebgp_requires_policy=True,
                  redistribute=redistribute, permit_route_maps=permits,
                  comments=("SONiC frrcfgd (frr_mgmt_framework_config) translation by roceops",))


def _classic(hostname: str, db: dict[str, Any], meta: dict[str, Any]) -> FrrBgp:
    if "bgp_asn" not in meta:
        raise TranslationError(f"{hostname}: bgpcfgd needs DEVICE_METADATA|localhost bgp_asn")
    neighbors = tuple(
        FrrNeighbor(ip=key.split("|")[-1], remote_as=int(f["asn"]), description=f.get("name", ""))
        for key, f in sorted(db.get("BGP_NEIGHBOR", {}).items()) if f.get("admin_status", "up") == "up")
    loopbacks = [k.split("|", 1)[1] for k in db.get("LOOPBACK_INTERFACE", {})
                 if k.startswith("Loopback0|") and "." in k]
    networks = tuple(f"{lo.split('/')[0]}/32" for lo in loopbacks[:1])
    networks += tuple(k.split("|", 1)[1] for k in db.get("VLAN_INTERFACE", {}) if "|" in k and "." in k)
    return FrrBgp(asn=int(meta["bgp_asn"]), router_id=meta.get("bgp_router_id", ""), neighbors=neighbors,
                  networks=networks, maximum_paths=CLASSIC_MAXIMUM_PATHS, multipath_relax=True,
                  default_ipv4_unicast=False, ebgp_requires_policy=False,
                  comments=("SONiC bgpcfgd (bgpd.main.conf.j2) translation by roceops",))


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        return str(value[0]) if value else None
    return str(value).split(",")[0] if value else None
