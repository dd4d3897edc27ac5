"""Cumulus NVUE parsers on the real captures in shared/fixtures/cumulus, on the lab's own output (same
layouts, values round-trip), and the driver's pure side: diff of ``nv set`` lists, expected(), observe()."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from roceops.device.change import Snapshot
from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedBgpNeighbor
from roceops.device.oper import for_intent
from roceops.lab.devices.cumulus.device import CumulusState, run_line
from roceops.lab.fabric_specs import lab_specs
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.cumulus import DRIVER
from roceops.platforms.cumulus import parsers as p
from roceops.platforms.cumulus.driver import CONFIG, MARK, collect_commands, diff_commands, expected, split_marked
from roceops.platforms.cumulus.render import nv_set_paths
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO.parent / "shared" / "fixtures" / "cumulus"
LEAF = "leaf-su2-r1"


def fixture(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text()


@cache
def lab_mini() -> Fabric:
    return expand(FabricIntent.model_validate(yaml.safe_load((REPO / "inventory" / "lab-mini.yaml").read_text())))


@cache
def leaf_intent() -> SwitchIntent:
    intent = plan(lab_mini(), LEAF)
    assert isinstance(intent, SwitchIntent)
    return intent


def leaf_state(configured: bool) -> CumulusState:
    spec = lab_specs(lab_mini(), [LEAF], configured=configured)[0]
    return CumulusState(spec.name, spec.platform, spec.extra)


def sh(state: CumulusState, line: str) -> str:
    out, status = run_line(state, line, "cumulus")
    assert status == 0, out
    return out


def outputs(state: CumulusState) -> dict[str, str]:
    return {cmd: run_line(state, cmd, "cumulus")[0] for cmd in collect_commands(leaf_intent())}


# --------------------------------------------------------------------------- real captures


def test_qos_roce_5_16_shape() -> None:
    """5.16 prints the preset's switch as ``state ... enabled`` where 5.14 printed ``enable ... on``: the 5.16 docs'
    example (CumulusNetworks/docs content/cumulus-linux-516/Layer-1-and-Switch-Ports/Quality-of-Service/
    RDMA-over-Converged-Ethernet-RoCE.md @ 0da900a55a8e06ad94ce02b8d0b9c3d0359a863f, "Verify RoCE Configuration")
    is the 5.14 capture with that one row changed, so the capture with the row swapped is the 5.16 shape."""
    old = fixture("nv_show_qos_roce")
    row = next(line for line in old.splitlines() if line.startswith("enable "))
    new = old.replace(row, "state" + " " * 38 + "enabled")
    assert old != new
    r5_14, r5_16 = p.parse_qos_roce(old), p.parse_qos_roce(new)
    assert (r5_16["state"], r5_16["enable"]) == (r5_14["state"], r5_14["enable"]) == ("enabled", "on")
    assert r5_16 == r5_14
    off = p.parse_qos_roce(new.replace("enabled\n", "disabled\n", 1))
    assert (off["state"], off["enable"]) == ("disabled", "off")


def test_qos_roce_fixture() -> None:
    r = p.parse_qos_roce(fixture("nv_show_qos_roce"))
    assert (r["enable"], r["mode"], r["trust-mode"]) == ("on", "lossless-single-ipool", "pcp,dscp")
    assert r["pfc"] == {"pfc-priority": [3], "rx-enabled": True, "tx-enabled": True, "cable-length": 100}
    cc = r["congestion-control"]
    assert (cc["congestion-mode"], cc["enabled-tc"], cc["probability"]) == ("ECN", [0, 3], 100)
    assert cc["min-threshold"] == round(146.48 * 1024) and cc["max-threshold"] == round(1.43 * 1024**2)
    assert r["lldp-app-tlv"] == {"priority": 3, "protocol-id": 4791, "selector": "UDP"}
    assert r["dscp_to_sp"] == {d: d // 8 for d in range(64)}
    assert r["pcp_to_sp"] == {i: i for i in range(8)}
    assert r["sp_to_tc"] == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}
    assert r["scheduler"] == {0: {"mode": "dwrr", "weight": 50}, 3: {"mode": "dwrr", "weight": 50},
                              6: {"mode": "strict", "weight": None}}
    assert [(x["name"], x["size"], x["traffic-class"]) for x in r["pools"]] == [
        ("lossy-default-ingress", "100%", []), ("lossy-default-egress", "100%", [0, 6]),
        ("roce-reserved-egress", "inf", [3])]


def test_qos_pfc_fixture() -> None:
    assert p.parse_qos_pfc(fixture("nv_show_qos_pfc_default_global")) == {
        "cable-length": 50, "port-buffer": 25000, "rx": False, "tx": True, "xoff-threshold": 10000,
        "xon-threshold": 2000, "switch-priority": [0], "applied-switch-priority": [0]}


def test_congestion_control_fixture() -> None:
    want = {"ecn": True, "red": True, "min": 40000, "max": 200000, "probability": 100}
    assert p.parse_qos_congestion_control(fixture("nv_show_qos_congestion_control_default_global")) == {
        4: want, 5: want, 7: want}


def test_interface_congestion_control_fixture_has_its_own_title_and_units() -> None:
    # per-interface form: "ECN configuration" and 153.00 KB / 1.43 MB (raised ParseError before)
    assert p.parse_qos_congestion_control(fixture("nv_show_interface_qos_congestion_control")) == {
        0: {"ecn": True, "red": False, "min": 153 * 1024, "max": round(1.43 * 1024**2), "probability": 100}}


def test_qos_roce_lossy_multi_tc_fixture() -> None:
    r = p.parse_qos_roce(fixture("nv_show_qos_roce_lossy_multi_tc"))
    assert (r["enable"], r["mode"], r["trust-mode"]) == ("on", "lossy-multi-tc", "pcp,dscp")
    assert r["pfc"]["pfc-priority"] == []
    cc = r["congestion-control"]
    assert (cc["congestion-mode"], cc["enabled-tc"], cc["probability"]) == ("ECN", [1, 2, 3], 5)
    assert (cc["min-threshold"], cc["max-threshold"]) == (163 * 1024, 234 * 1024)
    assert r["dscp_to_sp"][26] == 4 and r["dscp_to_sp"][5] == 3 and r["dscp_to_sp"][48] == 0
    assert r["pcp_to_sp"] == {i: i for i in range(8)} and r["sp_to_tc"] == {i: i for i in range(8)}
    assert r["scheduler"][0] == {"mode": "dwrr", "weight": 4} and r["scheduler"][7] == {"mode": "dwrr", "weight": 0}
    assert [(x["name"], x["size"], x["traffic-class"]) for x in r["pools"]] == [
        ("lossy-default-ingress", "100%", []), ("lossy-default-egress", "100%", list(range(8)))]


def test_egress_queue_mapping_fixture() -> None:
    assert p.parse_qos_egress_queue_mapping(fixture("nv_show_qos_egress_queue_mapping_default_global")) == {
        0: 0, 1: 1, 2: 7, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}


def test_pfc_watchdog_fixture() -> None:
    r = p.parse_pfc_watchdog(fixture("nv_show_interface_qos_pfc_watchdog"))
    assert (r["state"], r["applied"]) == ("enabled", "enabled")
    assert sorted(r["status"]) == list(range(8))
    assert r["status"][2] == {"status": "DEADLOCK", "deadlock-count": 2}
    assert r["status"][7] == {"status": "DEADLOCK", "deadlock-count": 3}
    assert r["status"][1] == {"status": "OK", "deadlock-count": 3}
    assert sum(s["deadlock-count"] for s in r["status"].values()) == 8


def test_counters_qos_fixture() -> None:
    r = p.parse_counters_qos(fixture("nv_show_interface_counters_qos"))
    assert sorted(r["ingress"]) == sorted(r["egress"]) == sorted(r["pfc"]) == list(range(8))
    assert r["ingress"][3] == {"rx-frames": 0, "rx-buffer-discards": 0, "rx-shared-buffer-discards": 0}
    assert r["egress"][7] == {"tx-frames": 0, "tx-bytes": 0, "tx-uc-buffer-discards": 0, "wred-discards": 0}
    assert r["pfc"][3] == {"rx-pause-frames": 0, "rx-pause-duration": 0, "tx-pause-frames": 0,
                           "tx-pause-duration": 0}
    assert r["port"] == {"ecn-marked-packets": {"rx": None, "tx": 0}, "mc-buffer-discards": {"rx": None, "tx": 0},
                         "pause-frames": {"rx": 0, "tx": 0}}


def test_roce_counters_fixture() -> None:
    r = p.parse_roce_counters(fixture("nv_show_interface_qos_roce_counters"))
    assert r["tx-stats.tx-ecn-stats.ecn-marked-packets"] == 693777677344
    assert r["tx-stats.tx-roce-stats.roce-packets"] == 803785675319
    assert r["tx-stats.tx-roce-stats.unicast-no-buffer-discard"] == 663060754115
    assert r["tx-stats.tx-roce-stats.roce-bytes"] == round(92824.38 * 1024**3)
    assert r["rx-stats.rx-non-roce-stats.non-roce-bytes"] == round(56.52 * 1024**2)
    assert r["rx-stats.rx-non-roce-stats.no-buffer-discard"] == 55
    assert r["tx-stats.tx-cnp-stats.cnp-packets"] == 0
    assert r["rx-stats.rx-pfc-stats.pause-packets"] == 0
    assert len(r) == 33  # 7 + 2 + 7 receive, 7 + 1 + 2 + 7 transmit


def test_roce_status_fixture() -> None:
    r = p.parse_roce_status(fixture("nv_show_interface_qos_roce_status"))
    assert (r["mode"], r["congestion-mode"], r["trust-mode"]) == ("lossless", "ecn, absolute", "pcp,dscp")
    assert (r["enabled-tc"], r["pfc-priority"], r["rx-enabled"], r["tx-enabled"]) == ([0, 3], [3], True, True)
    assert (r["min-threshold"], r["max-threshold"], r["probability"]) == (153 * 1024, round(1.43 * 1024**2), 100)
    assert r["mapping"] == {"cnp": {"pcp": [6], "dscp": [48], "switch-prio": 6},
                            "roce": {"pcp": [3], "dscp": [26], "switch-prio": 3}}
    assert r["ets"]["roce"] == {"switch-prio": 3, "traffic-class": 3, "mode": "dwrr", "weight": 50}
    assert r["ets"]["cnp"]["mode"] == "strict"
    assert [(x["name"], x["pool-id"], x["size"] is None) for x in r["pools"]] == [
        ("lossy-default-ingress", 2, False), ("roce-reserved-ingress", 3, False),
        ("lossy-default-egress", 13, False), ("roce-reserved-egress", 14, True)]
    assert r["pools"][1]["current-usage"] == round(7.30 * 1024**2)


@pytest.mark.parametrize(("text", "want"), [("0 Bytes", 0), ("25000 B", 25000), ("16.02 MB", round(16.02 * 2**20)),
                                            ("n/a", None), ("inf", None), ("-", None), ("", None), ("7 parsecs", None)])
def test_size_bytes(text: str, want: int | None) -> None:
    assert p.size_bytes(text) == want


def test_bad_output_is_a_parse_error() -> None:
    with pytest.raises(p.ParseError, match="ECN Configurations"):
        p.parse_qos_congestion_control("Error: The requested item does not exist.")
    with pytest.raises(p.ParseError, match="not JSON"):
        p.parse_interfaces_json("Error: Invalid Command: show interface x")
    with pytest.raises(p.ParseError, match="scheduler-weight"):
        p.parse_scheduler_weight("WRR-12")


def test_memoised_watchdog_readings_are_separate_dicts() -> None:
    wd = fixture("nv_show_interface_qos_pfc_watchdog")
    one, two = p.parse_pfc_watchdog(wd), p.parse_pfc_watchdog(wd)
    assert one == two and one["status"] is not two["status"]  # fresh dicts from the memoised reading


@pytest.mark.parametrize("text", [
    "nv set qos pfc p switch-priority 3,4\nnv set interface swp1,swp2 link mtu 9000\n"
    "nv set interface swp1 description 'a, b  c'\n  nv set system hostname x  \nnv set qos roce\n"
    "nv set qos roce mode lossless\n# nv set x y\nnv unset qos\nnv set vrf default router bgp neighbor 10.0.0.1 "
    "remote-as external\nnv set interface swp2 description \"q\\\"d\"\tx\n",
    "nv set system hostname 'unterminated\n",
])
def test_config_paths_is_nv_set_paths(text: str) -> None:
    lines = [line for line in text.splitlines() if line.strip().startswith("nv set ")]
    try:
        want = nv_set_paths(lines)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            p.config_paths(text)
        return
    assert p.config_paths(text) == want


def test_config_paths_of_a_lab_config_is_nv_set_paths() -> None:
    text = sh(leaf_state(configured=True), CONFIG)
    assert p.config_paths(text) == nv_set_paths([ln for ln in text.splitlines() if ln.strip().startswith("nv set ")])


# --------------------------------------------------------------------------- the lab prints the same layouts


@pytest.mark.parametrize(("command", "name"), [
    ("nv show qos roce", "nv_show_qos_roce"),
    ("nv show qos pfc default-global", "nv_show_qos_pfc_default_global"),
    ("nv show qos congestion-control default-global", "nv_show_qos_congestion_control_default_global"),
    ("nv show qos egress-queue-mapping default-global", "nv_show_qos_egress_queue_mapping_default_global"),
    ("nv show interface swp1s0 qos pfc-watchdog", "nv_show_interface_qos_pfc_watchdog"),
    ("nv show interface swp1s0 counters qos", "nv_show_interface_counters_qos"),
    ("nv show interface swp1s0 qos roce counters", "nv_show_interface_qos_roce_counters"),
    ("nv show interface swp1s0 qos roce status", "nv_show_interface_qos_roce_status"),
])
def test_lab_layout_matches_capture(command: str, name: str) -> None:
    lab = p.parse_tables(sh(leaf_state(configured=True), command))
    real = p.parse_tables(fixture(name))
    assert [(t.title, t.header) for t in lab] == [(t.title, t.header) for t in real]
    if name.endswith("roce_counters"):
        assert [k for k, _ in p.kv_entries(lab[0])] == [k for k, _ in p.kv_entries(real[0])]


def test_lab_values_round_trip() -> None:
    state = leaf_state(configured=True)
    roce = p.parse_qos_roce(sh(state, "nv show qos roce"))
    assert (roce["trust-mode"], roce["mode"], roce["pfc"]["pfc-priority"]) == ("dscp", "lossless", [3])
    assert roce["dscp_to_sp"] == {d: leaf_intent().qos.dscp_to_tc[d] for d in range(64)}
    assert roce["scheduler"][3] == {"mode": "dwrr", "weight": 60} and roce["scheduler"][6]["mode"] == "strict"
    assert p.parse_qos_pfc(sh(state, "nv show qos pfc default-global"))["switch-priority"] == [3]
    ecn = p.parse_qos_congestion_control(sh(state, "nv show qos congestion-control default-global"))
    assert ecn == {3: {"ecn": True, "red": False, "min": 153600, "max": 1536000, "probability": 100}}
    links = p.parse_interfaces_json(sh(state, "nv show interface -o json"))
    assert links["swp3s0"]["lldp"] == ("spine01", "Ethernet5/1") and links["swp3s0"]["speed"] == 400000
    assert links["swp1s0"]["addresses"] == ["10.128.0.8/31"] and links["swp1s0"]["oper_up"] is True
    bgp = p.parse_bgp_neighbors_json(sh(state, "nv show vrf default router bgp neighbor -o json"))
    assert {ip: n["state"] for ip, n in bgp.items()} == {n.ip: "established" for n in leaf_intent().bgp.neighbors}
    assert p.parse_system_json(sh(state, "nv show system -o json"))["build"].startswith("Cumulus Linux 5.")
    ber = p.parse_ber_view(sh(state, "nv show interface --view ber"))
    assert sorted(ber) == [f"swp{cage}s{k}" for cage in range(1, 5) for k in (0, 1)]
    assert p.parse_counters_errors(sh(state, "nv show interface swp1s0 counters errors"))["FCS Errors"] == {
        "rx": 0, "tx": None}


# --------------------------------------------------------------------------- pure driver side


def test_diff_sets_changed_and_unsets_unmanaged_leftovers_only_where_managed() -> None:
    current = "\n".join([
        "nv set interface eth0 ip address dhcp", "nv set interface swp1 link mtu 1500",
        "nv set interface swp1 qos pfc profile pfc-swp1", "nv set qos pfc pfc-swp1 tx enable",
        "nv set qos pfc default-global switch-priority 4", "nv set system timezone Etc/UTC",
        "nv set vrf mgmt table auto", "nv set interface swp9 link state up"])
    target = "\n".join(["nv set interface swp1 link mtu 9216", "nv set interface swp1 description 'to spine 1'",
                        "nv set qos pfc default-global switch-priority 3", "nv set interface swp1 link state up"])
    unsets, sets = diff_commands(current, target)
    assert unsets == ["nv unset interface swp1 qos", "nv unset interface swp9",
                      "nv unset qos pfc default-global switch-priority 4", "nv unset qos pfc pfc-swp1"]
    assert sets == ["nv set interface swp1 link mtu 9216", "nv set interface swp1 description 'to spine 1'",
                    "nv set qos pfc default-global switch-priority 3", "nv set interface swp1 link state up"]
    assert diff_commands(target, target) == ([], [])
    unsets, _ = diff_commands(current, target, everything=True)  # a restore also removes unmanaged paths
    assert "nv unset vrf" in unsets and "nv unset system" in unsets


def test_plan_change_on_fresh_and_configured_devices() -> None:
    rendered = render_device(leaf_intent())
    fresh = Snapshot("nvue_commands", sh(leaf_state(False), "nv config show -o commands"))
    change = DRIVER.diff(fresh, rendered, leaf_intent())
    lines = rendered.files["nvue.commands"].splitlines()
    assert change.summary == {"set": len(lines) - 1, "unset": 0}  # the hostname is already set
    assert change.diff == "\n".join(change.payload) and "nv set system hostname" not in change.diff
    done = Snapshot("nvue_commands", sh(leaf_state(True), "nv config show -o commands"))
    assert DRIVER.diff(done, rendered, leaf_intent()).empty
    back = DRIVER.restore(done, fresh)
    assert back.summary["set"] == 0 and "nv unset qos" in back.payload and "nv unset router" in back.payload


def test_expected_is_what_nvue_can_hold() -> None:
    intent = leaf_intent()
    exp = expected(intent)
    assert all(port.pfc_priorities == [3] for port in exp.ports.values())  # type: ignore[union-attr]
    wd = exp.qos.pfc_watchdog  # type: ignore[union-attr]
    assert (wd.poll_ms, wd.detect_ms) == (100, 200)
    assert exp.qos.queues[3].lossless and not exp.qos.queues[0].lossless  # type: ignore[union-attr]


def test_observe_configured_leaf_has_no_drift_and_fresh_leaf_has_plenty() -> None:
    intent = leaf_intent()
    observed = DRIVER.observe(outputs(leaf_state(True)))
    assert compare(DRIVER.expected(intent), observed) == []
    assert observed.ports is not None and set(observed.ports) == set(intent.ports)
    assert observed.bgp is not None and observed.bgp.neighbors is not None
    assert observed.bgp.neighbors[0] == ObservedBgpNeighbor(ip="10.1.0.16", remote_asn=4200100000, port="swp3s0",
                                                            description="spine01")
    paths = {d.path for d in compare(DRIVER.expected(intent), DRIVER.observe(outputs(leaf_state(False))))}
    assert {"qos.trust", "qos.lossless_priorities", "ports[swp1s0].admin_up", "bgp.asn", "loopback"} <= paths


def test_operational_counters_and_neighbours() -> None:
    oper = for_intent(DRIVER.operational(outputs(leaf_state(True))), leaf_intent())
    swp3s0 = oper.ports["swp3s0"]
    assert swp3s0.oper_up and swp3s0.speed == 400000 and swp3s0.mtu == 9216
    assert {"pfc_rx_3", "pfc_tx_3", "ecn_marked", "cnp_sent", "crc_errors", "fec_uncorrected", "symbol_errors",
            "carrier_changes", "pfcwd_storms", "rx_packets", "tx_packets"} <= set(swp3s0.counters)
    assert (oper.lldp["swp3s0"].device, oper.lldp["swp3s0"].port) == ("spine01", "Ethernet5/1")
    assert {s.state for s in oper.bgp.values()} == {"Established"}
    assert oper.os_version and oper.os_version.startswith("Cumulus Linux")


_MARKED = st.lists(st.sampled_from([f"{MARK}-", "\n", "1", "23", "end", "x", "\u0663", " ", "ROCEOPS-", "OUT"]),
                   max_size=30).map("".join)


@given(_MARKED)
def test_split_marked_equals_the_line_anchored_regex_split(text: str) -> None:
    assert split_marked(text) == re.split(rf"^{MARK}-(\d+|end)$", text, flags=re.MULTILINE)
