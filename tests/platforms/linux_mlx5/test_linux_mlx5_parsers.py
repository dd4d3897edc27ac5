"""linux_mlx5 parsers on the real captures in ../shared/fixtures/linux_mlx5, plus the driver's pure planning.

Fixtures: mlnx_qos_trust_dscp.txt (mlnx_qos), ethtool_S_mlx5_connectx4.txt (ethtool -S, no header),
dcb_pfc_show.txt / dcb_ets_show.txt / dcb_app_show_dscp_prio_numeric.txt / dcb_buffer_show.txt (dcb text).
"""

from __future__ import annotations

import copy
import doctest
import json
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from conftest import FIXTURES, example_dict

from roceops.device.change import RenderedDevice, Snapshot
from roceops.device.intent import HostIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import DRIVER, driver_model, driver_plan, parsers
from roceops.platforms.linux_mlx5.driver_plan import (
    apply_command,
    diff_table,
    dscp_ranges,
    restore_commands,
    simulate,
)
from roceops.platforms.linux_mlx5.expected import shown_sysctls
from roceops.platforms.linux_mlx5.parsers import (
    ParseError,
    parse_cma_roce_mode,
    parse_cma_roce_tos,
    parse_dcb_json,
    parse_dcb_text,
    parse_ethtool_driver,
    parse_ethtool_fec,
    parse_ethtool_pause,
    parse_ethtool_settings,
    parse_ethtool_stats,
    parse_ip_json,
    parse_mlnx_qos,
    parse_rdma_links,
    parse_sysctl,
    parse_sysfs_grep,
)
from roceops.platforms.linux_mlx5.render import INSTALL_TARGETS, PERSISTED, simple_command_problem
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

FX = FIXTURES / "linux_mlx5"


def fixture(name: str) -> str:
    return (FX / name).read_text()


def test_module_doctests() -> None:
    for module in (parsers, driver_plan):
        assert doctest.testmod(module).failed == 0


# ------------------------------------------------------------------------------------ mlnx_qos


def test_mlnx_qos_fixture() -> None:
    qos = parse_mlnx_qos(fixture("mlnx_qos_trust_dscp.txt"))
    assert qos["dcbx"] == "os"
    assert qos["trust"] == "dscp"
    assert qos["dscp2prio"] == {d: d >> 3 for d in range(64)}  # eight dscp:..., lines, newest entry first
    assert qos["cable_len"] == 7
    assert qos["pfc"] == [3]
    assert qos["pfc_buffer"] is None  # this mlnx-tools version prints no buffer row
    assert qos["prio_tc"] == {0: 1, 1: 0, **{p: p for p in range(2, 8)}}  # mlx5 default swaps 0 and 1
    assert qos["tcs"] == {tc: {"tsa": "vendor", "bw": None, "ratelimit_gbps": None} for tc in range(8)}


def test_mlnx_qos_tabs_ets_strict_ratelimit_and_newer_layout() -> None:
    text = (
        "DCBX mode: Firmware controlled\nPriority trust state: pcp\ndefault priority:\n"
        "Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,total_size=1046528\nCable len: 7\n"
        "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
        "\tenabled     0   0   0   1   0   0   1   0   \n\tbuffer      0   0   0   1   0   0   0   0   \n"
        "tc: 0 ratelimit: unlimited, tsa: ets, bw: 40%\n\t priority:  0\n\t priority:  1\n"
        "tc: 3 ratelimit: 8.0 Gbps, tsa: ets, bw: 60%\n\t priority:  3\n"
        "tc: 6 ratelimit: unlimited, tsa: strict\n\t priority:  6\n"
    )
    qos = parse_mlnx_qos(text)
    assert qos["dcbx"] == "fw" and qos["trust"] == "pcp" and qos["dscp2prio"] is None
    assert qos["pfc"] == [3, 6]
    assert qos["pfc_buffer"] == {p: int(p == 3) for p in range(8)}
    assert qos["prio_tc"] == {0: 0, 1: 0, 3: 3, 6: 6}
    assert qos["tcs"][0] == {"tsa": "ets", "bw": 40, "ratelimit_gbps": None}
    assert qos["tcs"][3]["ratelimit_gbps"] == 8.0
    assert qos["tcs"][6] == {"tsa": "strict", "bw": None, "ratelimit_gbps": None}


