"""The personalities' read paths without SSH: what they keep between reads (derived texts, parsed configs) follows
every change, counters still move, and the fast paths (tokenizers, table templates, one-pass sysfs walks) answer
exactly what the general code answers."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from labtools import lab_mini

from roceops.lab.devices.cumulus import device as cumulus_lab
from roceops.lab.devices.cumulus.schema import commands_text
from roceops.lab.devices.cumulus.table import Layout, kv_table, sub_table
from roceops.lab.devices.eos import counters as eos_counters
from roceops.lab.devices.eos import routing as eos_routing
from roceops.lab.devices.eos import show as eos_show
from roceops.lab.devices.eos.device import EosState
from roceops.lab.devices.linux_mlx5 import fs as lab_fs
from roceops.lab.devices.linux_mlx5 import shell as lab_shell
from roceops.lab.devices.linux_mlx5.device import LinuxMlx5State
from roceops.lab.devices.sonic import show as sonic_show
from roceops.lab.devices.sonic.format import cfggen_dump, tabulate
from roceops.lab.devices.sonic.state import SonicState
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import DeviceState, Session, SessionInfo, get_personality
from roceops.lab.physical import COUNTER_KEYS, Physical
from roceops.platforms.sonic.parsers_config_db import port_id_keyed
from roceops.util.sorting import natsorted


def _device(name: str, username: str = "admin") -> tuple[DeviceState, Callable[[str], str]]:
    spec = next(s for s in lab_specs(lab_mini(), configured=True) if s.name == name)
    personality = get_personality(spec.platform)
    state = personality.state_factory(spec.name, spec.platform, spec.extra)
    session: Session = personality.session_factory(state, SessionInfo(username=username, pty=True))

    def run(line: str) -> str:
        reply: Any = session.handle(line)
        return str(getattr(reply, "text", reply))

    return state, run


def _freeze(physical: Physical) -> list[float]:
    """Stop ``physical``'s clock; returns the cell holding the time, to move it by hand."""
    now = [physical.clock() + 100.0]
    physical.clock = lambda: now[0]
    return now


# --------------------------------------------------------------------------- physical layer


def test_counter_reads_agree_keep_order_and_move() -> None:
    phys = Physical("dev", [{"name": "p1"}, {"name": "p2"}], lossless=(3, 4))
    now = _freeze(phys)
    phys.apply("pause_storm", "p1")
    phys.apply("crc_errors", "p1")
    for port in ("p1", "p2"):
        snap = phys.snapshot(port)
        assert list(snap) == sorted(COUNTER_KEYS)
        assert all(phys.value(port, k) == v for k, v in snap.items())
    before = phys.snapshot("p1")
    now[0] += 2.0
    after = phys.snapshot("p1")
    assert after["rx_packets"] > before["rx_packets"] and after["pfc_rx_3"] > before["pfc_rx_3"]
    assert after["crc_errors"] > before["crc_errors"]


# --------------------------------------------------------------------------- Cumulus


def test_cumulus_shows_follow_config_changes_and_faults() -> None:
    state, run = _device("leaf-su2-r1", "cumulus")
    assert isinstance(state, cumulus_lab.CumulusState)
    _freeze(state.physical)
    wd = run("nv show interface swp1s0 qos pfc-watchdog")
    status = run("nv show interface swp1s0 qos roce status")
    neighbors = json.loads(run("nv show vrf default router bgp neighbor -o json"))
    commands = run("nv config show -o commands")
    assert "state  enabled      enabled" in wd and "pfc-priority      3" in status

    run("nv set interface swp1s0 qos pfc-watchdog state disable")
    run("nv set vrf default router bgp neighbor 10.1.0.16 description changed")
    run("nv config apply -y")
    assert run("nv show interface swp1s0 qos pfc-watchdog") != wd
    assert "PFC WD Status" not in run("nv show interface swp1s0 qos pfc-watchdog")
    assert json.loads(run("nv show vrf default router bgp neighbor -o json"))["10.1.0.16"]["description"] == "changed"
    changed = run("nv config show -o commands")
    assert changed != commands and "nv set interface swp1s0 qos pfc-watchdog state disable" in changed
    assert changed == commands_text(state.applied).rstrip("\n")

    state.apply_fault("pfc_off")
    assert "pfc-priority      3" not in run("nv show interface swp1s0 qos roce status")
    state.apply_fault("link_down", port="swp3s0")
    assert json.loads(run("nv show vrf default router bgp neighbor -o json"))["10.1.0.16"]["state"] == "active"
    state.clear_faults()
    assert json.loads(run("nv show vrf default router bgp neighbor -o json"))["10.1.0.16"]["state"] == "established"
    assert neighbors["10.1.0.16"]["state"] == "established"


