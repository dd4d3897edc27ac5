"""The host driver's fast paths give exactly what the plain code they replace gave: the read batch's answer cut after
its start marker, its done lines counted and its outputs split at the markers by searching for the marker text
(instead of splitting, joining and pattern-matching the whole ~140 kB answer), the sysfs dump merged from one parse
per text, and ECN files recognised once per path. Checked on synthetic answers with every odd line ending and
stray marker, and on every host of lab-mini and of a 2-SU lab fabric (in-process lab, the answers as read)."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import example_dict

from roceops.device.intent import HostIntent
from roceops.device.observed import ObservedGid
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.inprocess import InProcessConnection
from roceops.lab.personality import SessionInfo, get_personality
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import DRIVER
from roceops.platforms.linux_mlx5 import driver as drv
from roceops.platforms.linux_mlx5 import driver_model as dm
from roceops.platforms.linux_mlx5 import observe as ob
from roceops.platforms.linux_mlx5.batch_text import after_begin, done_lines, segments
from roceops.platforms.linux_mlx5.driver import DriverError
from roceops.platforms.linux_mlx5.driver_boot import CMD_GIDS
from roceops.platforms.linux_mlx5.parsers import parse_ip_json, parse_sysfs_grep
from roceops.platforms.linux_mlx5.parsers_boot import parse_show_gids
from roceops.platforms.text import marked_segments
from roceops.topology.expand import expand

TOKEN = "0badcafe"

# the code the fast paths replaced, kept here as the reference


def old_after_begin(raw: str, token: str) -> str:
    lines = raw.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == f":RO{token}:begin"), None)
    if start is None:
        raise DriverError("the host's answer has no start marker (is this a POSIX shell?)")
    return "\n".join(lines[start + 1:])


def old_done_ends(buf: str, needle: str, start: int, stop: int) -> list[int]:
    done = re.compile(rf"^{needle}\d+[ \t]*$", re.MULTILINE)
    return [m.end() for m in done.finditer(buf, start, stop)]


def old_segments(text: str, token: str) -> list[str]:
    return marked_segments(text, f":RO{token}:", re.compile(rf"^:RO{token}:(\d+)\s*$"))


def old_ecn_entries(values: dict[str, str]) -> dict[str, list[tuple[str, str | None, str | None, str]]]:
    out: dict[str, list[tuple[str, str | None, str | None, str]]] = {}
    for path, value in values.items():
        if path.startswith("/sys/class/net/") and (m := dm._ECN.match(path)):
            dev, side, prio, name = m.groups()
            out.setdefault(dev, []).append((side, prio, name, value))
    return out


def old_named(outputs: dict[str, str], pattern: re.Pattern[str], whole: bool = True) -> dict[str, str]:
    match = pattern.fullmatch if whole else pattern.match
    return {m.group(1): text for cmd, text in outputs.items() if (m := match(cmd))}


def old_shown(sysfs: dict[str, str]) -> set[str]:
    return {path.split("/")[4] for path in sysfs if path.startswith("/sys/class/net/")}


def old_sysfs_dump(outputs: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for cmd, text in outputs.items():
        if cmd.startswith("grep -r -H -s . "):
            out.update(parse_sysfs_grep(text))
    return out


M = f":RO{TOKEN}:"
ANSWERS = [
    f"echo '{M}''begin'; ip -j addr show; echo '{M}'$?\n{M}begin\n[]\n{M}0\nhost$ ",
    f"prompt$ echo ... wrapped\r\n{M}begin\r\nout\r\n{M}0\r\nline\r\n{M}1\r\n$ ",  # CR LF line ends
    f"{M}begin\n\n{M}0\n{M}0 \n{M}12\t\n",  # empty output, blanks after the status, final newline
    f"  {M}begin  \nx {M}0\n{M}0x\n{M}\n{M}-1\n:ROffffffff:0\n{M}7\nrest",  # marker inside lines, bad statuses
    f"{M}begin\n{M}begin\na\n\n\n{M}3\n\n",  # two start markers, trailing empty lines
    f"a\x0bb\n{M}begin\nc\x0cd\n{M}0\ne\u2028f\n{M}1\n",  # other line breaks: the plain path
    f"{M}begin",  # nothing after the start marker
    f"{M}begi\n{M}0\n",  # no start marker
    f"{M}0\n{M}begin\n{M}\u0661\n{M}1\n",  # a non-ASCII digit: \d matches it
    "",
]


@pytest.mark.parametrize("raw", ANSWERS)
def test_the_answer_is_cut_after_its_start_marker_as_before(raw: str) -> None:
    try:
        want: Any = old_after_begin(raw, TOKEN)
    except DriverError as exc:
        want = str(exc)
    try:
        got: Any = after_begin(raw, TOKEN)
    except DriverError as exc:
        got = str(exc)
    assert got == want


@pytest.mark.parametrize("raw", ANSWERS)
def test_done_lines_are_the_lines_the_pattern_found(raw: str) -> None:
    for needle in (M, f"{M}end:"):
        text = raw.replace(f"{M}1", f"{M}end:1")
        cuts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
        for a in cuts:
            for b in cuts:
                if a <= b:
                    assert done_lines(text, needle, a, b) == old_done_ends(text, needle, a, b), (needle, a, b)


@pytest.mark.parametrize("raw", ANSWERS)
def test_outputs_are_split_at_the_markers_as_before(raw: str) -> None:
    assert segments(raw, M) == old_segments(raw, TOKEN)


def lab_fabric_2su() -> FabricIntent:
    """bench/common.py's lab_fabric(2): two SUs of 32 hosts."""
    return FabricIntent.model_validate({
        "name": "lab-bench-2su", "node": {"rails": 8}, "scalable_units": {"count": 2, "nodes_per_su": 32},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"},
        "overrides": {"groups": {"su2": {"platform": "cumulus"}}},
    })


