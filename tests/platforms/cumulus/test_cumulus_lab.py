"""The Cumulus NVUE lab personality over real Netmiko sessions (LabThread on loopback): nv set/unset/diff/
apply/detach, commit-confirmed that reverts or keeps, rollback to a revision, the revision list, and every
fault a switch supports showing up in the show command an operator would use."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini, netmiko_connect

from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.lab.sshserver import LabDeviceSpec
from roceops.platforms.cumulus import PLATFORM
from roceops.platforms.cumulus import parsers as p

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[3]
LEAF = "leaf-su2-r1"
FAULT_DEVICES = ("pfc_off", "pfc_off_port", "ecn_changed", "mtu_mismatch", "reject_config", "link_down",
                 "link_flap", "pause_storm", "crc_errors")


def _copies(spec: LabDeviceSpec, names: list[str]) -> list[LabDeviceSpec]:
    return [spec.model_copy(update={"name": n}, deep=True) for n in names]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    fresh = lab_specs(lab_mini(), [LEAF])[0]
    configured = lab_specs(lab_mini(), [LEAF], configured=True)[0]
    specs = _copies(fresh, ["fresh"]) + _copies(configured, ["leaf", "confirm", "confirm_yes", "rollback",
                                                                     *FAULT_DEVICES])
    base, port = free_endpoint_base()
    thread = LabThread(specs, tmp_path_factory.mktemp("cumulus-lab") / "state", port=port, base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


def connect(lab: LabThread, name: str) -> Any:
    return netmiko_connect(lab, name, PLATFORM.name)


@pytest.fixture
def session(lab: LabThread, request: pytest.FixtureRequest) -> Iterator[Any]:
    conn = connect(lab, request.param)
    try:
        yield conn
    finally:
        conn.disconnect()


def run(conn: Any, command: str) -> str:
    return str(conn.send_command(command))


def applied(conn: Any) -> str:
    return run(conn, "nv config show -o commands")


def rev_id(output: str) -> int:
    m = re.search(r"applied \[rev_id: (\d+)\]", output)
    assert m, output
    return int(m.group(1))


# --------------------------------------------------------------------------- shell and nv set


@pytest.mark.parametrize("session", ["fresh"], indirect=True)
def test_prompt_errors_and_set_diff_apply_detach(session: Any) -> None:
    assert session.find_prompt() == f"admin@{LEAF}:mgmt:~$"
    assert run(session, "hostname") == LEAF
    assert "command not found" in run(session, "vtysh-ish")
    assert run(session, "nv set chassis fan speed 9").startswith("Error: Invalid Command: set chassis")
    assert "integer:552 - 9216" in run(session, "nv set interface swp1 link mtu 99999")
    factory = applied(session)
    assert factory.splitlines() == ["nv set interface eth0 ip address dhcp", "nv set interface eth0 ip vrf mgmt",
                                    "nv set interface eth0 type eth", f"nv set system hostname {LEAF}"]

    assert run(session, "nv set interface swp1 link mtu 9000 && nv set interface swp1 description 'to gpu 5'") == ""
    assert run(session, "nv set qos pfc default-global switch-priority 3") == ""
    diff = run(session, "nv config diff")
    assert diff.startswith("- set:") and "mtu: 9000" in diff and "description: to gpu 5" in diff
    assert run(session, "nv config diff applied pending -o commands").splitlines() == [
        "nv set interface swp1 description 'to gpu 5'", "nv set interface swp1 link mtu 9000",
        "nv set qos pfc default-global switch-priority 3"]
    assert "pending" in run(session, "nv config revision")
    assert run(session, "nv config detach") == ""
    assert run(session, "nv config diff") == "" and applied(session) == factory

    run(session, "nv set interface swp1 link mtu 9000")
    first = rev_id(run(session, "nv config apply -y"))
    assert "nv set interface swp1 link mtu 9000" in applied(session)
    run(session, "nv unset interface swp1 link mtu")
    assert "- unset:" in run(session, "nv config diff")
    second = rev_id(run(session, "nv config apply -y"))
    assert second > first and applied(session) == factory
    assert run(session, "nv config save") == "saved [rev_id: applied]"
    table = p.parse_tables(run(session, "nv config revision"))[0]
    assert table.header == ["Rev ID", "State", "Apply ID", "Apply Date", "Type", "User", "Reason", "Message"]
    assert [r[0] for r in table.rows] == ["1", str(first), str(second)]
    assert {r[1] for r in table.rows} == {"applied_and_saved"} and table.rows[-1][5] == "admin"


@pytest.mark.parametrize("session", ["leaf"], indirect=True)
def test_preloaded_leaf_shows_the_rendered_config(session: Any) -> None:
    from roceops.plan import plan
    from roceops.platforms.templating import render_device

    rendered = render_device(plan(lab_mini(), LEAF)).files["nvue.commands"].splitlines()
    lines = applied(session).splitlines()
    assert set(rendered) <= set(lines) and len(lines) == len(rendered) + 3  # + eth0 from the factory
    assert p.parse_qos_pfc(run(session, "nv show qos pfc default-global"))["switch-priority"] == [3]
    yaml_text = run(session, "nv config show")
    assert yaml_text.startswith("- header:") and "      swp1:" in yaml_text
    assert "Error: The requested item does not exist." in run(session, "nv show interface swp99 counters qos")


# --------------------------------------------------------------------------- transactions


def test_commit_confirmed_reverts_unless_confirmed(lab: LabThread) -> None:
    late, kept = connect(lab, "confirm"), connect(lab, "confirm_yes")
    try:
        before = applied(late)
        for conn in (late, kept):
            run(conn, "nv set interface swp2 link mtu 1500")
        rolled = rev_id(run(late, "nv config apply --confirm 2s -y"))
        confirmed = rev_id(run(kept, "nv config apply --confirm 2s -y"))
        assert "nv set interface swp2 link mtu 1500" in applied(late)
        status = p.parse_tables(run(late, "nv config apply --confirm-status"))[0]
        assert dict((r[0], r[1]) for r in status.rows)["state"] == "confirm"
        assert run(late, "nv set interface swp2 link mtu 1600 && nv config apply -y").startswith("Error: rev_id")
        run(late, "nv config detach")
        assert run(kept, "nv config apply --confirm-yes") == f"confirmed [rev_id: {confirmed}]"
        time.sleep(2.3)
        assert applied(late) == before  # exactly the previous applied revision
        assert "no pending confirm" in run(late, "nv config apply --confirm-yes").lower()
        assert run(late, "nv config apply --confirm-status") == "No configuration is waiting for confirmation."
        assert re.search(rf"^{rolled}\s+rolled_back", run(late, "nv config revision"), re.MULTILINE)
        assert "nv set interface swp2 link mtu 1500" in applied(kept)

        run(kept, "nv set interface swp2 link mtu 1400")
        rev_id(run(kept, "nv config apply --confirm 60s -y"))
        assert run(kept, "nv config apply --confirm-no").startswith("rolled back")
        assert "nv set interface swp2 link mtu 1500" in applied(kept)
    finally:
        late.disconnect()
        kept.disconnect()


@pytest.mark.parametrize("session", ["rollback"], indirect=True)
def test_apply_an_older_revision_rolls_back(session: Any) -> None:
    before = applied(session)
    old = int(p.parse_tables(run(session, "nv config revision"))[0].rows[-1][0])
    run(session, "nv unset qos && nv unset router bgp && nv set interface swp3 link state down")
    rev_id(run(session, "nv config apply -y"))
    assert "nv set qos" not in applied(session) and "swp3 link state down" in applied(session)
    assert rev_id(run(session, f"nv config apply {old} -y")) == old
    assert applied(session) == before
    states = {r[0]: (r[1], r[2]) for r in p.parse_tables(run(session, "nv config revision"))[0].rows}
    assert states[str(old)] == ("applied_and_saved", f"rev_{old}_apply_2")
    assert run(session, "nv config apply 999 -y").startswith("Error: The requested revision")


# --------------------------------------------------------------------------- faults


def _swp(conn: Any, port: str, what: str) -> str:
    return run(conn, f"nv show interface {port} {what}")


def test_config_faults_show_up(lab: LabThread) -> None:
    conns = {n: connect(lab, n) for n in ("pfc_off", "pfc_off_port", "ecn_changed", "mtu_mismatch", "reject_config")}
    try:
        lab.inject("pfc_off", "pfc_off")
        assert p.parse_qos_pfc(run(conns["pfc_off"], "nv show qos pfc default-global"))["switch-priority"] == []
        assert p.parse_roce_status(_swp(conns["pfc_off"], "swp1s0", "qos roce status"))["pfc-priority"] == []

        lab.inject("pfc_off_port", "pfc_off", port="swp1s1", priority=3)
        c = conns["pfc_off_port"]
        assert p.parse_roce_status(_swp(c, "swp1s1", "qos roce status"))["pfc-priority"] == []
        assert p.parse_roce_status(_swp(c, "swp1s0", "qos roce status"))["pfc-priority"] == [3]
        assert "nv set interface swp1s1 qos pfc profile pfc-swp1s1" in applied(c)

        lab.inject("ecn_changed", "ecn_changed", min=40000, max=200000)
        ecn = p.parse_qos_congestion_control(run(conns["ecn_changed"], "nv show qos congestion-control default-global"))
        assert (ecn[3]["min"], ecn[3]["max"]) == (40000, 200000)

        lab.inject("mtu_mismatch", "mtu_mismatch", port="swp2s1")
        link = p.load_json(run(conns["mtu_mismatch"], "nv show interface swp2s1 link -o json"), "link")
        assert link["mtu"] == 1500 and "nv set interface swp2s1 link mtu 1500" in applied(conns["mtu_mismatch"])

        lab.inject("reject_config", "reject_config")
        c = conns["reject_config"]
        out = run(c, "nv set interface swp1s0 link mtu 9000")
        assert out.startswith("Error: Invalid config [rev_id:") and "Config invalid at interface.swp1s0.link.mtu" in out
        assert run(c, "nv config apply -y").startswith("Invalid config [rev_id:")
        lab.clear("reject_config")
        assert run(c, "nv set interface swp1s0 link mtu 9000") == ""
        lab.clear("mtu_mismatch")  # clearing stops faults but leaves configuration changes in place
        assert "swp2s1 link mtu 1500" in applied(conns["mtu_mismatch"])
    finally:
        for conn in conns.values():
            conn.disconnect()


def _sample(conns: dict[str, Any]) -> dict[str, Any]:
    """The one show command per fault an operator would look at."""
    return {
        "link_down": p.parse_interfaces_json(run(conns["link_down"], "nv show interface -o json"))["swp1s0"],
        "link_flap": p.parse_interfaces_json(run(conns["link_flap"], "nv show interface -o json"))["swp1s0"],
        "pause_storm": p.parse_counters_qos(_swp(conns["pause_storm"], "swp1s0", "counters qos")),
        "crc_errors": p.parse_counters_errors(_swp(conns["crc_errors"], "swp1s0", "counters errors")),
    }


def test_operational_faults_show_up(lab: LabThread) -> None:
    names = ("link_down", "link_flap", "pause_storm", "crc_errors")
    conns = {n: connect(lab, n) for n in names}
    try:
        for n in names:
            lab.inject(n, n, port="swp1s0")
        first = _sample(conns)
        time.sleep(1.1)
        second = _sample(conns)
        summary = run(conns["link_down"], "nv show interface")
        assert re.search(r"^swp1s0\s+down\s", summary, re.MULTILINE) and re.search(r"^swp1s1\s+up\s", summary,
                                                                                 re.MULTILINE)
        assert second["link_down"]["oper_up"] is False and second["link_down"]["lldp"] is None
        flaps = [s["link_flap"]["stats"]["carrier-transitions"] for s in (first, second)]
        assert flaps[1] > flaps[0]
        storm = [s["pause_storm"]["pfc"][3]["rx-pause-frames"] for s in (first, second)]
        assert storm[1] - storm[0] > 20000
        wd = p.parse_pfc_watchdog(_swp(conns["pause_storm"], "swp1s0", "qos pfc-watchdog"))
        assert wd["status"][3] == {"status": "DEADLOCK", "deadlock-count": 1}
        crc = [s["crc_errors"]["FCS Errors"]["rx"] for s in (first, second)]
        assert crc[1] - crc[0] > 100
        ber = p.parse_ber_view(run(conns["crc_errors"], "nv show interface --view ber"))
        assert ber["swp1s0"]["eff-errs"] > 0 and ber["swp1s1"]["eff-errs"] == 0
        lab.clear("pause_storm")
        wd = p.parse_pfc_watchdog(_swp(conns["pause_storm"], "swp1s0", "qos pfc-watchdog"))
        assert wd["status"][3]["status"] == "OK"
    finally:
        for conn in conns.values():
            conn.disconnect()


def test_bad_fault_parameters_are_clear_errors(lab: LabThread) -> None:
    from roceops.lab.personality import LabError

    with pytest.raises(LabError, match="has no port 'swp99'"):
        lab.inject("leaf", "mtu_mismatch", port="swp99")
    with pytest.raises(LabError, match="takes max, min"):
        lab.inject("leaf", "ecn_changed", threshold=3)
    with pytest.raises(LabError, match="unknown fault 'nic_reset'"):
        lab.inject("leaf", "nic_reset")


@pytest.mark.parametrize("line", [
    "echo ROCEOPS-OUT-0'' ; nv show interface swp1 counters qos ; echo ROCEOPS-OUT-end''",
    "nv set a b && nv set 'x y' z || echo fail",
    "a;b&&c",
    "echo 'it''s' x",
    "nv set interface swp1 description 'to host 1'",
    "echo \"double $HOME\" ; ls | wc -l",
    "a ;; b",
])
def test_the_fast_line_splitter_agrees_with_shlex(line: str) -> None:
    import shlex

    from roceops.lab.devices.cumulus.device import _split_line

    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    want: list[tuple[str, list[str]]] = []
    sep, argv = "", []
    for tok in lex:
        if tok in (";", "&&", "||"):
            want.append((sep, argv))
            sep, argv = tok, []
        else:
            argv.append(tok)
    want.append((sep, argv))
    assert _split_line(line) == [(s, a) for s, a in want if a]


def test_a_dwrr_traffic_class_without_a_bandwidth_shows_zero_as_nvue_does() -> None:
    # NVUE prints DWRR-0% for a TC nobody gave a bandwidth (fixtures/cumulus/nv_show_qos_roce_lossy_multi_tc.txt)
    from roceops.lab.devices.cumulus.view import build_view

    tree = {("qos", "roce", "enable"): "on",
            ("qos", "egress-queue-mapping", "default-global", "switch-priority", "1", "traffic-class"): "1"}
    view = build_view(tree, ["swp1"], {"swp1": "400G"})
    assert (view.ets_label(1), view.ets_label(0), view.ets_label(6)) == ("DWRR-0%", "DWRR-50%", "strict-priority")
    assert build_view({}, ["swp1"], {"swp1": "400G"}).ets_label(2) == "DWRR-0%"  # no preset, nothing set
