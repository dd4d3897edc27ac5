"""roceops' EOS render context as Arista AVD ``eos_cli_config_gen`` structured config (pyavd 6.4 schema), shared by
the AVD diff test (tests/platforms/eos/test_eos_avd_diff.py) and bench/eos_vs_pyavd.py. Needs no pyavd itself."""

from __future__ import annotations

from typing import Any

PROFILE = "ROCE"  # the one qos profile every interface's service-profile names


def structured_config(ctx: dict[str, Any]) -> dict[str, Any]:
    """The render context as AVD eos_cli_config_gen structured config (pyavd 6.4 schema): per-interface QoS as one
    ``qos profile`` applied with ``service-profile``, the way AVD models tx-queues and the PFC watchdog."""
    queues = []
    for q in ctx["tx_queues"]:
        d: dict[str, Any] = {"id": q["id"], "priority": q["priority"]}
        if q["bandwidth_percent"] is not None:
            d["bandwidth_percent"] = q["bandwidth_percent"]
        if q["ecn"]:
            d["random_detect"] = {"ecn": {"count": True, "threshold": {
                "units": q["ecn"]["unit"], "min": q["ecn"]["min"], "max": q["ecn"]["max"],
                "max_probability": q["ecn"]["probability"]}}}
        queues.append(d)
    first = ctx["interfaces"][0]
    pfc: dict[str, Any] = {"enabled": True, "priorities": [{"priority": p, "no_drop": True}
                                                          for p in first.pfc_priorities]}
    if first.pfc_watchdog:
        pfc["watchdog"] = {"enabled": True}
    profile = {"name": PROFILE, "trust": first.trust, ctx["tx_queue_keyword"].replace("-", "_") + "s": queues,
               "priority_flow_control": pfc}
    interfaces = [{k: v for k, v in {
        "name": i.name, "description": i.description or None, "shutdown": i.shutdown, "mtu": i.mtu, "speed": i.speed,
        "switchport": {"enabled": False}, "ip_address": i.address, "service_profile": PROFILE}.items() if v is not None}
        for i in ctx["interfaces"]]
    bgp = ctx["bgp"]
    out: dict[str, Any] = {
        "hostname": ctx["hostname"], "service_routing_protocols_model": "multi-agent", "ip_routing": True,
        "ethernet_interfaces": interfaces, "qos_profiles": [profile],
        "loopback_interfaces": [{"name": ctx["loopback"]["name"], "ip_address": ctx["loopback"]["address"]}],
        "qos": {"map": {"dscp": [f"{' '.join(map(str, d))} to traffic-class {tc}" for tc, d in ctx["dscp_maps"]],
                        "traffic_class": [f"{tc} to tx-queue {q}" for tc, q in ctx["tc_queue_maps"]]}},
        "router_bgp": {"as": str(bgp["asn"]), "router_id": bgp["router_id"],
                       "maximum_paths": {"paths": bgp["maximum_paths"], "ecmp": bgp["maximum_paths"]},
                       "neighbors": [{"ip_address": n.ip, "remote_as": str(n.remote_as),
                                      "description": n.description} for n in bgp["neighbors"]],
                       "address_family_ipv4": {"networks": [{"prefix": p} for p in bgp["networks"]]}},
    }
    if ctx["watchdog"]:
        w = ctx["watchdog"]
        out["priority_flow_control"] = {"watchdog": {"action": w["action"], "timeout": w["timeout"],
                                                     "polling_interval": w["polling_interval"],
                                                     "recovery_time": w["recovery_time"]}}
    return out
