"""Every rule is caught by a fabric that breaks it and nothing else (exact set of finding ids)."""

from __future__ import annotations

from typing import Any

import pytest
from lint_helpers import DROP, broken, run

TC = "qos.traffic_classes"
ROCE, CNP, DEFAULT = f"{TC}[0]", f"{TC}[1]", f"{TC}[2]"
ECN = {"min": "150KB", "max": "1500KB"}


def _cls(name: str, dscp: list[int], priority: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "dscp": dscp, "priority": priority,
            "scheduling": extra.pop("scheduling", {"mode": "dwrr", "weight": 10}), **extra}


# (rule id, edits, expected ids when the break implies companions, path of the rule's first finding)
CASES: list[tuple[str, list[tuple[str, Any]], set[str] | None, str]] = [
    # traffic classes
    ("QOS001", [(f"{DEFAULT}.priority", 3), (f"{DEFAULT}.traffic_class", 0)], None, ROCE),
    ("QOS002", [(f"{DEFAULT}.dscp", [10]), (f"{CNP}.dscp", [48, 10])], None, f"{DEFAULT}.dscp[0]"),
    ("QOS003", [(f"{CNP}.default", True)], None, f"{DEFAULT}.default"),
    ("QOS004", [(f"{DEFAULT}.default", False)], None, TC),
    ("QOS005", [(f"{ROCE}.default", True), (f"{DEFAULT}.default", False)], None, ROCE),
    ("QOS006", [(f"{CNP}.name", "roce")], None, f"{CNP}.name"),
    ("QOS007", [("switch_models.sw8.max_lossless_classes", 1),
                (f"{TC}[3]", _cls("roce2", [24], 4, lossless=True, ecn=ECN))], None, TC),
    ("QOS008", [(f"{TC}[3]", _cls("bulk", [8], 1, traffic_class=0, queue=1))], None, f"{TC}[3].queue"),
    ("QOS009", [(f"{TC}[3]", _cls("bulk", [8], 1, queue=0))], None, f"{TC}[3]"),
    ("QOS010", [(f"{TC}[3]", _cls("roce2", [24], 3, traffic_class=4, lossless=True, ecn=ECN))], None, f"{TC}[3]"),
    # CNP
    ("CNP001", [("qos.cnp.dscp", 46)], None, "qos.cnp.dscp"),
    ("CNP002", [("qos.cnp.priority", 5)], None, "qos.cnp.priority"),
    ("CNP003", [(f"{CNP}.lossless", True), (f"{CNP}.ecn", ECN)], None, CNP),
    ("CNP004", [(f"{CNP}.scheduling", {"mode": "dwrr", "weight": 10})], None, f"{CNP}.scheduling"),
    # ECN
    ("ECN001", [(f"{ROCE}.ecn", {"min": "1500KB", "max": "150KB"})], None, f"{ROCE}.ecn"),
    ("ECN002", [("qos.buffers.egress_lossless_pool_bytes", 1024 * 1024)], None, f"{ROCE}.ecn.max"),
    ("ECN003", [(f"{ROCE}.ecn.max", "10MB")], None, f"{ROCE}.ecn.max"),
    ("ECN004", [(f"{ROCE}.ecn.probability", 0)], None, f"{ROCE}.ecn.probability"),
    ("ECN005", [(f"{ROCE}.ecn", DROP)], None, ROCE),
    ("ECN006", [(f"{ROCE}.ecn.min", "0.1B")], {"ECN006", "ECN007", "ECN011"}, f"{ROCE}.ecn.min"),  # 0 B: floor
    # PFC watchdog
    ("WD001", [("qos.pfc_watchdog.restore_ms", 100)], None, "qos.pfc_watchdog.restore_ms"),
    ("WD002", [("qos.pfc_watchdog.poll_ms", 300)], None, "qos.pfc_watchdog.poll_ms"),
    ("WD003", [("qos.pfc_watchdog", {"detect_ms": 50, "restore_ms": 400, "poll_ms": 50})], None,
     "qos.pfc_watchdog.detect_ms"),
    ("WD004", [("qos.pfc_watchdog.enabled", False)], None, "qos.pfc_watchdog.enabled"),
    # DCQCN
    ("DCQ001", [("qos.dcqcn.rp", {"rpg_min_rate": 2000, "rpg_max_rate": 1000})], None, "qos.dcqcn.rp.rpg_min_rate"),
    ("DCQ002", [("qos.dcqcn.rp", {"rpg_max_rate": 500_000})], None, "qos.dcqcn.rp.rpg_max_rate"),
    ("DCQ003", [("qos.dcqcn.rp", {"rpg_ai_rate": 100, "rpg_hai_rate": 50})], None, "qos.dcqcn.rp.rpg_ai_rate"),
    ("DCQ004", [("qos.dcqcn.enabled", False)], None, "qos.dcqcn.enabled"),
    # PFC-only without a watchdog is the combination of two warnings, hence three ids
    ("DCQ005", [("qos.dcqcn.enabled", False), ("qos.pfc_watchdog.enabled", False)], {"DCQ004", "WD004", "DCQ005"},
     "qos.pfc_watchdog.enabled"),
    ("DCQ006", [("qos.dcqcn.rp", {"rpg_min_dec_fac": 50})], None, "qos.dcqcn.rp.rpg_min_dec_fac"),
    # speed-aware ECN: below the 400G x 10 us / 8 / 7 floor (70KB); above the share once headroom is reserved;
    # a time threshold larger than the whole 64MB buffer (also above the pool and the fair share)
    ("ECN007", [(f"{ROCE}.ecn.min", "20KB")], None, f"{ROCE}.ecn.min"),
    ("ECN008", [(f"{ROCE}.ecn.max", "8MB")], None, f"{ROCE}.ecn.max"),
    ("ECN009", [(f"{ROCE}.ecn.max", "2ms")], {"ECN002", "ECN003", "ECN009"}, f"{ROCE}.ecn.max"),
    ("ECN011", [(f"{ROCE}.ecn.min", "150.3KB")], None, f"{ROCE}.ecn.min"),  # 153,907.2 B
    # buffers and headroom
    ("BUF002", [("switch_models.sw8.buffer_bytes", 2**70)], None, "switch_models.sw8.buffer_bytes"),
    # qos.buffers pools apply to custom models (Cumulus here); a SKU's switches use the SKU's own pools
    ("BUF001", [("qos.buffers.egress_lossless_pool_bytes", 100 * 1024 * 1024), ("switch_models.sw8.hwsku", DROP),
                ("tiers.leaf.platform", "cumulus"), ("tiers.spine.platform", "cumulus")], None,
     "qos.buffers.egress_lossless_pool_bytes"),
    ("HDRM001", [("qos.buffers.ingress_lossless_pool_bytes", 256 * 1024), ("switch_models.sw8.hwsku", DROP),
                 ("tiers.leaf.platform", "cumulus"), ("tiers.spine.platform", "cumulus")], None,
     "qos.buffers.ingress_lossless_pool_bytes"),
    ("HDRM002", [("cable_lengths.leaf_spine", 500)], {"HDRM002", "HDRM003"}, "cable_lengths.leaf_spine"),
    # 30 m: no row in Mellanox-SN4700-O32's pg_profile_lookup.ini (5m, 40m, 300m, 1500m, 2000m)
    ("HDRM003", [("cable_lengths.leaf_spine", 30)], None, "cable_lengths.leaf_spine"),
    # Cumulus on the SN4700: roceops' formula stands in for the vendor table, and is below it on some rows
    ("HDRM004", [("switch_models.sw8.hwsku", "Mellanox-SN5600-O128"), ("tiers.leaf.platform", "cumulus"),
                 ("tiers.spine.platform", "cumulus")], None, "qos.buffers"),
    # hardware profiles (Mellanox-SN4700-O32: 32 x 400G, 1x400G cages with 200G..1G; 2x200G, 4x100G, 4x25G modes)
    ("HW001", [("switch_models.sw8.hwsku", "Generic-lab-8x400g")], None, "switch_models.sw8.hwsku"),
    ("HW002", [("switch_models.sw8.hwsku", DROP)], None, "switch_models.sw8.hwsku"),
    ("HW003", [("switch_models.sw8.port_speed", "800G")], {"HW003", "TOPO001", "TOPO004"},
     "switch_models.sw8.port_speed"),
    ("HW004", [("switch_models.sw8.radix", 40)], {"HW004", "TOPO001"}, "switch_models.sw8.radix"),
    ("HW005", [("switch_models.sw8.breakout", "2x400G")], None, "switch_models.sw8.breakout"),
    ("HW008", [("node.firmware", True), ("node.nic_model", "ConnectX-6")], None, "node.nic_model"),
    ("HW007", [("switch_models.sw8.max_lossless_classes", 3),  # the SKU's 2 lossless queues still bind
               ("qos.traffic_classes[3]", {"name": "roce2", "dscp": [24], "priority": 4, "lossless": True,
                                            "scheduling": {"mode": "dwrr", "weight": 10}}),
               ("qos.traffic_classes[4]", {"name": "roce3", "dscp": [25], "priority": 5, "lossless": True,
                                            "scheduling": {"mode": "dwrr", "weight": 10}})],
     {"HW007", "ECN005"}, "qos.traffic_classes"),
    ("HW010", [("node.nic_model", "banana")], None, "node.nic_model"),
    ("HW009", [("node.model", "banana")], None, "node.model"),  # gpus, rails, nic_speed given; nic_model not
    ("NOS001", [("tiers.leaf.nos_version", "201811")], None, "tiers.leaf.nos_version"),
    # topology
    ("TOPO001", [("tiers.spine.count", 3)], None, "tiers.spine.count"),
    ("TOPO003", [("switch_models.sw8-100g", {"radix": 8, "port_speed": "100G", "buffer_bytes": 64 * 1024 * 1024,
                                             "hwsku": "Mellanox-SN4700-O32"}),
                 ("tiers.spine.model", "sw8-100g")], None, "tiers.leaf.oversubscription"),
    ("TOPO004", [("node.nic_speed", "200G")], None, "node.nic_speed"),
    ("TOPO006", [("scalable_units.target_count", DROP)], None, "scalable_units"),
    ("TOPO007", [("rail_only", True), ("tiers.core", {"model": "sw8", "platform": "sonic"})], None, "tiers.core"),
    ("NAME001", [("node.netdev", "eth0")], None, "node.netdev"),  # unknown placeholders are refused at load
    ("TOPO010", [("planes", 2)], None, "planes"),  # the base's ConnectX-7 serves one plane
    # addressing and ASNs
    ("ADDR001", [("addressing.p2p", "10.1.0.0/30")], None, "addressing.p2p"),
    ("ADDR002", [("addressing.management", "10.0.0.0/16")], None, "addressing.management"),
    ("ADDR003", [("addressing.loopbacks", "127.0.0.0/24")], None, "addressing.loopbacks"),
    ("ASN001", [("asn.leaf_base", 4_200_099_998), ("asn.spine_base", 4_200_100_000)], None, "asn.leaf_base"),
    ("ASN003", [("scalable_units.target_count", 4), ("asn.leaf_base", 4_200_000_000),
                ("asn.spine_base", 4_200_000_005)], None, "asn.spine_base"),
    ("ASN004", [("asn.leaf_base", 64_000)], None, "asn.leaf_base"),
    # MTU and hosts
    ("MTU001", [("mtu.host", 9216)], None, "mtu.host"),
    ("MTU002", [("mtu.host", 4000)], None, "mtu.roce"),
    ("MTU003", [("overrides.groups.spine.mtu", 9000)], None, "overrides.groups.spine.mtu"),
    ("MTU004", [("overrides.devices.gpu001.mtu", 4000)], None, "overrides.devices.gpu001.mtu"),
    ("HOST001", [("qos.roce_tos", 2)], None, "qos.roce_tos"),
    ("HOST002", [("qos.roce_tos", 104)], None, "qos.roce_tos"),
    # NCCL
    ("NCCL001", [("node.nccl.ib_tc", 0)], None, "node.nccl.ib_tc"),  # DSCP 0 -> priority 0: no PFC
    ("NCCL002", [("node.nccl.ib_hca", ["mlx5_0"])], None, "node.nccl.ib_hca"),
    ("NCCL003", [("node.nccl.ib_tc", 48 << 2 | 2)], None, "node.nccl.ib_tc"),  # the CNP DSCP
    ("NCCL004", [("rail_only", True), ("node.nccl.cross_nic", 2)], None, "node.nccl.cross_nic"),
    ("NCCL005", [("node.nccl.fifo_class", "default")], None, "node.nccl.fifo_class"),  # lossy DWRR class
    ("NCCL005", [("node.nccl.fifo_class", "cnp")], None, "node.nccl.fifo_class"),  # strict, but the CNP class
    # overrides
    ("OVR001", [("overrides.groups.leafs.mtu", 9216)], None, "overrides.groups.leafs"),
    ("OVR002", [("overrides.groups.su5.mtu", 9216)], None, "overrides.groups.su5"),
    ("OVR003", [("overrides.devices.gpu01.mtu", 9000)], None, "overrides.devices.gpu01"),
    ("OVR004", [("overrides.groups.leaf.ecn.rocev2", ECN)], None, "overrides.groups.leaf.ecn.rocev2"),
    ("OVR005", [("overrides.groups.leaf.dcqcn.enabled", True)], None, "overrides.groups.leaf.dcqcn"),
    # load balancing
    ("LB001", [("load_balancing.qps_per_connection", 1)], None, "load_balancing.qps_per_connection"),
    ("LB003", [("load_balancing.mode", "adaptive")], None, "load_balancing.mode"),  # SONiC renders no AR
    # a hash blind to the QP makes the 8 QPs count as one (LB001); SONiC renders them (SWITCH_HASH): no LB003
    ("LB002", [("load_balancing.hash_fields", ["src_ip", "dst_ip", "ip_protocol"])], {"LB001", "LB002"},
     "load_balancing.hash_fields"),
    # Cumulus renders a seed (SN4700's Spectrum-3 confirms one: no LB003/LB004), but applying it restarts switchd
    ("LB006", [("tiers.leaf.platform", "cumulus"), ("load_balancing.hash_seed", {"leaf": 7})], None,
     "load_balancing.hash_seed.leaf"),
]


