"""Arista EOS lab personality through real Netmiko (``arista_eos``) sessions against an in-process lab on loopback:
modes and prompts, configure terminal, configuration sessions (diff, commit, abort, commit timer, rollback
clean-config), error texts, and every switch fault visible in the show command that reports it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini
from netmiko import ConnectHandler

from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedSwitch
from roceops.lab.devices.eos.device import REJECT_ERROR
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.eos import DRIVER, PLATFORM
from roceops.platforms.eos import parsers as p

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[3]
PROMPT = r"[\w.\-]+(?:\([\w./\-]+\))?[>#]\s*$"


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LabThread]:
    """spine01 as delivered (no roceops config yet), spine02 with its rendered config preloaded."""
    specs = [*lab_specs(lab_mini(), ["spine01"]), *lab_specs(lab_mini(), ["spine02"], configured=True)]
    base, port = free_endpoint_base()
    thread = LabThread(specs, tmp_path / "lab", port=port, base_address=base).start()
    try:
        yield thread
    finally:
        thread.stop()


@pytest.fixture
def connect(lab: LabThread) -> Iterator[Callable[[str], Any]]:
    opened: list[Any] = []

    def open_(name: str) -> Any:
        o = lab.overlay[name]
        conn = ConnectHandler(device_type=PLATFORM.netmiko.device_type, host=o["host"], port=o["port"],
                              username=o["username"], use_keys=True, key_file=o["key_file"], allow_agent=False,
                              **PLATFORM.netmiko.extras)
        opened.append(conn)
        return conn

    yield open_
    for conn in opened:
        with suppress(Exception):
            conn.disconnect()


def cli(conn: Any, command: str) -> str:
    return str(conn.send_command(command, expect_string=PROMPT, read_timeout=10))


def js(conn: Any, command: str) -> dict[str, Any]:
    return json.loads(cli(conn, f"{command} | json"))


# --------------------------------------------------------------------------- modes and errors


def test_prompts_privilege_and_terminal(connect: Callable[[str], Any]) -> None:
    conn = connect("spine01")
    assert conn.find_prompt() == "spine01>"
    assert cli(conn, "show running-config") == "% Invalid input (privileged mode required)"
    assert cli(conn, "terminal length 0") == "Pagination disabled."
    assert cli(conn, "terminal width 511") == "Width set to 511 columns."
    conn.enable()
    assert conn.find_prompt() == "spine01#"
    expected = [("configure terminal", "spine01(config)#"), ("interface Et1/1", "spine01(config-if-Et1/1)#"),
                ("tx-queue 3", "spine01(config-if-Et1/1-txq-3)#"),
                ("interface Ethernet2/1", "spine01(config-if-Et2/1)#"),  # a parent-mode command moves there
                ("router bgp 65000", "spine01(config-router-bgp)#"), ("exit", "spine01(config)#"),
                ("interface Loopback0", "spine01(config-if-Lo0)#"), ("end", "spine01#"),
                ("configure session roceops-20240101", "spine01(config-s-roceop)#"),
                ("interface Ethernet1/1", "spine01(config-s-roceop-if-Et1/1)#"), ("end", "spine01#")]
    for command, prompt in expected:
        cli(conn, command)
        assert conn.find_prompt() == prompt, command
    assert "roceops-20240101" in cli(conn, "show configuration sessions")
    cli(conn, "configure session roceops-20240101 abort")


def test_invalid_input_and_eos_errors(connect: Callable[[str], Any]) -> None:
    conn = connect("spine01")
    conn.enable()
    caret, error = cli(conn, "show bogus").splitlines()
    assert error == "% Invalid input" and caret.index("^") == len("spine01#show ")
    cli(conn, "configure")
    cli(conn, "interface Ethernet1/1")
    caret, error = cli(conn, "mtu lots").splitlines()
    assert error == "% Invalid input" and caret.index("^") == len("spine01(config-if-Et1/1)#mtu ")
    assert cli(conn, "mtu 20000").startswith("% Invalid input (MTU must be between")
    assert cli(conn, "priority-flow-control priority") == "% Incomplete command"
    assert cli(conn, "interface Ethernet99/1").endswith("% Invalid input")
    cli(conn, "router bgp 65000")
    assert cli(conn, "router bgp 65001") == "% BGP is already running with AS number 65000"
    cli(conn, "end")


def test_configure_terminal_changes_running_config(connect: Callable[[str], Any]) -> None:
    conn = connect("spine01")
    conn.enable()
    assert cli(conn, "show startup-config") == "% Startup-config does not exist"
    assert cli(conn, "write memory") == "Copy completed successfully."
    saved = cli(conn, "show startup-config")
    out = conn.send_config_set(["interface Ethernet1/1", "description to leaf", "mtu 9214", "no switchport",
                                "ip address 10.9.0.0/31", "shutdown", "no shutdown", "tx-queue 3", "no priority",
                                "bandwidth percent 50", "tx-queue 6", "priority strict", "qos map dscp 26 to "
                                "traffic-class 3", "qos map dscp 27 to traffic-class 3"], error_pattern=r"^%")
    assert "%" not in out
    running = cli(conn, "show running-config")
    assert running.startswith("! Command: show running-config\n! device: spine01 (eos-8x400g, EOS-4.32.2F)")
    assert running.rstrip().endswith("!\nend")
    block = cli(conn, "show running-config interfaces Ethernet1/1")
    assert block.splitlines() == ["interface Ethernet1/1", "   description to leaf", "   mtu 9214",
                                  "   no switchport", "   ip address 10.9.0.0/31", "   !", "   tx-queue 3",
                                  "      no priority", "      bandwidth percent 50"]
    assert "qos map dscp 26 27 to traffic-class 3" in running.splitlines()  # EOS regroups the DSCP table
    assert cli(conn, "show startup-config") == saved  # edits after `write memory` stay out of startup-config
    assert saved.splitlines()[1:] != running.splitlines()[1:]
    assert "interface Ethernet10/1" not in running and running.index("interface Ethernet2/1") < running.index(
        "interface Ethernet8/1")


# --------------------------------------------------------------------------- configuration sessions


def test_session_diff_commit_and_abort(connect: Callable[[str], Any]) -> None:
    conn = connect("spine01")
    conn.enable()
    before = cli(conn, "show running-config")
    for command in ("configure session s1", "interface Ethernet2/1", "mtu 9000"):
        cli(conn, command)
    diff = cli(conn, "show session-config diffs").splitlines()
    assert diff[:2] == ["--- system:/running-config", "+++ session:/s1-session-config"]
    assert "+   mtu 9000" in diff and any(ln.startswith("@@ ") for ln in diff)
    assert cli(conn, "show running-config") == before  # nothing live before commit
    cli(conn, "commit")
    assert conn.find_prompt() == "spine01#"
    assert "   mtu 9000" in cli(conn, "show running-config interfaces Ethernet2/1")
    for command in ("configure session s2", "interface Ethernet2/1", "mtu 1500", "abort"):
        cli(conn, command)
    assert conn.find_prompt() == "spine01#"
    assert "   mtu 9000" in cli(conn, "show running-config interfaces Ethernet2/1")
    for command in ("configure session s3", "hostname other", "end"):  # leaving keeps the session pending
        cli(conn, command)
    sessions = js(conn, "show configuration sessions")["sessions"]
    assert {n: s["state"] for n, s in sessions.items()} == {"s1": "completed", "s3": "pending"}
    text = cli(conn, "show configuration sessions detail")
    assert "s3" in text and "pending" in text and "Commit Timer" in text
    cli(conn, "configure session s3 abort")
    assert "s3" not in js(conn, "show configuration sessions")["sessions"]


def _timed_change(conn: Any, session: str, timer: str) -> tuple[str, str]:
    conn.enable()
    before = cli(conn, "show running-config")
    for command in (f"configure session {session}", "interface Ethernet1/1", "description temporary", "exit",
                    "router bgp 65010", "neighbor 10.9.9.9 remote-as 65011"):
        assert "%" not in cli(conn, command)
    assert cli(conn, f"commit timer {timer}") == ""
    assert conn.find_prompt() == "spine01#"
    after = cli(conn, "show running-config")
    assert "description temporary" in after and "router bgp 65010" in after
    return before, after


def test_commit_timer_not_confirmed_reverts_exactly(connect: Callable[[str], Any]) -> None:
    conn = connect("spine01")
    before, _ = _timed_change(conn, "t1", "00:00:02")
    start = time.monotonic()
    detail = cli(conn, "show configuration sessions detail")
    row = next(ln for ln in detail.splitlines() if " t1 " in ln)
    assert "pendingCommitTimer" in row and row.rstrip()[-8:] in ("00:00:00", "00:00:01", "00:00:02")
    assert js(conn, "show configuration sessions")["sessions"]["t1"]["state"] == "pendingCommitTimer"
    time.sleep(max(0.0, 2.2 - (time.monotonic() - start)))
    assert cli(conn, "show running-config") == before
    assert "t1" not in js(conn, "show configuration sessions")["sessions"]


def test_commit_timer_confirmed_stays(connect: Callable[[str], Any]) -> None:
    conn, other = connect("spine01"), connect("spine01")  # the confirm comes from another SSH session
    other.enable()
    _, after = _timed_change(conn, "t2", "00:00:03")
    start = time.monotonic()
    assert cli(other, "configure session t2 commit") == ""
    time.sleep(max(0.0, 3.2 - (time.monotonic() - start)))
    assert cli(conn, "show running-config") == after
    assert js(conn, "show configuration sessions")["sessions"]["t2"]["state"] == "completed"


def test_rollback_clean_config_in_a_session(connect: Callable[[str], Any]) -> None:
    conn = connect("spine02")
    conn.enable()
    cli(conn, "configure session c1")
    cli(conn, "rollback clean-config")
    clean = cli(conn, "show session-config")
    assert "hostname" not in clean and "router bgp" not in clean and "qos map" not in clean
    assert "interface Ethernet1/1\n!" in clean and "no ip routing" in clean and "username admin" in clean
    assert "-hostname spine02" in cli(conn, "show session-config diffs").splitlines()
    cli(conn, "commit")
    assert conn.find_prompt() == "localhost#"
    assert "router bgp" not in cli(conn, "show running-config")


# --------------------------------------------------------------------------- faults


def test_config_faults_change_running_config(lab: LabThread, connect: Callable[[str], Any]) -> None:
    conn = connect("spine02")
    conn.enable()
    lab.inject("spine02", "pfc_off", port="Ethernet1/1")
    e1 = cli(conn, "show running-config interfaces Ethernet1/1")
    assert "priority-flow-control priority 3 no-drop" not in e1 and "priority-flow-control on" not in e1
    assert "priority-flow-control priority 3 no-drop" in cli(conn, "show running-config interfaces Ethernet2/1")
    lab.inject("spine02", "ecn_changed", min=51200, max=512000)
    assert ("random-detect ecn minimum-threshold 50 kbytes maximum-threshold 500 kbytes max-mark-probability 100"
            in cli(conn, "show running-config interfaces Ethernet3/1"))
    lab.inject("spine02", "mtu_mismatch", port="Ethernet2/1")
    assert js(conn, "show interfaces Ethernet2/1")["interfaces"]["Ethernet2/1"]["mtu"] == 1500
    lab.clear("spine02")  # clearing faults does not undo configuration changes; a re-deploy does
    assert "   mtu 1500" in cli(conn, "show running-config interfaces Ethernet2/1")


def test_preloaded_spine_reads_back_as_its_intent_and_a_port_fault_names_its_port(
        lab: LabThread, connect: Callable[[str], Any]) -> None:
    """lab device -> collect -> observe -> compare(expected): empty for the rendered config, one drift per port."""
    want = plan(lab_mini(), "spine02")
    assert isinstance(want, SwitchIntent)
    conn = connect("spine02")
    observed = DRIVER.observe(DRIVER.collect(conn, want))
    assert isinstance(observed, ObservedSwitch) and observed.ports is not None
    assert compare(DRIVER.expected(want), observed) == []
    assert set(observed.ports) == set(want.ports) and "Management1" not in observed.ports
    lab.inject("spine02", "ecn_changed", port="Ethernet4/1", min=51200, max=512000)
    drift = compare(DRIVER.expected(want), DRIVER.observe(DRIVER.collect(conn, want)))
    assert [(d.path, d.observed) for d in drift] == [("ports[Ethernet4/1].queues[3].ecn.min_bytes", 51200),
                                                     ("ports[Ethernet4/1].queues[3].ecn.max_bytes", 512000)]


def test_reject_config(lab: LabThread, connect: Callable[[str], Any]) -> None:
    conn = connect("spine02")
    conn.enable()
    before = cli(conn, "show running-config")
    lab.inject("spine02", "reject_config")
    cli(conn, "configure session r1")
    assert cli(conn, "interface Ethernet1/1") == REJECT_ERROR
    assert cli(conn, "no hostname") == REJECT_ERROR
    cli(conn, "commit")
    assert cli(conn, "show running-config") == before
    lab.clear("spine02")
    assert "%" not in conn.send_config_set(["interface Ethernet1/1", "description ok"], error_pattern=r"^%")
    assert "description ok" in cli(conn, "show running-config interfaces Ethernet1/1")


def test_operational_faults(lab: LabThread, connect: Callable[[str], Any]) -> None:
    conn = connect("spine02")
    conn.enable()
    lab.inject("spine02", "link_down", port="Ethernet3/1")
    rows = {r["port"]: r for r in p.parse_interfaces_status(cli(conn, "show interfaces status"))}
    assert rows["Et3/1"]["status"] == "notconnect" and rows["Et2/1"]["status"] == "connected"
    assert js(conn, "show interfaces status")["interfaceStatuses"]["Ethernet3/1"]["lineProtocolStatus"] == "down"
    assert "Ethernet3/1" not in p.parse_lldp_json(cli(conn, p.CMD_LLDP))
    states = [s["state"] for s in p.parse_bgp_summary_json(cli(conn, p.CMD_BGP))["peers"].values()]
    assert states.count("Established") == 7

    lab.inject("spine02", "link_flap", port="Ethernet4/1")
    flaps = js(conn, "show interfaces Ethernet4/1")["interfaces"]["Ethernet4/1"]["interfaceCounters"]
    lab.inject("spine02", "pause_storm", port="Ethernet5/1")
    lab.inject("spine02", "crc_errors", port="Ethernet6/1")
    pfc1 = p.parse_pfc_counters_json(cli(conn, p.CMD_PFC))
    crc1 = js(conn, "show interfaces counters errors")["interfaceErrorCounters"]["Ethernet6/1"]["fcsErrors"]
    time.sleep(1.1)
    flaps2 = js(conn, "show interfaces Ethernet4/1")["interfaces"]["Ethernet4/1"]["interfaceCounters"]
    assert flaps2["linkStatusChanges"] > flaps["linkStatusChanges"]
    pfc2 = p.parse_pfc_counters_json(cli(conn, p.CMD_PFC))
    assert pfc2["Ethernet5/1"]["priorities"][3][0] - pfc1["Ethernet5/1"]["priorities"][3][0] > 10_000
    assert pfc2["Ethernet2/1"]["priorities"][3][0] - pfc1["Ethernet2/1"]["priorities"][3][0] < 100
    assert p.parse_pfc_watchdog_json(cli(conn, p.CMD_PFC_WATCHDOG)) == {"Ethernet5/1": 1}
    crc2 = js(conn, "show interfaces counters errors")["interfaceErrorCounters"]["Ethernet6/1"]["fcsErrors"]
    assert crc2 - crc1 > 50
    assert "Ethernet6/1" in cli(conn, "show interfaces Ethernet6/1") and " CRC" in cli(conn, "show interfaces Et6/1")

    lab.clear("spine02")
    rows = {r["port"]: r for r in p.parse_interfaces_status(cli(conn, "show interfaces status"))}
    assert rows["Et3/1"]["status"] == "connected"


def test_counters_move_and_admin_shutdown(connect: Callable[[str], Any]) -> None:
    conn = connect("spine02")
    conn.enable()
    first = p.parse_interfaces_json(cli(conn, p.CMD_INTERFACES))["Ethernet1/1"]["counters"]["rx_packets"]
    time.sleep(0.2)
    assert p.parse_interfaces_json(cli(conn, p.CMD_INTERFACES))["Ethernet1/1"]["counters"]["rx_packets"] > first
    conn.send_config_set(["interface Ethernet1/1", "shutdown"])
    assert js(conn, "show interfaces status")["interfaceStatuses"]["Ethernet1/1"]["linkStatus"] == "disabled"
    assert "Ethernet1/1 is administratively down" in cli(conn, "show interfaces Ethernet1/1")
