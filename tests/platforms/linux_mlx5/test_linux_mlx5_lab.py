"""The linux_mlx5 lab personality over real Netmiko sessions on loopback (plus a few direct shell checks).

Each test works on its own host of inventory/lab-mini.yaml, so config-level faults do not leak
between tests; every test clears the faults it injected.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, example_dict
from labtools import free_endpoint_base, netmiko_connect

from roceops.device.compare import compare
from roceops.device.intent import HostIntent
from roceops.device.oper import for_intent
from roceops.lab.devices.linux_mlx5.device import LinuxMlx5Session, LinuxMlx5State
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import LabError, Reply, SessionInfo, UnknownFault
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import DRIVER, PLATFORM
from roceops.platforms.linux_mlx5.parsers import (
    parse_dcb_json,
    parse_dcb_text,
    parse_ethtool_fec,
    parse_ethtool_stats,
    parse_ip_json,
    parse_mlnx_qos,
    parse_sysfs_grep,
)
from roceops.topology.expand import expand

pytestmark = pytest.mark.lab

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))
HOSTS = ["gpu001", "gpu002", "gpu003", "gpu004", "gpu005", "gpu006"]
ECN = "/sys/class/net/eth0/ecn"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    base, port = free_endpoint_base()
    specs = lab_specs(FABRIC, HOSTS) + lab_specs(FABRIC, ["gpu007"], configured=True)
    thread = LabThread(specs, tmp_path_factory.mktemp("mlx5lab") / "state", port=port, base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


def connect(lab: LabThread, host: str) -> Any:
    return netmiko_connect(lab, host, PLATFORM.name)


@pytest.fixture
def session(lab: LabThread, request: pytest.FixtureRequest) -> Iterator[Any]:
    host = request.param if hasattr(request, "param") else "gpu001"
    conn = connect(lab, host)
    try:
        yield conn
    finally:
        lab.clear(host)
        conn.disconnect()


def run(conn: Any, cmd: str) -> str:
    return str(conn.send_command(cmd, read_timeout=20))


# ------------------------------------------------------------------------------------ shell, prompt, sudo


def test_prompt_sudo_and_netmiko_enable(session: Any) -> None:
    assert session.find_prompt() == "admin@gpu001:~$"
    assert run(session, "hostname") == "gpu001"
    assert run(session, "whoami; id -u") == "admin\n1000"
    assert run(session, "echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/0") == \
        "-bash: /sys/class/net/eth0/ecn/roce_np/enable/0: Permission denied"
    assert run(session, "cma_roce_tos -d mlx5_0 -p 1") == "You must be root to run this"
    assert run(session, "sudo -n cma_roce_tos -d mlx5_0 -p 1") == "0"
    assert "Invalid" not in run(session, "sudo -n sh -c 'echo 4 > /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio'")
    assert run(session, "cat /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio") == "4"
    session.enable()  # netmiko's LinuxSSH.enable(): `sudo -s`, no password needed in the lab
    assert session.find_prompt() == "root@gpu001:/home/admin#"
    assert run(session, "echo 6 > /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio; echo rc=$?") == "rc=0"
    session.exit_enable_mode()
    assert session.find_prompt() == "admin@gpu001:~$"
    assert run(session, "frobnicate --now") == "-bash: frobnicate: command not found"
    assert run(session, "uname -r; cat /etc/os-release | grep VERSION_ID") == \
        '5.15.0-113-generic\nVERSION_ID="22.04"'


def test_shell_semantics_without_ssh() -> None:
    state = LinuxMlx5State("h", "linux_mlx5", {"hostname": "h", "nics": [{"name": "eth0", "rdma_dev": "mlx5_0"}]})
    session = LinuxMlx5Session(state, SessionInfo(username="root", pty=True))
    assert session.prompt() == "root@h:~# "

    class Sh:
        @staticmethod
        def handle(line: str) -> Reply:
            reply = session.handle(line)
            return reply if isinstance(reply, Reply) else Reply(reply)

    sh = Sh()
    assert sh.handle("false || echo fallback && echo and").text == "fallback\nand"
    assert sh.handle("false; echo $?").text == "1"
    assert sh.handle("echo 'a  b' \"c $?\" d\\ e").text == "a  b c 0 d e"
    assert sh.handle(f"echo 7 > {ECN}/roce_rp/enable/9").text.endswith("No such file or directory")
    assert sh.handle(f"echo x > {ECN}/roce_rp/rpg_gd").text == "-bash: echo: write error: Invalid argument"
    assert sh.handle(f"echo 0 | tee {ECN}/roce_rp/enable/2 > /dev/null; cat {ECN}/roce_rp/enable/2").text == "0"
    assert sh.handle(f"ls {ECN}/roce_np").text.split() == ["cnp_802p_prio", "cnp_dscp", "enable",
                                                           "min_time_between_cnps"]
    assert sh.handle(f"grep -H . {ECN}/roce_np/enable/*").text.count("\n") == 7
    assert sh.handle("echo $(hostname)").text.startswith("-bash: command substitution")
    assert sh.handle("sysctl -w net.ipv4.conf.eth0.rp_filter=2; sysctl -n net.ipv4.conf.eth0.rp_filter").text == \
        "net.ipv4.conf.eth0.rp_filter = 2\n2"
    assert sh.handle("sysctl net.nope").text == "sysctl: cannot stat /proc/sys/net/nope: No such file or directory"
    reply = sh.handle("sleep 0.2")
    assert reply.delay_ms == 200


# ------------------------------------------------------------------------------------ mlnx_qos, sysfs, dcb


@pytest.mark.parametrize("session", ["gpu002"], indirect=True)
def test_mlnx_qos_set_read_round_trip_prints_the_fixture_layout(session: Any) -> None:
    fresh = parse_mlnx_qos(run(session, "mlnx_qos -i eth0"))
    assert fresh["trust"] == "pcp" and fresh["pfc"] == [] and fresh["prio_tc"][0] == 1
    run(session, "sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0")
    out = session.send_command("sudo mlnx_qos -i eth0 --trust dscp", strip_prompt=True)
    assert "\tenabled     0   0   0   1   0   0   0   0   " in out  # tabs and trailing blanks as printed
    expected = (FIXTURES / "linux_mlx5" / "mlnx_qos_trust_dscp.txt").read_text()
    assert out.expandtabs(8) + "\n" == expected
    assert parse_mlnx_qos(run(session, "mlnx_qos -i eth0")) == parse_mlnx_qos(expected)
    # ETS and a changed DSCP entry are read back
    run(session, "sudo mlnx_qos -i eth0 --prio_tc 0,1,2,3,4,5,6,7 --tsa ets,ets,ets,ets,ets,ets,strict,ets "
                 "--tcbw 40,0,0,60,0,0,0,0")
    run(session, "sudo mlnx_qos -i eth0 --dscp2prio set,26,3 --dscp2prio set,8,0")
    qos = parse_mlnx_qos(run(session, "mlnx_qos -i eth0 -a"))
    assert qos["tcs"][3] == {"tsa": "ets", "bw": 60, "ratelimit_gbps": None}
    assert qos["tcs"][6]["tsa"] == "strict" and qos["dscp2prio"][8] == 0
    assert run(session, "sudo mlnx_qos -i eth0 --tsa ets,ets,ets,ets,ets,ets,ets,ets --tcbw 50,0,0,60,0,0,0,0") \
        == "[Errno 22] Invalid argument"
    assert run(session, "sudo mlnx_qos -i eth0 --trust dscp --dscp2prio set,1,1") == \
        "trust and dscp2prio commands cannot be used at the same time."
    assert run(session, "sudo mlnx_qos -i eth0 --trust pcp").splitlines()[1] == "Priority trust state: pcp"


@pytest.mark.parametrize("session", ["gpu002"], indirect=True)
def test_sysfs_echo_cat_and_one_grep_for_every_value(session: Any) -> None:
    run(session, f"sudo sh -c 'echo 0 > {ECN}/roce_np/enable/0 && echo 77 > {ECN}/roce_rp/rpg_time_reset'")
    assert run(session, f"cat {ECN}/roce_np/enable/0 {ECN}/roce_rp/rpg_time_reset") == "0\n77"
    values = parse_sysfs_grep(run(session, "grep -r -H -s . /sys/class/net/eth0/ecn/ /sys/class/net/eth1/ecn/ "
                                           "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"))
    assert values[f"{ECN}/roce_rp/rpg_time_reset"] == "77"
    assert values["/sys/class/net/eth1/ecn/roce_np/cnp_dscp"] == "48"
    assert len([p for p in values if "/ecn/" in p]) == 2 * (16 + 3 + 16)
    assert "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent" in values
    run(session, f"sudo sh -c 'echo 300 > {ECN}/roce_rp/rpg_time_reset; echo 1 > {ECN}/roce_np/enable/0'")


@pytest.mark.parametrize("session", ["gpu003"], indirect=True)
def test_dcb_show_and_set_layouts(session: Any) -> None:
    run(session, "sudo dcb pfc set dev eth0 prio-pfc all:off 6:on 7:on delay 4096")
    assert run(session, "dcb pfc show dev eth0") + "\n" == (FIXTURES / "linux_mlx5" / "dcb_pfc_show.txt").read_text()
    run(session, "sudo dcb ets set dev eth0 prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 tc-tsa all:strict 0:ets 1:ets "
                 "2:ets tc-bw all:0 0:33 1:33 2:34")
    ets = run(session, "dcb ets show dev eth0 prio-tc tc-tsa tc-bw")
    fixture = (FIXTURES / "linux_mlx5" / "dcb_ets_show.txt").read_text()
    assert [line.split()[0] for line in ets.splitlines()] == [line.split()[0] for line in fixture.splitlines()]
    parsed = parse_dcb_text(ets)
    assert parsed["prio_tc"] == list(range(8)) and parsed["tc_tsa"] == parse_dcb_text(fixture)["tc_tsa"]
    assert parsed["tc_bw"][:3] == [33, 33, 34]  # mlx5 reports 100 for strict TCs (the man page driver 0)
    run(session, "sudo dcb app replace dev eth0 dscp-prio 26:3 48:6")
    app = run(session, "dcb -N app show dev eth0 dscp-prio")
    assert re.fullmatch(r"dscp-prio( \d+:\d)+", app) and "26:3" in app and "48:6" in app
    assert parse_dcb_json(run(session, "dcb -j app show dev eth0"))["dscp_prio"][:1] == [[26, 3]]
    assert parse_mlnx_qos(run(session, "mlnx_qos -i eth0"))["trust"] == "dscp"  # first APP entry switched trust
    buf = parse_dcb_text(run(session, "dcb buffer show dev eth0"))
    assert set(buf) == set(parse_dcb_text((FIXTURES / "linux_mlx5" / "dcb_buffer_show.txt").read_text()))
    assert parse_dcb_json(run(session, "dcb -j pfc show dev eth0"))["prio_pfc"][6:] == [True, True]
    assert run(session, "dcb pfc set dev eth0 prio-pfc 3:on") == "Attribute write: Operation not permitted"
    run(session, "sudo dcb app flush dev eth0 dscp-prio")
    assert parse_mlnx_qos(run(session, "mlnx_qos -i eth0"))["trust"] == "pcp"


# ------------------------------------------------------------------------------------ faults


def _qos(conn: Any, nic: str = "eth0") -> dict[str, Any]:
    return parse_mlnx_qos(run(conn, f"mlnx_qos -i {nic}"))


def _stats(conn: Any, nic: str = "eth0") -> dict[str, int]:
    return parse_ethtool_stats(run(conn, f"ethtool -S {nic}"))


def _configure(conn: Any) -> None:
    run(conn, "sudo mlnx_qos -i eth0 --trust dscp; sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0; "
              f"sudo sh -c 'echo 0 > {ECN}/roce_np/enable/0; echo 55 > {ECN}/roce_rp/rpg_ai_rate'; "
              "sudo cma_roce_tos -d mlx5_0 -p 1 -t 106; sudo ip link set dev eth0 mtu 9000; "
              "sudo ip link set dev eth1 mtu 9000; sudo ip addr add 10.128.0.1/31 dev eth0")


@pytest.mark.parametrize("session", ["gpu004"], indirect=True)
def test_config_faults(lab: LabThread, session: Any) -> None:
    _configure(session)
    lab.inject("gpu004", "pfc_off", port="eth0", priority=3)
    assert _qos(session)["pfc"] == []
    run(session, "sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0")
    lab.inject("gpu004", "nic_reset", netdev="eth0")
    qos = _qos(session)
    assert qos["trust"] == "pcp" and qos["pfc"] == []
    assert run(session, f"cat {ECN}/roce_np/enable/0 {ECN}/roce_rp/rpg_ai_rate") == "1\n5"
    assert run(session, "sudo cma_roce_tos -d mlx5_0 -p 1") == "0"
    link = parse_ip_json(run(session, "ip -j addr show dev eth0"))[0]
    assert link["mtu"] == 9000 and link["addr_info"][0]["local"] == "10.128.0.1"  # addresses stay
    lab.inject("gpu004", "mtu_mismatch", port="eth1")
    assert parse_ip_json(run(session, "ip -j link show dev eth1"))[0]["mtu"] == 1500
    lab.inject("gpu004", "firmware", version="28.39.2048", port="eth1")
    assert "firmware-version: 28.39.2048 (MT_0000000838)" in run(session, "ethtool -i eth1")
    assert "firmware-version: 28.42.1000" in run(session, "ethtool -i eth0")
    lab.inject("gpu004", "reject_config")
    assert run(session, "sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0") == "[Errno 1] Operation not permitted"
    assert run(session, f"sudo sh -c 'echo 0 > {ECN}/roce_np/enable/1'") == \
        f"-bash: {ECN}/roce_np/enable/1: Permission denied"
    assert run(session, "sudo ip link set dev eth1 mtu 9000") == "RTNETLINK answers: Operation not permitted"
    assert run(session, "sudo sysctl -w net.ipv4.conf.all.arp_ignore=1") == \
        'sysctl: permission denied on key "net.ipv4.conf.all.arp_ignore"'
    assert run(session, "sudo cma_roce_tos -d mlx5_0 -p 1 -t 106").splitlines() == [
        "/usr/sbin/cma_roce_tos: line 98: default_roce_tos: Permission denied", "0"]
    assert _qos(session)["pfc"] == [] and run(session, f"cat {ECN}/roce_np/enable/1") == "1"
    lab.clear("gpu004")
    assert "firmware-version: 28.42.1000" in run(session, "ethtool -i eth1")  # clear drops the override ...
    assert parse_ip_json(run(session, "ip -j link show dev eth1"))[0]["mtu"] == 1500  # ... not config changes
    run(session, "sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0")
    assert _qos(session)["pfc"] == [3]
    with pytest.raises(UnknownFault):
        lab.inject("gpu004", "ecn_changed")
    with pytest.raises(LabError, match="no NIC"):
        lab.inject("gpu004", "pfc_off", port="eth9")


@pytest.mark.parametrize("session", ["gpu005"], indirect=True)
def test_operational_faults_and_moving_counters(lab: LabThread, session: Any) -> None:
    run(session, "sudo mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0; sudo mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0")
    hw = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters"
    first, hw1 = _stats(session), parse_sysfs_grep(run(session, f"grep -r -H . {hw}/"))
    time.sleep(0.3)
    second, hw2 = _stats(session), parse_sysfs_grep(run(session, f"grep -r -H . {hw}/"))
    assert second["rx_packets_phy"] > first["rx_packets_phy"]
    assert int(hw2[f"{hw}/np_cnp_sent"]) >= int(hw1[f"{hw}/np_cnp_sent"])
    assert "rx_prio3_pause" in first and "rx_prio0_pause" not in first  # only PFC-enabled priorities

    lab.inject("gpu005", "pause_storm", port="eth0")
    a = _stats(session)["rx_prio3_pause"]
    time.sleep(0.2)
    assert _stats(session)["rx_prio3_pause"] - a > 2000

    lab.inject("gpu005", "crc_errors", port="eth1")
    c = _stats(session, "eth1")["rx_crc_errors_phy"]
    fec = parse_ethtool_fec(run(session, "ethtool -I --show-fec eth1"))["uncorrectable_blocks"]
    time.sleep(0.2)
    assert _stats(session, "eth1")["rx_crc_errors_phy"] > c
    assert parse_ethtool_fec(run(session, "ethtool -I --show-fec eth1"))["uncorrectable_blocks"] > fec

    lab.inject("gpu005", "link_down", port="eth0")
    assert "Link detected: no" in run(session, "ethtool eth0")
    assert run(session, "cat /sys/class/net/eth0/operstate /sys/class/net/eth0/speed") == "down\n-1"
    assert "NO-CARRIER" in parse_ip_json(run(session, "ip -j link show dev eth0"))[0]["flags"]
    assert "Link detected: yes" in run(session, "ethtool eth1")

    lab.clear("gpu005")
    changes = int(run(session, "cat /sys/class/net/eth1/carrier_changes"))
    lab.inject("gpu005", "link_flap", port="eth1")
    time.sleep(1.2)
    assert int(run(session, "cat /sys/class/net/eth1/carrier_changes")) > changes


def test_preloaded_host_audits_clean(lab: LabThread) -> None:
    intent = plan(FABRIC, "gpu007")
    assert isinstance(intent, HostIntent)
    conn = connect(lab, "gpu007")
    try:
        observed = DRIVER.observe(DRIVER.collect(conn, intent))
    finally:
        conn.disconnect()
    assert set(observed.nics or {}) == set(intent.nics)
    assert compare(DRIVER.expected(intent), observed) == []


def test_state_is_small(tmp_path: Path) -> None:
    import tracemalloc

    spec = lab_specs(FABRIC, ["gpu001"])[0]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    states = [LinuxMlx5State(f"h{i}", "linux_mlx5", spec.extra) for i in range(50)]
    used = (tracemalloc.get_traced_memory()[0] - before) / len(states)
    tracemalloc.stop()
    assert used < 60_000, f"{used:.0f} bytes per 2-NIC host"


@pytest.mark.parametrize("old_driver", [False, True], ids=["newer-driver", "older-driver"])
def test_both_driver_shapes_give_crc_symbol_and_pause(lab: LabThread, old_driver: bool) -> None:
    intent = plan(FABRIC, "gpu007")
    assert isinstance(intent, HostIntent)
    if old_driver:
        lab.inject("gpu007", "old_driver")
    lab.inject("gpu007", "pause_storm", port="eth0")
    conn = connect(lab, "gpu007")
    try:
        raw = str(conn.send_command("ethtool -S eth0", read_timeout=20))
        first = for_intent(DRIVER.operational(DRIVER.collect_counters(conn, intent)), intent).ports["eth0"]
        time.sleep(0.2)
        second = for_intent(DRIVER.operational(DRIVER.collect_counters(conn, intent)), intent).ports["eth0"]
    finally:
        lab.clear("gpu007")
        conn.disconnect()
    assert ("pause_ctrl_rx" in raw and "_phy" not in raw) if old_driver else ("rx_crc_errors_phy" in raw)
    assert {"crc_errors", "symbol_errors", "pause_rx", "pause_tx"} <= set(second.counters) and second.unread == {}
    storm = second.counters["pause_rx"] - first.counters["pause_rx"] if old_driver else \
        second.counters["pfc_rx_3"] - first.counters["pfc_rx_3"]
    assert storm > 2000  # the storm shows in either shape