def test_base_is_clean() -> None:
    report = run(broken())
    assert report.findings == []
    assert report.ok


@pytest.mark.parametrize(("rule_id", "edits", "expected", "path"), CASES, ids=[c[0] for c in CASES])
def test_rule_catches_its_break(rule_id: str, edits: list[tuple[str, Any]], expected: set[str] | None,
                                path: str) -> None:
    report = run(broken(*edits))
    print(report)
    assert report.ids == (expected or {rule_id})
    mine = [f for f in report.findings if f.id == rule_id]
    assert mine[0].path == path
    assert all(f.message and f.hint for f in report.findings)
    assert report.ok is not any(f.severity == "error" for f in report.findings)


def test_did_you_mean_hints() -> None:
    messages = {f.id: f.message for f in run(broken(("overrides.groups.leafs.mtu", 9216),
                                                     ("overrides.devices.gpu01.mtu", 9000),
                                                     ("overrides.groups.leaf.ecn.rocev2", ECN))).findings}
    assert messages["OVR001"].endswith("(did you mean 'leaf'?)")
    assert messages["OVR003"].endswith("(did you mean 'gpu001'?)")
    assert messages["OVR004"].endswith("(did you mean 'roce'?)")


def test_watchdog_ranges_only_bind_sonic() -> None:
    eos = [("tiers.leaf.platform", "eos"), ("tiers.spine.platform", "eos")]
    fast = ("qos.pfc_watchdog", {"detect_ms": 50, "restore_ms": 400, "poll_ms": 50})
    assert run(broken(*eos, fast)).findings == []
    # one SONiC leaf group is enough to bind the ranges
    report = run(broken(*eos, fast, ("overrides.groups.su1.platform", "sonic")))
    assert report.ids == {"WD003"}
    assert "EOS renders the timers in seconds" in report.findings[0].hint