def test_mlnx_qos_wrapped_dscp_lines() -> None:
    text = ("Priority trust state: dscp\ndscp2prio mapping:\n"
            "\tprio:0 dscp:63,62,61,60,59,58,57,56,\n\tprio:0 dscp:01,00,\n\tprio:3 dscp:26,\n"
            "Cable len: 7\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
            "\tenabled     0   0   0   1   0   0   0   0   \n")
    assert parse_mlnx_qos(text)["dscp2prio"] == {**{d: 0 for d in (63, 62, 61, 60, 59, 58, 57, 56, 1, 0)}, 26: 3}


@pytest.mark.parametrize("text", ["", "bash: mlnx_qos: command not found", "Priority trust state: pcp\n"])
def test_mlnx_qos_refuses_other_output(text: str) -> None:
    with pytest.raises(ParseError):
        parse_mlnx_qos(text)


# ------------------------------------------------------------------------------------ ethtool


def test_ethtool_stats_fixture_without_header() -> None:
    stats = parse_ethtool_stats(fixture("ethtool_S_mlx5_connectx4.txt"))
    assert len(stats) == 751
    assert stats["rx_packets_phy"] == 845715962
    assert stats["rx_crc_errors_phy"] == 0
    assert stats["rx_prio0_packets"] > 0 and stats["rx_prio3_packets"] == 0
    assert "rx_prio3_pause" not in stats  # this driver reports no PFC counters (PFC off)
    assert stats["rx15_cache_waive"] == 448 and stats["tx15_xmit_more"] == 5530  # last per-queue block


def test_ethtool_stats_with_real_header_and_indent() -> None:
    body = fixture("ethtool_S_mlx5_connectx4.txt")
    real = "NIC statistics:\n" + "".join(f"     {line}\n" for line in body.splitlines())
    assert parse_ethtool_stats(real) == parse_ethtool_stats(body)
    with pytest.raises(ParseError):
        parse_ethtool_stats("NIC statistics:\n     rx_packets: lots\n")


def test_ethtool_stats_older_driver_fixture_with_indent() -> None:
    stats = parse_ethtool_stats(fixture("ethtool_S_mlx5_connectx4_older_driver.txt"))
    assert len(stats) == 309
    assert (stats["rx_packets"], stats["tx_packets"], stats["rx_unicast_packets"]) == (5487361, 5116718, 4493131)
    assert (stats["crc_align_errors"], stats["symbol_err"], stats["pause_ctrl_rx"], stats["pause_ctrl_tx"]) == (
        0, 0, 0, 0)
    assert not any(k.endswith("_phy") or k.startswith("rx_prio") for k in stats)
    assert stats["rx0_packets"] == 393312


def test_ethtool_driver_pause_settings() -> None:
    drv = parse_ethtool_driver("driver: mlx5_core\nversion: 24.10-1.1.4\nfirmware-version: 28.42.1000 "
                               "(MT_0000000838)\nexpansion-rom-version: \nbus-info: 0000:3c:00.0\n")
    assert drv == {"driver": "mlx5_core", "version": "24.10-1.1.4", "firmware": "28.42.1000",
                   "psid": "MT_0000000838", "bus_info": "0000:3c:00.0"}
    assert parse_ethtool_pause("Pause parameters for eth0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\toff\n") == {
        "autoneg": False, "rx": True, "tx": False}
    assert parse_ethtool_settings("Settings for eth0:\n\tSpeed: 400000Mb/s\n\tLink detected: yes\n") == {
        "speed": 400000, "link": True}
    assert parse_ethtool_settings("\tSpeed: Unknown!\n\tLink detected: no\n") == {"speed": None, "link": False}
    fec = ("FEC parameters for eth0:\nSupported/Configured FEC encodings: Auto\nActive FEC encoding: RS\n"
           "Statistics:\n  corrected_blocks: 1234\n  uncorrectable_blocks: 2\n")
    assert parse_ethtool_fec(fec) == {"active": "RS", "corrected_blocks": 1234, "uncorrectable_blocks": 2}
    with pytest.raises(ParseError):
        parse_ethtool_driver("Cannot get driver information: No such device")


# ------------------------------------------------------------------------------------ dcb