def lab_hosts() -> Iterator[tuple[HostIntent, Any]]:
    """(intent, in-process connection) of every host of lab-mini and of a 2-SU lab fabric, configured."""
    for intent_data in (FabricIntent.model_validate(example_dict("lab-mini")), lab_fabric_2su()):
        fabric = expand(intent_data)
        for spec in lab_specs(fabric, configured=True):
            if spec.platform != "linux_mlx5":
                continue
            personality = get_personality(spec.platform)
            state = personality.state_factory(spec.name, spec.platform, spec.extra)
            session = personality.session_factory(state, SessionInfo(username="admin", pty=True))
            intent = plan(fabric, spec.name)
            assert isinstance(intent, HostIntent)
            yield intent, InProcessConnection(session)


def test_every_lab_host_reads_and_parses_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    answers: list[tuple[str, str, int]] = []  # (raw answer, done needle, commands) of every batch
    real_send = drv.LinuxMlx5Driver._send

    def send(self: Any, conn: Any, line: str, done: str, count: int = 1) -> str:
        raw = real_send(self, conn, line, done, count)
        answers.append((raw, done, count))
        return raw

    monkeypatch.setattr(drv.LinuxMlx5Driver, "_send", send)
    hosts = 0
    for intent, conn in lab_hosts():
        answers.clear()
        outputs = DRIVER.collect(conn, intent)
        hosts += 1
        (raw, needle, count), = answers
        token = needle[3:-1]
        assert len(old_done_ends(raw, needle, 0, raw.rfind("\n") + 1)) == count
        assert done_lines(raw, needle, 0, raw.rfind("\n") + 1) == old_done_ends(raw, needle, 0,
                                                                                      raw.rfind("\n") + 1)
        assert list(outputs.values()) == old_segments(old_after_begin(raw, token), token)
        sysfs = ob.sysfs_dump(outputs)
        assert sysfs == old_sysfs_dump(outputs) and len(sysfs) > 100
        assert dm.ecn_entries(sysfs) == old_ecn_entries(sysfs) and len(dm.ecn_entries(sysfs)) == len(intent.nics)
        assert {path[15:].partition("/")[0] for path in sysfs if path.startswith("/sys/class/net/")} \
            == old_shown(sysfs)
        for pattern, whole in NAMED:
            assert ob._named(outputs, pattern, whole) == old_named(outputs, pattern, whole)
        assert len(ob._named(outputs, ob._QOS_CMD)) == len(intent.nics)
        assert ob.links_by_name(outputs[dm.CMD_ADDR]) == {e["ifname"]: e for e in parse_ip_json(outputs[dm.CMD_ADDR])}
        gids = [ObservedGid.model_validate(row) for row in parse_show_gids(outputs[CMD_GIDS])]
        assert ob._gids(outputs) == gids and len(gids) >= len(intent.nics)
    assert hosts == 8 + 64


NAMED = [(ob._QOS_CMD, True), (ob._MODE_CMD, True), (ob._TOS_CMD, True), (ob._NIC_MODE_CMD, True),
         (ob._MLXCONFIG_CMD, False)]


