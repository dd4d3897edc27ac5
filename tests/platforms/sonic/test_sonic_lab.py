"""The SONiC lab personality over real Netmiko sessions on loopback: state, transactions, layouts, faults."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini, netmiko_connect

from roceops.device.compare import compare
from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedSwitch
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.sonic import DRIVER, PLATFORM
from roceops.platforms.sonic import parsers as P
from roceops.platforms.sonic import parsers_control as PC

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[3]
FIX = REPO.parent / "shared" / "fixtures" / "sonic"
FRESH, CONFIGURED = "leaf-su1-r1", "leaf-su1-r2"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    fab = lab_mini()
    specs = lab_specs(fab, [FRESH]) + lab_specs(fab, [CONFIGURED], configured=True)
    base, port = free_endpoint_base()
    thread = LabThread(specs, tmp_path_factory.mktemp("sonic-lab"), port=port, base_address=base).start()
    try:
        yield thread
    finally:
        thread.stop()


def connect(lab: LabThread, name: str) -> Any:
    return netmiko_connect(lab, name, PLATFORM.name)


@pytest.fixture(scope="module")
def fresh(lab: LabThread) -> Iterator[Any]:
    conn = connect(lab, FRESH)
    try:
        yield conn
    finally:
        conn.disconnect()


@pytest.fixture(scope="module")
def configured(lab: LabThread) -> Iterator[Any]:
    conn = connect(lab, CONFIGURED)
    try:
        yield conn
    finally:
        conn.disconnect()


def intent_of(name: str) -> SwitchIntent:
    intent = plan(lab_mini(), name)
    assert isinstance(intent, SwitchIntent)
    return intent


def running(conn: Any) -> str:
    return str(conn.send_command("sonic-cfggen -d --print-data"))


def heredoc(conn: Any, path: str, text: str) -> str:
    conn.write_channel("\n".join([f"cat > {path} <<'EOF'", *text.splitlines(), "EOF"]) + "\n")
    return str(conn.read_until_pattern(pattern=rf"{re.escape(conn.base_prompt)}\$\s*$", read_timeout=20))


# --------------------------------------------------------------------------- state


def test_fresh_switch_has_metadata_and_cabled_ports_only(fresh: Any) -> None:
    db = json.loads(running(fresh))
    assert sorted(db) == ["BREAKOUT_CFG", "DEVICE_METADATA", "PORT"]
    # sonic-cfggen's first-boot BREAKOUT_CFG: hwsku.json's default_brkout_mode of every cage in use
    assert {e["brkout_mode"] for e in db["BREAKOUT_CFG"].values()} == {"2x400G[200G,100G,50G,40G,25G,10G]"}
    assert sorted(db["DEVICE_METADATA"]["localhost"]) == ["hostname", "hwsku", "mac", "platform"]
    assert db["DEVICE_METADATA"]["localhost"]["hostname"] == FRESH
    assert len(db["PORT"]) == 8
    # as Mellanox-SN5600-O128's port_config.ini boots it: Ethernet8 = lanes 8-11, etp2a (first half of cage 2)
    assert db["PORT"]["Ethernet8"] == {"admin_status": "down", "alias": "etp2a", "index": "2",
                                       "lanes": "8,9,10,11", "mtu": "9100", "speed": "400000"}
    status = P.show_interfaces_status(fresh.send_command("show interfaces status"))
    assert {r["oper"] for r in status.values()} == {"down"} and {r["admin"] for r in status.values()} == {"down"}
    yang = pytest.importorskip("roceops.platforms.sonic.yang")
    with contextlib.suppress(yang.YangUnavailable):
        assert yang.get_validator().validate(db) == []


def test_preloaded_switch_is_configured_and_saved(configured: Any) -> None:
    db = json.loads(running(configured))
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3" and "PFC_WD" in db
    assert db["DEVICE_METADATA"]["localhost"]["mac"]  # kept from the switch, merged as `config load` does
    saved = configured.send_command("sonic-cfggen -j /etc/sonic/config_db.json --print-data")
    assert json.loads(saved) == db


def test_audit_reads_the_preloaded_switch_back_as_its_intent(configured: Any) -> None:
    """collect -> observe -> compare(expected): a configured switch shows exactly its intent, port by port."""
    intent = intent_of(CONFIGURED)
    observed = DRIVER.observe(DRIVER.collect(configured, intent))
    assert isinstance(observed, ObservedSwitch) and observed.ports is not None
    assert set(intent.ports) <= set(observed.ports)
    eth0 = observed.ports["Ethernet0"]
    assert eth0.queues is not None and eth0.queues[3].lossless is True and eth0.dscp_to_tc == intent.qos.dscp_to_tc
    assert compare(DRIVER.expected(intent), observed) == []


def test_heredoc_writes_a_file_with_continuation_prompts(fresh: Any) -> None:
    out = heredoc(fresh, "/tmp/hello.json", '{\n  "a": "b"\n}')
    assert out.replace("\r", "").count("\n> ") == 4  # bash's PS2 after the command line and each body line
    assert fresh.send_command("cat /tmp/hello.json") == '{\n  "a": "b"\n}'
    assert fresh.send_command("rm -f /tmp/hello.json") == ""
    assert "No such file or directory" in fresh.send_command("cat /tmp/hello.json")
    assert "Permission denied" in heredoc(fresh, "/etc/sonic/x.json", "{}")


def test_checkpoint_apply_patch_rollback_restores_exactly(fresh: Any) -> None:
    before = running(fresh)
    assert "Checkpoint created successfully." in fresh.send_command("sudo config checkpoint t1")
    assert json.loads(fresh.send_command("sudo config list-checkpoints")) == ["t1"]
    patch = [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"},
             {"op": "add", "path": "/PORT_QOS_MAP", "value": {"Ethernet0": {"pfc_enable": "3"}}},
             {"op": "add", "path": "/INTERFACE", "value": {"Ethernet0": {}, "Ethernet0|10.9.0.0/31": {}}}]
    heredoc(fresh, "/tmp/t1.json", json.dumps(patch, indent=2))
    out = fresh.send_command("sudo config apply-patch /tmp/t1.json")
    assert out.endswith("Patch applied successfully.")
    after = json.loads(running(fresh))
    assert after["PORT"]["Ethernet0"]["mtu"] == "9216" and "Ethernet0|10.9.0.0/31" in after["INTERFACE"]
    assert P.show_pfc_priority(fresh.send_command("show pfc priority"))["Ethernet0"] == [3]
    assert fresh.send_command("sudo config rollback t1").endswith("Config rolled back successfully.")
    assert running(fresh) == before
    assert fresh.send_command("sudo config delete-checkpoint t1") == "Checkpoint deleted successfully."
    gone = fresh.send_command("sudo config rollback t1")
    assert "Failed to rollback config" in gone and "Error: Checkpoint 't1' does not exist" in gone
    assert fresh.send_command("sudo config list-checkpoints") == "[]"


def test_apply_patch_refuses_invalid_results_and_changes_nothing(fresh: Any) -> None:
    before = running(fresh)
    heredoc(fresh, "/tmp/bad.json", json.dumps([{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": 9216}]))
    out = fresh.send_command("sudo config apply-patch /tmp/bad.json")
    assert "Failed to apply patch due to: Given patch will produce invalid config" in out
    assert 'Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH' in out
    heredoc(fresh, "/tmp/empty.json", json.dumps([{"op": "remove", "path": "/PORT"}, {"op": "add", "path": "/PORT",
                                                                                      "value": {}}]))
    assert "will result in empty tables" in fresh.send_command("sudo config apply-patch /tmp/empty.json")
    heredoc(fresh, "/tmp/gone.json", json.dumps([{"op": "remove", "path": "/PORT/Ethernet999"}]))
    assert "Failed to apply patch due to: can't remove a non-existent object 'Ethernet999'" in fresh.send_command(
        "sudo config apply-patch /tmp/gone.json")
    heredoc(fresh, "/tmp/dry.json", json.dumps([{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"}]))
    dry = fresh.send_command("sudo config apply-patch /tmp/dry.json --dry-run")
    assert dry.startswith("** DRY RUN EXECUTION **") and dry.endswith("Patch applied successfully.")
    try:
        from roceops.platforms.sonic.yang import YangUnavailable, get_validator

        get_validator()
    except (ImportError, YangUnavailable):
        pass
    else:  # SONiC's YANG models reject what the CLI would accept as a string
        heredoc(fresh, "/tmp/yang.json", json.dumps([{"op": "replace", "path": "/PORT/Ethernet0/mtu",
                                                      "value": "99999"}]))
        assert "Given patch will produce invalid config. Error:" in fresh.send_command(
            "sudo config apply-patch /tmp/yang.json")
    assert running(fresh) == before
    fresh.send_command("rm -f /tmp/bad.json /tmp/empty.json /tmp/gone.json /tmp/dry.json /tmp/yang.json")


def test_config_save_load_and_root(fresh: Any) -> None:
    assert fresh.send_command("config save -y") == "Root privileges are required for this operation"
    assert fresh.send_command("sudo config interface mtu Ethernet16 9000") == ""
    out = fresh.send_command("sudo config save -y")
    assert out == "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json"
    saved = fresh.send_command("sonic-cfggen -j /etc/sonic/config_db.json --print-data")
    assert saved == running(fresh) and json.loads(saved)["PORT"]["Ethernet16"]["mtu"] == "9000"
    heredoc(fresh, "/tmp/load.json", json.dumps({"PORT": {"Ethernet16": {"mtu": "9100"}}}))
    assert fresh.send_command("sudo config load -y /tmp/load.json").startswith("Running command: ")
    port = json.loads(running(fresh))["PORT"]["Ethernet16"]
    assert port["mtu"] == "9100" and port["lanes"] == "16,17,18,19"  # merged, nothing deleted
    assert fresh.send_command("sudo config interface startup Ethernet16") == ""
    assert json.loads(fresh.send_command("sonic-cfggen -d --var-json PORT"))["Ethernet16"]["admin_status"] == "up"
    fresh.send_command("sudo config interface shutdown Ethernet16")
    fresh.send_command("sudo config save -y")
    fresh.send_command("rm -f /tmp/load.json")


def test_redis_cli_views(configured: Any) -> None:
    keys = configured.send_command("redis-cli -n 4 keys 'PFC_WD|*'").splitlines()
    assert keys[0] == '1) "PFC_WD|Ethernet0"' and keys[-1].endswith('"PFC_WD|GLOBAL"')
    fields = configured.send_command("redis-cli -n 4 hgetall 'PFC_WD|Ethernet0'").splitlines()
    assert fields == ['1) "action"', '2) "drop"', '3) "detection_time"', '4) "200"', '5) "restoration_time"',
                      '6) "400"']
    assert configured.send_command("redis-cli -n 4 hgetall 'PFC_WD|Nope'") == "(empty array)"
    assert "command not found" in configured.send_command("frobnicate")


# --------------------------------------------------------------------------- layouts


def headers(text: str) -> list[tuple[str, ...]]:
    return [t.headers for t in P.tables(text)]


@pytest.mark.parametrize(("command", "fixture"), [
    ("show interfaces status", "show_interfaces_status.txt"),
    ("show pfc priority", "show_pfc_priority.txt"),
    ("show pfc counters", "show_pfc_counters.txt"),
    ("show queue counters", "show_queue_counters.txt"),
    ("show queue wredcounters", "show_queue_wredcounters.txt"),
    ("pfcwd show config", "pfcwd_show_config.txt"),
    ("show pfcwd config", "pfcwd_show_config.txt"),
    ("pfcwd show stats", "pfcwd_show_stats.txt"),
])
def test_show_commands_print_the_fixture_layout(configured: Any, command: str, fixture: str) -> None:
    out = configured.send_command(command)
    expected = (FIX / fixture).read_text()
    assert headers(out)[0] == headers(expected)[0]
    header_line = next(line for line in out.splitlines() if line.strip().startswith(headers(out)[0][0]))
    fixture_line = next(line for line in expected.splitlines() if line.strip().startswith(headers(expected)[0][0]))
    assert header_line.startswith(" ") == fixture_line.startswith(" ")  # same alignment of the first column
    first = next(line for line in out.splitlines() if line.strip())
    assert first.split()[0] == next(line for line in expected.splitlines() if line.strip()).split()[0]


def test_show_layout_details(configured: Any) -> None:
    assert configured.send_command("show pfc priority").startswith("\nInterface    Lossless priorities\n")
    assert configured.send_command("pfcwd show config").splitlines()[0] == "Changed polling interval to 100ms"
    ecn = configured.send_command("ecnconfig -l")
    assert ecn.startswith("Profile: AZURE_LOSSLESS\n----------------------  -------\n")
    assert P.ecnconfig_l(ecn)["AZURE_LOSSLESS"]["green_min_threshold"] == "153600"
    assert configured.send_command("show ecn") == ecn
    buffers = P.show_buffer_information(configured.send_command("show buffer information"))
    # Mellanox-SN5600-O128 buffers_defaults_t0.j2 (a leaf is a ToRRouter): dynamic egress pool of 158229504 B
    assert buffers["pools"]["egress_lossless_pool"] == {"mode": "dynamic", "size": "158229504", "type": "egress"}
    js = json.loads(configured.send_command("show queue counters Ethernet8 --json"))
    fixture = json.loads((FIX / "show_queue_counters_ethernet8_json.json").read_text())
    assert set(js) == set(fixture) and set(js["Ethernet8"]["UC3"]) == set(fixture["Ethernet8"]["UC3"])
    assert int(js["Ethernet8"]["UC3"]["totalpacket"]) > 0
    lldp = configured.send_command("show lldp table")
    assert lldp.splitlines()[0] == "Capability codes: (R) Router, (B) Bridge, (O) Other"
    assert lldp.splitlines()[-2:] == ["-" * 50, "Total entries displayed:  8"]
    assert PC.show_lldp_table(lldp)["Ethernet16"] == {"device": "spine01", "port": "Ethernet3/1", "capability": "BR",
                                                     "port_descr": f"{CONFIGURED}:Ethernet16"}
    assert PC.show_lldp_table(lldp)["Ethernet0"]["device"] == "gpu001"
    bgp = PC.show_ip_bgp_summary(configured.send_command("show ip bgp summary"))
    assert bgp["router_id"] == "10.0.0.2" and len(bgp["neighbors"]) == 4
    assert {n["state"] for n in bgp["neighbors"].values()} == {"Established"}
    assert PC.show_version(configured.send_command("show version"))["SONiC Software Version"].startswith("SONiC.")
    errs = P.show_interfaces_counters_errors(configured.send_command("show interfaces counters errors"))
    assert errs["Ethernet0"]["state"] == "U" and errs["Ethernet0"]["rx_err"] == 0
    fec = P.show_interfaces_counters_fec_stats(configured.send_command("show interfaces counters fec-stats"))
    assert fec["Ethernet0"]["fec_uncorr"] == 0 and fec["Ethernet0"]["fec_corr"] > 0


# --------------------------------------------------------------------------- faults


def test_config_faults_edit_running_config(lab: LabThread, configured: Any) -> None:
    lab.inject(CONFIGURED, "pfc_off", port="Ethernet8")
    assert P.show_pfc_priority(configured.send_command("show pfc priority"))["Ethernet8"] == []
    lab.inject(CONFIGURED, "ecn_changed", min=100000, max=900000)
    ecn = P.ecnconfig_l(configured.send_command("ecnconfig -l"))["AZURE_LOSSLESS"]
    assert (ecn["green_min_threshold"], ecn["red_max_threshold"]) == ("100000", "900000")
    lab.inject(CONFIGURED, "mtu_mismatch", port="Ethernet16")
    assert P.show_interfaces_status(configured.send_command("show interfaces status"))["Ethernet16"]["mtu"] == 1500
    intent = intent_of(CONFIGURED)  # audit finds each fault where it is: the shared ECN profile on every port
    drift = {d.path for d in compare(DRIVER.expected(intent), DRIVER.observe(DRIVER.collect(configured, intent)))}
    assert drift == {"ports[Ethernet8].pfc_priorities", "ports[Ethernet16].mtu",
                     *(f"ports[{p}].queues[3].ecn.{f}" for p in intent.ports for f in ("min_bytes", "max_bytes"))}
    lab.clear(CONFIGURED)  # configuration changes stay
    assert P.show_pfc_priority(configured.send_command("show pfc priority"))["Ethernet8"] == []
    assert configured.send_command("sudo config interface pfc priority Ethernet8 3 on") == ""  # an operator fixes it
    assert configured.send_command("sudo config interface pfc priority Ethernet8 3 on") == (
        "Priority 3 has already been enabled on Ethernet8")
    assert P.show_pfc_priority(configured.send_command("show pfc priority"))["Ethernet8"] == [3]


def test_reject_config_refuses_every_write(lab: LabThread, configured: Any) -> None:
    before = running(configured)
    lab.inject(CONFIGURED, "reject_config")
    try:
        out = configured.send_command("sudo config save -y")
        assert out == (f"Sorry, user admin is not allowed to execute '/usr/local/bin/config save -y' as root on "
                       f"{CONFIGURED}.")
        assert "Sorry, user admin" in configured.send_command("sudo config checkpoint x")
        assert "Sorry, user admin" in configured.send_command("sudo config interface mtu Ethernet0 1500")
        assert running(configured) == before
    finally:
        lab.clear(CONFIGURED)
    assert "Checkpoint created successfully." in configured.send_command("sudo config checkpoint x")
    configured.send_command("sudo config delete-checkpoint x")


def test_link_down_and_flap(lab: LabThread, configured: Any) -> None:
    lab.inject(CONFIGURED, "link_down", port="Ethernet24")
    try:
        status = P.show_interfaces_status(configured.send_command("show interfaces status"))
        assert status["Ethernet24"]["oper"] == "down" and status["Ethernet0"]["oper"] == "up"
        assert "Ethernet24" not in PC.show_lldp_table(configured.send_command("show lldp table"))
        assert P.show_interfaces_counters_errors(configured.send_command(
            "show interfaces counters errors"))["Ethernet24"]["state"] == "D"
    finally:
        lab.clear(CONFIGURED)
    first = P.show_interfaces_flap(configured.send_command("show interfaces flap"))["Ethernet20"]["flaps"]
    lab.inject(CONFIGURED, "link_flap", port="Ethernet20")
    try:
        time.sleep(1.2)
        later = P.show_interfaces_flap(configured.send_command("show interfaces flap"))["Ethernet20"]["flaps"]
        assert later > first
    finally:
        lab.clear(CONFIGURED)


def test_pause_storm_and_crc_errors(lab: LabThread, configured: Any) -> None:
    lab.inject(CONFIGURED, "pause_storm", port="Ethernet0")
    lab.inject(CONFIGURED, "crc_errors", port="Ethernet0")
    try:
        a = P.show_pfc_counters(configured.send_command("show pfc counters"))["rx"]["Ethernet0"][3] or 0
        e1 = P.show_interfaces_counters_errors(configured.send_command("show interfaces counters errors"))
        time.sleep(0.3)
        b = P.show_pfc_counters(configured.send_command("show pfc counters"))["rx"]["Ethernet0"][3] or 0
        e2 = P.show_interfaces_counters_errors(configured.send_command("show interfaces counters errors"))
        assert b - a > 5000  # ~50,000 pause frames/s
        assert (e2["Ethernet0"]["rx_err"] or 0) > (e1["Ethernet0"]["rx_err"] or 0)
        assert e2["Ethernet8"]["rx_err"] == 0
        stats = P.pfcwd_show_stats(configured.send_command("pfcwd show stats"))
        assert stats[("Ethernet0", 3)]["status"] == "stormed" and stats[("Ethernet0", 3)]["storm_detected"] == 1
        fec = P.show_interfaces_counters_fec_stats(configured.send_command("show interfaces counters fec-stats"))
        assert (fec["Ethernet0"]["fec_uncorr"] or 0) > 0
    finally:
        lab.clear(CONFIGURED)
    stats = P.pfcwd_show_stats(configured.send_command("pfcwd show stats"))
    assert stats[("Ethernet0", 3)]["status"] == "operational" and stats[("Ethernet0", 3)]["storm_restored"] == 1


def test_apply_patch_refuses_what_gcus_validators_refuse(configured: Any) -> None:
    """The lab's 202411 switch (lab-mini pins 202411) enforces GCU's field-operation rules with GCU's text."""
    from roceops.platforms.sonic.driver import write_file

    write_file(configured, "/tmp/new-wred.json", json.dumps([{"op": "add", "path": "/WRED_PROFILE/X",
                                                             "value": {"ecn": "ecn_all"}}]))
    out = configured.send_command("sudo config apply-patch /tmp/new-wred.json")
    assert ("Failed to apply patch due to: Modification of WRED_PROFILE table is illegal- validating function "
            "generic_config_updater.field_operation_validators.rdma_config_update_validator returned False") in out
    assert "X" not in P.ecnconfig_l(configured.send_command("ecnconfig -l"))
    write_file(configured, "/tmp/tune.json", json.dumps([{"op": "replace", "value": "160000",
                                                         "path": "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold"}]))
    assert "Patch applied successfully." in configured.send_command("sudo config apply-patch /tmp/tune.json")
    write_file(configured, "/tmp/undo.json", json.dumps([{"op": "replace", "value": "153600",
                                                         "path": "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold"}]))
    assert "Patch applied successfully." in configured.send_command("sudo config apply-patch /tmp/undo.json")