def test_dcb_text_fixtures() -> None:
    assert parse_dcb_text(fixture("dcb_pfc_show.txt")) == {
        "pfc_cap": 8, "macsec_bypass": False, "delay": 4096, "prio_pfc": [False] * 6 + [True, True]}
    assert parse_dcb_text(fixture("dcb_ets_show.txt")) == {
        "prio_tc": list(range(8)), "tc_tsa": ["ets"] * 3 + ["strict"] * 5, "tc_bw": [33, 33, 34, 0, 0, 0, 0, 0]}
    assert parse_dcb_text(fixture("dcb_app_show_dscp_prio_numeric.txt")) == {
        "dscp_prio": [[0, 0], [24, 2], [24, 3], [48, 6]]}
    assert parse_dcb_text(fixture("dcb_buffer_show.txt")) == {
        "prio_buffer": list(range(8)), "buffer_size": [10240] * 6 + [1048576, 10240], "total_size": 1222 * 1024}


def test_dcb_text_names_and_json() -> None:
    assert parse_dcb_text("dscp-prio 0:0 CS3:2 CS3:3 CS6:6")["dscp_prio"] == [[0, 0], ["CS3", 2], ["CS3", 3],
                                                                                ["CS6", 6]]
    data = parse_dcb_json('{"pfc_cap":8,"macsec_bypass":false,"delay":7,"prio_pfc":[false,false,false,true,'
                          'false,false,false,false]}')
    assert data["prio_pfc"][3] is True
    with pytest.raises(ParseError):
        parse_dcb_json("[1, 2]")
    with pytest.raises(ParseError):
        parse_dcb_text("prio-tc")


# ------------------------------------------------------------------------------------ sysfs, ip, misc


def test_sysfs_grep_sysctl_cma_rdma_ip() -> None:
    text = ("/sys/class/net/eth0/ecn/roce_np/enable/3:1\n/sys/class/net/eth0/ecn/roce_np/cnp_dscp:48\n"
            "grep: /sys/class/net/eth0/speed: Invalid argument\n")
    assert parse_sysfs_grep(text) == {"/sys/class/net/eth0/ecn/roce_np/enable/3": "1",
                                      "/sys/class/net/eth0/ecn/roce_np/cnp_dscp": "48"}
    assert parse_sysctl("net.ipv4.tcp_rmem = 4096\t87380\t6291456\nsysctl: cannot stat /proc/sys/x: No such file "
                        "or directory\n") == {"net.ipv4.tcp_rmem": "4096 87380 6291456"}
    assert parse_cma_roce_mode("RoCE v2\n") == "RoCE v2"
    assert parse_cma_roce_mode("You must be root to run this\n") is None
    assert parse_cma_roce_tos("/usr/sbin/cma_roce_tos: line 98: default_roce_tos: Permission denied\n0\n") == 0
    assert parse_cma_roce_tos("sudo: a password is required\n") is None
    links = parse_rdma_links('[{"ifindex":0,"ifname":"mlx5_0","port":1,"state":"ACTIVE",'
                             '"physical_state":"LINK_UP","netdev":"eth0","netdev_index":3}]')
    assert links == {"eth0": {"rdma_dev": "mlx5_0", "port": 1, "state": "ACTIVE", "physical_state": "LINK_UP"}}
    assert parse_ip_json('[{"ifname":"eth0","mtu":9000}]') == [{"ifname": "eth0", "mtu": 9000}]
    with pytest.raises(ParseError):
        parse_ip_json('{"ifname": "eth0"}')


# ------------------------------------------------------------------------------------ pure planning


@cache
def lab_host() -> HostIntent:
    fab = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    intent = plan(fab, "gpu001")
    assert isinstance(intent, HostIntent)
    return intent


def fresh_state(intent: HostIntent) -> dict[str, Any]:
    """What read_config captures on a fresh lab host (built by hand: factory defaults)."""
    ecn_np = {"enable": [1] * 8, "min_time_between_cnps": 4, "cnp_dscp": 48, "cnp_802p_prio": 6}
    ecn_rp = {"enable": [1] * 8, **{k: v for k, v in intent.nics["eth0"].dcqcn.rp.items()}}
    nics = {n.netdev: {"rdma_dev": n.rdma_dev, "mtu": 1500, "addresses": [], "trust": "pcp", "dscp2prio": {},
                       "pfc": [], "prio_tc": [1, 0, 2, 3, 4, 5, 6, 7], "tsa": ["vendor"] * 8, "tcbw": [0] * 8,
                       "pause": {"rx": True, "tx": True}, "ecn": {"roce_np": dict(ecn_np), "roce_rp": dict(ecn_rp)},
                       "roce_mode": "RoCE v2", "roce_tos": 0} for n in intent.nics.values()}
    sysctls = {f"net.ipv4.conf.{i}.{p}": "0" for i in ("all", "default", *intent.nics)
               for p in ("arp_announce", "arp_ignore", "rp_filter")}
    return {"format": driver_model.FORMAT, "nics": nics, "routes": [], "rules": [], "sysctls": sysctls}