@pytest.mark.parametrize(("pattern", "whole"), NAMED)
def test_commands_are_named_as_by_the_pattern_alone(pattern: re.Pattern[str], whole: bool) -> None:
    outputs = dict.fromkeys(["mlnx_qos -i eth0 -a", "mlnx_qos -i eth0 -a ", " mlnx_qos -i eth0 -a", "mlnx_qos -i  -a",
                             "cma_roce_mode -d mlx5_0 -p 1", "cma_roce_tos -d mlx5_0 -p 1", "cma_roce_tos -d a b -p 1",
                             "mlxconfig -d mlx5_0 -e query", "mlxconfig -d mlx5_0 -e query LINK_TYPE_P1 2>&1",
                             "mlxconfig -d mlx5_0 -e queryx", "mlxconfig -e -d mlx5_1 query INTERNAL_CPU_MODEL 2>&1",
                             dm.cmd_roce_mode("mlx5_3"), dm.cmd_mlnx_qos("eth9")], "x")
    assert ob._named(outputs, pattern, whole) == old_named(outputs, pattern, whole)


def test_shared_parses_are_left_as_parsed() -> None:
    """observe and operational share the parsed ``ip -j addr show``, ``rdma`` and ``mlnx_qos`` answers: what they
    return does not change them."""
    intent, conn = next(lab_hosts())
    outputs = DRIVER.collect(conn, intent)
    links = copy.deepcopy(ob.links_by_name(outputs[dm.CMD_ADDR]))
    qos = {cmd: copy.deepcopy(ob._qos_observed(text)) for cmd, text in outputs.items() if cmd.startswith("mlnx_qos")}
    first = DRIVER.observe(outputs)
    DRIVER.operational(outputs)
    assert first.nics is not None and len(first.nics) == len(intent.nics)
    nic = next(iter(first.nics.values()))
    assert nic.pfc_priorities is not None and nic.dscp_to_priority is not None
    nic.pfc_priorities.append(99)  # a caller changing what it got
    nic.dscp_to_priority[99] = 99
    assert ob.links_by_name(outputs[dm.CMD_ADDR]) == links
    assert {cmd: ob._qos_observed(text) for cmd, text in outputs.items() if cmd.startswith("mlnx_qos")} == qos
    assert DRIVER.observe(dict(outputs)) != first


@pytest.mark.parametrize("path", [
    "/sys/class/net/eth0/ecn/roce_np/enable/3", "/sys/class/net/eth0/ecn/roce_rp/enable/8",
    "/sys/class/net/eth0/ecn/roce_np/enable", "/sys/class/net/eth0/ecn/roce_rp/rpg_gd",
    "/sys/class/net/eth0/ecn/roce_rp/Rpg", "/sys/class/net/a/b/ecn/roce_np/x", "/sys/class/net/eth0/speed",
    "/sys/class/net//ecn/roce_np/x", "/sys/class/net/eth0/ecn/roce_xp/x", "/sys/class/net/eth0/ecn/roce_np/x\n",
])
def test_ecn_paths_are_read_as_the_pattern_reads_them(path: str) -> None:
    values = {path: "1", "/sys/class/net/eth1/ecn/roce_np/cnp_dscp": "48"}
    assert dm.ecn_entries(values) == old_ecn_entries(values)
    assert dm.ecn_entries(values) == old_ecn_entries(values)  # from the remembered paths


def test_the_shared_sysfs_parse_is_not_changed_by_its_callers() -> None:
    text = "/sys/class/net/eth0/speed:400000\n/sys/class/net/eth0/ecn/roce_np/cnp_dscp:48\n"
    outputs = {"grep -r -H -s . /sys/class/net/eth0/": text}
    first = ob.sysfs_dump(outputs)
    first["/sys/class/net/eth0/speed"] = "changed"
    assert ob.sysfs_dump(outputs) == parse_sysfs_grep(text)


def old_parse_sysfs_grep(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("/"):
            path, sep, value = line.partition(":")
            if sep:
                out[path] = value.strip()
    return out


@pytest.mark.parametrize("text", [
    "/a/b:1\n/a/c: 2 \n", "/a/b:1\r\n/a/c:2\r\n", "/a/b:1\x0b/a/c:2\n", "/a/b:1\u2028/a/b:3", "grep: /x: denied\n/y:\n",
    "\n\n/a\n/a:b:c\n x/y:1\n", "", "/only",
])
def test_sysfs_dumps_parse_as_line_by_line(text: str) -> None:
    assert parse_sysfs_grep(text) == old_parse_sysfs_grep(text)