def test_watchdog_override_checked_at_its_path() -> None:
    report = run(broken(("overrides.groups.spine.pfc_watchdog", {"detect_ms": 400, "restore_ms": 200,
                                                                  "poll_ms": 100})))
    assert [(f.id, f.path) for f in report.findings] == [("WD001", "overrides.groups.spine.pfc_watchdog.restore_ms")]


def test_ecn_time_thresholds_convert_at_port_speed() -> None:
    # 10us at 400G = 500,000 B > 400KB; 2us = 100,000 B < 400KB: min >= max only after conversion
    # (1us = 50,000 B would be below ECN007's 400G floor of 400G x 10us / 8 / 7 = 71,429 B)
    report = run(broken((f"{ROCE}.ecn", {"min": "10us", "max": "400KB"})))
    assert report.ids == {"ECN001"}
    assert "at 400G" in report.findings[0].message
    assert run(broken((f"{ROCE}.ecn", {"min": "2us", "max": "400KB"}))).findings == []
    assert run(broken((f"{ROCE}.ecn", {"min": "1us", "max": "400KB"}))).ids == {"ECN007"}


def test_ecn_override_checked_at_its_path() -> None:
    report = run(broken(("overrides.groups.leaf.ecn.roce", {"min": "2MB", "max": "1MB"})))
    assert [(f.id, f.path) for f in report.findings] == [("ECN001", "overrides.groups.leaf.ecn.roce")]


def test_host_mtu_override_too_big_for_switches() -> None:
    report = run(broken(("overrides.devices.gpu001.mtu", 9216)))
    assert [(f.id, f.path) for f in report.findings] == [("MTU003", "overrides.devices.gpu001.mtu")]


def test_rail_only_needs_no_spines() -> None:
    assert run(broken(("rail_only", True))).findings == []


def test_expansion_error_skips_fabric_rules_but_not_intent_rules() -> None:
    report = run(broken(("addressing.p2p", "10.1.0.0/30"), ("mtu.host", 9216)))
    assert report.ids == {"ADDR001", "MTU001"}
    assert report.fabric is None