def snap(state: dict[str, Any]) -> Snapshot:
    return Snapshot("host_state_json", driver_model.dump(state))


def runtime_files(intent: HostIntent) -> RenderedDevice:
    """The rendered files with persistence left out: these tests replay the runtime commands on a state document."""
    return replace(render_device(intent), skip=PERSISTED)


def test_plan_change_installs_the_persistence_files_after_the_runtime_commands() -> None:
    intent = lab_host()
    runtime = DRIVER.diff(snap(fresh_state(intent)), runtime_files(intent), intent).payload
    full = DRIVER.diff(snap(fresh_state(intent)), render_device(intent), intent)
    assert full.payload[:len(runtime)] == runtime
    install = full.payload[len(runtime):]
    assert install[-1] == "systemctl enable roceops-roce.service" and "netplan generate" in install
    assert "mv -f /etc/nccl.conf.roceops-new /etc/nccl.conf" in install and "chmod 600 " \
        "/etc/netplan/60-roceops-rails.yaml.roceops-new" in install
    # each one simple command (an append counts as a redirection), sendable line by line
    assert [simple_command_problem(c.replace(" >> ", " > ")) for c in install] == [None] * len(install)
    assert full.summary["files"] == len(PERSISTED) and "+++ /etc/nccl.conf (rendered)" in full.diff


def test_plan_change_fresh_host_then_nothing_left() -> None:
    intent = lab_host()
    rendered = runtime_files(intent)
    state = fresh_state(intent)
    change = DRIVER.diff(snap(state), rendered, intent)
    assert not change.empty and change.summary["commands"] == len(change.payload)
    assert "pcp -> dscp" in change.diff and "0-25:0 26:3 27-47:0 48:6 49-63:0" in change.diff
    assert "ip addr replace 10.128.0.1/31 dev eth0" in change.payload
    assert "ip rule add from 10.128.0.1 table 100" in change.payload
    # DCQCN parameters already at the ConnectX defaults the intent asks for: not sent again
    assert not any("rpg_time_reset" in c for c in change.payload)
    assert "echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/0" in change.payload
    target, _ = simulate(state, change.payload)
    again = DRIVER.diff(snap(target), rendered, intent)
    assert again.empty and again.diff == ""


def test_plan_change_removes_foreign_addresses_routes_and_rules() -> None:
    intent = lab_host()
    state, _ = simulate(fresh_state(intent), DRIVER.diff(snap(fresh_state(intent)), runtime_files(intent),
                                                                 intent).payload)
    state["nics"]["eth0"]["addresses"].append("10.9.9.9/24")
    state["routes"].append({"dst": "10.50.0.0/16", "gateway": "10.128.0.0", "dev": "eth0", "table": "100"})
    state["rules"].append({"priority": 100, "src": "10.9.9.9/32", "table": "100"})
    change = DRIVER.diff(snap(state), runtime_files(intent), intent)
    assert change.payload == ["ip route del 10.50.0.0/16 via 10.128.0.0 dev eth0 table 100",
                              "ip addr del 10.9.9.9/24 dev eth0", "ip rule del priority 100 from 10.9.9.9/32 table 100"]