def test_cumulus_watchdog_status_follows_a_pause_storm() -> None:
    state, run = _device("leaf-su2-r1", "cumulus")
    assert "DEADLOCK" not in run("nv show interface swp1s0 qos pfc-watchdog")
    state.apply_fault("pause_storm", port="swp1s0")
    assert "DEADLOCK" in run("nv show interface swp1s0 qos pfc-watchdog")


def test_layout_renders_what_its_render_function_renders() -> None:
    def render(rows: list[list[str]]) -> str:
        return "\n".join([*kv_table(rows[:3], ("operational", "applied", "description")), "",
                          *sub_table("T", ["a", "b", "c"], rows[3:], min_widths=(2,))])

    spec: list[list[str | int]] = [["x", 0, "", "first"], ["{y}", 0, "", ""], ["z", "s", "", "d"],
                                   ["1", 1, 2], ["2", "n/a", 2]]
    layout = Layout(render, spec)
    rnd = random.Random(1)
    for _ in range(300):
        values = [rnd.choice(["", "0", "7", "144 Bytes", "92824.38 GB", str(rnd.randint(0, 10**14)), "{}", "%s"])
                  for _ in range(layout.slots)]
        slot = iter(values)
        direct = render([[c if isinstance(c, str) else next(slot) for c in row] for row in spec])
        assert layout.text(values) == direct


@pytest.mark.parametrize("line", [
    "echo A'' ; nv show interface swp1 counters qos ; echo B''", "a && b || c ; d", "echo 'a b' ; x",
    "echo 'a;b' && y", "x ; ; y", "a '' b", "echo ''''", "p && ; q",
])
def test_cumulus_line_splitter_fast_path_agrees_with_shlex(line: str) -> None:
    assert cumulus_lab._split_simple(line) == _shlex_split(line)


def _shlex_split(line: str) -> list[tuple[str, list[str]]]:
    import shlex

    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    out: list[tuple[str, list[str]]] = []
    sep, argv = "", list[str]()
    for tok in lex:
        if tok in (";", "&&", "||"):
            out.append((sep, argv))
            sep, argv = tok, []
        else:
            argv.append(tok)
    out.append((sep, argv))
    return [(s, a) for s, a in out if a]


# --------------------------------------------------------------------------- SONiC


def test_sonic_shows_follow_config_changes() -> None:
    state, run = _device("leaf-su1-r1")
    assert isinstance(state, SonicState)
    status = run("show interfaces status")
    assert state.db_read() is state.db_read()  # parsed once per running config
    first = state.db_read()
    state.apply_fault("mtu_mismatch", port="Ethernet0", mtu=1500)
    assert state.db_read() is not first and state.db_read() == state.db()
    changed = run("show interfaces status")
    assert changed != status
    assert "1500" in next(line for line in changed.splitlines() if line.split()[0] == "Ethernet0")
    assert json.loads(run("sonic-cfggen -d --var-json PORT"))["Ethernet0"]["mtu"] == "1500"


def test_sonic_wred_counter_tables_are_the_tabulate_tables() -> None:
    state, _ = _device("leaf-su1-r1")
    assert isinstance(state, SonicState)
    _freeze(state.physical)
    db = state.db_read()
    ecn = sonic_show._ecn_queues(port_id_keyed(db.get("QUEUE", {}), copy=False), db.get("WRED_PROFILE", {}))
    for base in (0.0, 7.0, 1e13):
        state.physical.ports["Ethernet0"].counter("ecn_marked").base = base
        for enabled in (True, False):
            expected = tabulate(sonic_show._wred_rows(state, "Ethernet0", enabled, ecn("Ethernet0")),
                                sonic_show._WRED_HEADERS, stralign="right", text=True) + "\n"
            doc = {**db, "FLEX_COUNTER_TABLE": {"WRED_ECN_QUEUE": {"FLEX_COUNTER_STATUS": "enable" if enabled
                                                                   else "disable"}}}
            assert sonic_show.queue_wredcounters(state, doc, ["Ethernet0"]) == expected


def _reference_tabulate(rows: list[list[Any]], headers: list[str], stralign: str, numalign: str) -> str:
    """The straightforward form of lab_format.tabulate."""
    def number(v: str) -> bool:
        try:
            float(v)
        except ValueError:
            return False
        return v.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity")

    cells = [[str(v) for v in row] for row in rows]
    ncols = len(headers) if headers else max((len(r) for r in cells), default=0)
    columns = [[r[i] if i < len(r) else "" for r in cells] for i in range(ncols)]
    aligns = [numalign if col and all(number(v) for v in col) else stralign for col in columns]
    widths = [max([len(headers[i]) + 2 if headers else 0, *(len(v) for v in columns[i])]) for i in range(ncols)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if a == "right" else v.ljust(w) for v, w, a in zip(values, widths, aligns,
                                                                                      strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [line(list(headers)), rule] if headers else [rule]
    out.extend(line(row + [""] * (ncols - len(row))) for row in cells)
    if not headers:
        out.append(rule)
    return "\n".join(out)


def test_sonic_tabulate_matches_the_reference() -> None:
    rnd = random.Random(3)
    values: list[Any] = ["0", "12", "1,200", "N/A", "abc", "", " 5", "nan", "1e5", "\u00b2", "-3", "3.5", 7, "x y"]
    for _ in range(3000):
        ncols = rnd.randint(0, 4)
        headers = [rnd.choice(["A", "Port", "", "Long header"]) for _ in range(ncols)] if rnd.random() < 0.7 else []
        width = ncols if headers else rnd.randint(0, 4)
        rows = [[rnd.choice(values) for _ in range(rnd.randint(max(width - 1, 0), width))]
                for _ in range(rnd.randint(0, 4))]
        stralign, numalign = rnd.choice([("left", "right"), ("right", "right"), ("left", "left")])
        expected = _reference_tabulate(rows, headers, stralign, numalign)
        assert tabulate(rows, headers, stralign=stralign, numalign=numalign) == expected  # type: ignore[arg-type]


def _cfggen_value(value: Any) -> Any:
    return value if isinstance(value, list) else str(value)


def test_cfggen_dump_is_json_dumps_indent_4_in_natural_order() -> None:
    rnd = random.Random(4)
    values: list[Any] = ["a", "", "\u00e9", 'x"y', "{}", "}", "1", 5, ["a", "b"], None, "tab\t", "x\n"]
    for _ in range(2000):
        doc = {rnd.choice(["PORT", "QUEUE", "A1", "A10"]): {
            rnd.choice(["Ethernet0", "Ethernet10", "Ethernet2|3", "k{", ""]): {
                rnd.choice(["mtu", "b", "a", "\u00fc"]): rnd.choice(values) for _ in range(rnd.randint(0, 4))}
            for _ in range(rnd.randint(0, 3))} for _ in range(rnd.randint(0, 3))}
        # leaf-lists stay lists (ConfigDBConnector's "field@"); every other value is printed as str(value)
        ordered = {t: {k: {f: _cfggen_value(doc[t][k][f]) for f in sorted(doc[t][k])} for k in natsorted(doc[t])}
                   for t in natsorted(doc)}
        assert cfggen_dump(doc) == json.dumps(ordered, indent=4)


# --------------------------------------------------------------------------- Linux host


def test_linux_qos_reads_follow_changes() -> None:
    state, run = _device("gpu001")
    before = run("mlnx_qos -i eth0 -a")
    assert "\tenabled     0   0   0   1" in before
    state.apply_fault("pfc_off", port="eth0")
    after = run("mlnx_qos -i eth0 -a")
    assert "\tenabled     0   0   0   0" in after
    assert run("mlnx_qos -i eth1 -a") == before  # the other NIC keeps its PFC


def test_linux_one_pass_tree_read_equals_walk_then_read() -> None:
    state, _ = _device("gpu001")
    assert isinstance(state, LinuxMlx5State)
    _freeze(state.physical)
    state.apply_fault("crc_errors")
    for top in ("/", "/sys/class/net/eth0/ecn/", "/sys/class/net/eth0/ecn/roce_rp",
                "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/", "/sys/class/net/eth0/speed", "/nope"):
        expected = []
        for path in _walk(state, top):
            try:
                expected.append((path, lab_fs.read(state, path)))
            except lab_fs.FsError as exc:
                expected.append((path, exc.strerror))
        got = [(p, c.strerror if isinstance(c, lab_fs.FsError) else c) for p, c in lab_fs.read_tree(state, top)]
        assert got == expected


def _walk(state: LinuxMlx5State, path: str) -> list[str]:
    entries = lab_fs.listdir(state, path)
    if entries is None:
        return [path]
    return [f for e in entries for f in _walk(state, f"{path.rstrip('/')}/{e}")]


def test_linux_grep_reads_sysfs_trees() -> None:
    state, run = _device("gpu001")
    out = run("grep -r -H -s . /sys/class/net/eth0/ecn/roce_np/ /sys/class/net/eth0/mtu")
    assert "/sys/class/net/eth0/ecn/roce_np/enable/3:1" in out.splitlines()
    assert out.splitlines()[-1] == "/sys/class/net/eth0/mtu:9000"
    state.apply_fault("nic_reset", port="eth0")
    assert run("grep -r '^48$' /sys/class/net/eth0/ecn/") == "/sys/class/net/eth0/ecn/roce_np/cnp_dscp:48"


@pytest.mark.parametrize("line", [
    "echo ':RO1:''begin'; ip -j addr show; echo ':RO1:'$?", "echo '$?' $? 2>&1", "a 2>/dev/null && b || c",
    "echo x2>y", "cat /sys/class/net/*/mtu", "echo \"$USER\" ~", "x # comment", "echo 'unterminated",
])
def test_linux_fast_tokenizer_agrees_with_the_general_one(line: str) -> None:
    fast = lab_shell._tokenize_fast(line)
    if fast is None:
        return  # the line needs the general tokenizer
    saved = lab_shell._tokenize_fast
    try:
        lab_shell._tokenize_fast = lambda _line: None  # type: ignore[assignment]
        general = lab_shell.tokenize(line)
    finally:
        lab_shell._tokenize_fast = saved
    assert fast == general


# --------------------------------------------------------------------------- EOS


def test_eos_reads_follow_config_changes_and_link_faults() -> None:
    state, run = _device("spine01")
    run("enable")
    config = run("show running-config")
    bgp = json.loads(run("show ip bgp summary | json"))["vrfs"]["default"]["peers"]
    assert bgp and all(p["peerState"] == "Established" for p in bgp.values())
    for line in ("configure", "interface Ethernet1/1", "description changed-by-test", "end"):
        run(line)
    changed = run("show running-config")
    assert changed != config and "   description changed-by-test" in changed
    state.apply_fault("link_down", port="Ethernet1/1")
    down = json.loads(run("show ip bgp summary | json"))["vrfs"]["default"]["peers"]
    assert sum(p["peerState"] != "Established" for p in down.values()) == 1


def test_eos_json_written_directly_is_json_dumps_of_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    state, run = _device("spine01")
    assert isinstance(state, EosState)
    _freeze(state.physical)
    monkeypatch.setattr(eos_show.time, "time", lambda: 1_700_000_000.25)  # the time module: routing's too
    names = eos_show._all_names(state)
    for fault in (None, "link_down", "crc_errors", "pause_storm"):
        if fault:
            state.apply_fault(fault, port="Ethernet1/1")
        for encoded in (eos_show._interfaces_json_text(state, names), eos_show._interfaces_json_text(state, names[:1]),
                        eos_counters.pfc_counters_json(state, True), eos_counters.pfc_counters_json(state, False),
                        eos_counters.ecn_counters_json(state, True), eos_routing.bgp_json_text(state)):
            assert encoded.text == json.dumps(encoded.data())
    run("enable")
    small = run("show interfaces Ethernet1/1 | json")  # 4096 characters or fewer: EOS indents it
    assert small.startswith("{\n  ")
    assert json.loads(small) == eos_show._interfaces_json_text(state, ["Ethernet1/1"]).data()