def test_mlnx_qos_model_semantics() -> None:
    state = fresh_state(lab_host())
    nic = state["nics"]["eth0"]
    assert not apply_command(state, "mlnx_qos -i eth0 --trust pcp")
    assert apply_command(state, "mlnx_qos -i eth0 --trust dscp")
    assert nic["dscp2prio"] == {str(d): d >> 3 for d in range(64)}  # trust dscp installs the default map
    assert not apply_command(state, "mlnx_qos -i eth0 --trust dscp")
    assert not apply_command(state, "mlnx_qos -i eth0 --dscp2prio set,26,3")  # 26 >> 3 is already 3
    assert apply_command(state, "mlnx_qos -i eth0 --dscp2prio set,26,5")
    assert nic["dscp2prio"]["26"] == 5
    assert apply_command(state, "mlnx_qos -i eth0 --trust pcp") and nic["dscp2prio"] == {}
    assert apply_command(state, "mlnx_qos -i eth0 --dscp2prio set,26,3")  # the first entry switches trust
    assert nic["trust"] == "dscp" and nic["dscp2prio"] == {"26": 3}
    assert apply_command(state, "mlnx_qos -i eth0 --dscp2prio del,26,3") and nic["trust"] == "pcp"
    assert apply_command(state, "ip rule add from 10.128.0.1 table 100")
    assert not apply_command(state, "ip rule add from 10.128.0.1 table 100")  # already there: no duplicate
    with pytest.raises(driver_model.PlanError, match="not an RDMA NIC"):
        apply_command(state, "mlnx_qos -i eth9 --trust dscp")
    with pytest.raises(driver_model.PlanError, match="cannot model"):
        apply_command(state, "modprobe -r mlx5_ib")


def test_restore_commands_bring_any_state_back() -> None:
    intent = lab_host()
    backup = fresh_state(intent)
    current, _ = simulate(backup, DRIVER.diff(snap(backup), runtime_files(intent), intent).payload)
    current["nics"]["eth1"]["dscp2prio"].pop("5")  # a deleted APP entry
    cmds = restore_commands(current, backup)
    assert "mlnx_qos -i eth0 --trust pcp" in cmds and "cma_roce_tos -d mlx5_0 -p 1 -t 0" in cmds
    restored, _ = simulate(current, cmds)
    assert driver_model.dump(restored) == driver_model.dump(backup)
    # and the other way round (journal rollback to a configured state), including a partial DSCP table
    partial = copy.deepcopy(current)
    restored, _ = simulate(backup, restore_commands(backup, partial))
    assert driver_model.dump(restored) == driver_model.dump(partial)
    change = DRIVER.restore(snap(current), snap(backup))
    assert change.payload == cmds and "dscp -> pcp" in change.diff
    assert DRIVER.restore(snap(backup), snap(backup)).empty


def test_diff_table_and_ranges() -> None:
    assert dscp_ranges({"0": 0, "1": 0, "2": 1, "26": 3}) == "0-1:0 2:1 26:3"
    assert dscp_ranges({}) == "(none)"
    text, summary = diff_table({"a": {"b": 1, "c": [1]}}, {"a": {"b": 2, "d": "x"}})
    assert summary == {"add": 1, "replace": 1, "remove": 1}
    assert "a.b  1 -> 2" in text and "a.c  [1] -> (absent)" in text


def test_netplan_and_sysctl_conf_commands() -> None:
    files = render_device(lab_host()).files
    cmds = driver_model.netplan_commands(files["netplan.yaml"])
    assert cmds[:6] == ["ip link set dev eth0 mtu 9000", "ip addr replace 10.128.0.1/31 dev eth0",
                        "ip route replace 10.128.0.0/17 via 10.128.0.0 dev eth0",
                        "ip route replace default via 10.128.0.0 dev eth0 table 100",
                        "ip rule add from 10.128.0.1 table 100", "ip link set dev eth1 mtu 9000"]
    assert "sysctl -w net.ipv4.conf.all.arp_ignore=1" in driver_model.sysctl_conf_commands(files["sysctl.conf"])


def test_expected_normalises_sysctl_blanks() -> None:
    assert shown_sysctls({"net.ipv4.tcp_rmem": "4096  87380\t6291456"}) == {"net.ipv4.tcp_rmem": "4096 87380 6291456"}
    intent = lab_host().model_copy(update={"sysctls": {"net.ipv4.tcp_rmem": "4096  87380  6291456"}})
    expected = DRIVER.expected(intent)  # renders: the boot files' hashes come with it
    assert expected.sysctls == {"net.ipv4.tcp_rmem": "4096 87380 6291456"}
    assert expected.boot is not None and set(expected.boot.files or {}) == {INSTALL_TARGETS[n].path for n in PERSISTED}


def test_host_state_is_deterministic_json() -> None:
    state = fresh_state(lab_host())
    text = driver_model.dump(state)
    assert json.loads(text) == state and driver_model.dump(json.loads(text)) == text
    with pytest.raises(driver_model.PlanError):
        driver_model.load('{"format": "something else"}')
