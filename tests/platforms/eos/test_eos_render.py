"""Arista EOS rendering: hier_config parses every config without duplicate sections, rendering is
deterministic, and the PFC/ECN/watchdog lines read back from the parsed tree equal the intent."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import yaml
from hier_config import HConfig, Platform, get_hconfig
from hier_config.exceptions import DuplicateChildError

from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.eos import PLATFORM
from roceops.platforms.eos.render import WATCHDOG_ACTIONS, config_lines, kbytes, render_context, seconds
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = ("lab-mini", "fabric")


@cache
def fabric(example: str) -> Fabric:
    data = yaml.safe_load((REPO / "inventory" / f"{example}.yaml").read_text())
    return expand(FabricIntent.model_validate(data))


@cache
def eos_intents(example: str) -> tuple[SwitchIntent, ...]:
    fab = fabric(example)
    out = tuple(plan(fab, s.name) for s in fab.switches if s.platform == "eos")
    assert all(isinstance(i, SwitchIntent) for i in out)
    return out  # type: ignore[return-value]


@cache
def rendered(example: str, name: str) -> str:
    intent = next(i for i in eos_intents(example) if i.name == name)
    return render_device(intent).files["config.eos"]


def all_configs() -> list[tuple[str, str]]:
    return [(ex, i.name) for ex in EXAMPLES for i in eos_intents(ex)]


def intent_of(example: str, name: str) -> SwitchIntent:
    return next(i for i in eos_intents(example) if i.name == name)


def parse(text: str) -> HConfig:
    return get_hconfig(Platform.ARISTA_EOS, text)


def test_examples_have_eos_switches() -> None:
    assert len(eos_intents("lab-mini")) == 2
    assert [i.name for i in eos_intents("fabric")] == [f"spine{n:02d}" for n in range(1, 17)]


def test_platform_is_registered() -> None:
    assert get_platform("eos") is PLATFORM
    assert PLATFORM.netmiko.device_type == "arista_eos"
    assert PLATFORM.netmiko.extras["fast_cli"] is True
    assert [o.filename for o in PLATFORM.outputs] == ["config.eos"]


@pytest.mark.parametrize(("example", "name"), all_configs())
def test_hier_config_parses_without_duplicate_siblings(example: str, name: str) -> None:
    tree = parse(rendered(example, name))  # raises DuplicateChildError on a repeated section or line

    def walk(node: HConfig | object, path: tuple[str, ...]) -> None:
        texts = [c.text for c in node.children]  # type: ignore[attr-defined]
        dupes = sorted({t for t in texts if texts.count(t) > 1})
        assert not dupes, f"{name}: duplicated under {path or ('<root>',)}: {dupes}"
        for child in node.children:  # type: ignore[attr-defined]
            walk(child, (*path, child.text))

    walk(tree, ())
    intent = intent_of(example, name)
    interfaces = [c.text for c in tree.get_children(startswith="interface Ethernet")]
    assert len(interfaces) == len(intent.ports)
    assert tree.get_child(equals=f"router bgp {intent.bgp.asn}") is not None


def test_duplicate_section_is_caught() -> None:
    text = rendered("lab-mini", "spine01")
    block = text[text.index("interface Ethernet1/1"):text.index("interface Ethernet2/1")]
    with pytest.raises(DuplicateChildError):
        parse(text + block)


@pytest.mark.parametrize(("example", "name"), all_configs())
def test_deterministic(example: str, name: str) -> None:
    intent = intent_of(example, name)
    first = render_device(intent).files["config.eos"]
    again = render_device(SwitchIntent.model_validate(intent.model_dump(mode="json"))).files["config.eos"]
    assert first == again == rendered(example, name)


def test_rendering_does_not_depend_on_input_order() -> None:
    intent = intent_of("lab-mini", "spine01")
    shuffled = intent.model_copy(update={
        "ports": dict(reversed(list(intent.ports.items()))),
        "bgp": intent.bgp.model_copy(update={"neighbors": list(reversed(intent.bgp.neighbors))}),
    })
    assert render_device(shuffled).files == render_device(intent).files


_PRIO = re.compile(r"^priority-flow-control priority (\d+) no-drop$")
_ECN = re.compile(r"^random-detect ecn minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes "
                  r"max-mark-probability (\d+)$")


def read_back(tree: HConfig) -> dict[str, dict[str, object]]:
    """Per interface: PFC on, no-drop priorities, watchdog, and per tx-queue ECN (bytes, rounded to 1 KiB)."""
    out: dict[str, dict[str, object]] = {}
    for intf in tree.get_children(startswith="interface Ethernet"):
        lines = [c.text for c in intf.children]
        ecn: dict[int, tuple[int, int, int]] = {}
        counted: set[int] = set()
        for txq in intf.get_children(startswith=("tx-queue ", "uc-tx-queue ")):  # uc-: the profile's keyword
            qid = int(txq.text.split()[1])
            for line in (c.text for c in txq.children):
                if m := _ECN.match(line):
                    ecn[qid] = (int(m[1]) * 1024, int(m[2]) * 1024, int(m[3]))
                if line == "random-detect ecn count":
                    counted.add(qid)
        out[intf.text.split()[1]] = {
            "pfc_on": "priority-flow-control on" in lines,
            "no_drop": sorted(int(m[1]) for line in lines if (m := _PRIO.match(line))),
            "watchdog": "priority-flow-control pause watchdog" in lines,
            "ecn": ecn,
            "ecn_counted": counted,
        }
    return out


@pytest.mark.parametrize(("example", "name"), all_configs())
def test_pfc_ecn_watchdog_round_trip(example: str, name: str) -> None:
    intent = intent_of(example, name)
    observed = read_back(parse(rendered(example, name)))
    ecn_queues = {qid: q.ecn for qid, q in intent.qos.queues.items() if q.ecn is not None}
    assert ecn_queues, "the examples put ECN on the RoCE queue"
    pfc_ports = [p for p in intent.ports.values() if p.pfc_priorities]
    assert pfc_ports
    for port in pfc_ports:
        got = observed[port.name]
        assert got["pfc_on"], port.name
        assert got["no_drop"] == sorted(port.pfc_priorities), port.name
        assert got["watchdog"] == (port.pfc_watchdog and intent.qos.pfc_watchdog.enabled), port.name
        assert got["ecn_counted"] == set(ecn_queues), port.name
        assert got["ecn"] == {qid: (kbytes(e.min_bytes) * 1024, kbytes(e.max_bytes) * 1024, e.probability)
                              for qid, e in ecn_queues.items()}, port.name
        for qid, e in ecn_queues.items():
            lo, hi, _ = got["ecn"][qid]  # type: ignore[index]
            assert abs(lo - e.min_bytes) <= 512 and abs(hi - e.max_bytes) <= 512


@pytest.mark.parametrize(("example", "name"), all_configs())
def test_global_qos_round_trip(example: str, name: str) -> None:
    intent = intent_of(example, name)
    tree = parse(rendered(example, name))
    dscp_to_tc: dict[int, int] = {}
    for child in tree.get_children(startswith="qos map dscp "):
        words = child.text.split()
        tc = int(words[-1])
        for dscp in words[3:words.index("to")]:
            assert int(dscp) not in dscp_to_tc, f"DSCP {dscp} mapped twice"
            dscp_to_tc[int(dscp)] = tc
    assert dscp_to_tc == intent.qos.dscp_to_tc
    assert len(dscp_to_tc) == 64
    wd = intent.qos.pfc_watchdog
    expected = {
        f"priority-flow-control pause watchdog default timeout {seconds(wd.detect_ms)}",
        f"priority-flow-control pause watchdog default recovery-time {seconds(wd.restore_ms)}",
        f"priority-flow-control pause watchdog default polling-interval {seconds(wd.poll_ms)}",
        f"priority-flow-control pause watchdog action {WATCHDOG_ACTIONS[wd.action]}",
    }
    got = {c.text for c in tree.get_children(startswith="priority-flow-control pause watchdog")}
    assert got == (expected if wd.enabled else set())


def test_queue_scheduling_lines() -> None:
    intent = intent_of("lab-mini", "spine01")
    tree = parse(rendered("lab-mini", "spine01"))
    intf = tree.get_child(equals="interface Ethernet1/1")
    assert intf is not None
    for qid, q in intent.qos.queues.items():
        txq = intf.get_child(equals=f"tx-queue {qid}")
        assert txq is not None
        lines = {c.text for c in txq.children}
        if q.scheduler == "strict":
            assert "priority strict" in lines
        else:
            assert {"no priority", f"bandwidth percent {q.weight}"} <= lines


def test_non_identity_tc_to_queue_and_disabled_watchdog() -> None:
    intent = intent_of("lab-mini", "spine01")
    qos = intent.qos.model_copy(update={
        "tc_to_queue": {**intent.qos.tc_to_queue, 6: 7},
        "pfc_watchdog": intent.qos.pfc_watchdog.model_copy(update={"enabled": False}),
    })
    text = render_device(intent.model_copy(update={"qos": qos})).files["config.eos"]
    assert "qos map traffic-class 6 to tx-queue 7" in text.splitlines()
    assert "qos map traffic-class 3 to tx-queue 3" not in text
    assert "priority-flow-control pause watchdog" not in text


def test_watchdog_action_mapping() -> None:
    intent = intent_of("lab-mini", "spine01")
    for action, eos in (("drop", "drop"), ("forward", "no-drop"), ("alert", "no-drop")):
        wd = intent.qos.pfc_watchdog.model_copy(update={"action": action})
        ctx = render_context(intent.model_copy(update={"qos": intent.qos.model_copy(update={"pfc_watchdog": wd})}))
        assert ctx["watchdog"]["action"] == eos


def test_config_lines_replay_order() -> None:
    text = rendered("lab-mini", "spine01")
    lines = config_lines(text)
    assert lines[0] == "hostname spine01"
    assert "!" not in lines and "" not in lines
    i = lines.index("interface Ethernet1/1")
    j = lines.index("interface Ethernet2/1")
    # leaving tx-queue 6 and then the interface before the next interface
    assert lines[j - 2:j] == ["exit", "exit"]
    assert lines[i + 1] == "description leaf-su1-r1:Ethernet16"  # the first uplink after 4 x 400G host ports
    flat = config_lines(text, with_exits=False)
    assert [ln for ln in lines if ln != "exit"] == flat
    assert len(flat) == len([ln for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("!")])


def test_rejects_non_switch() -> None:
    fab = fabric("lab-mini")
    host = next(h for h in fab.hosts)
    with pytest.raises(TypeError):
        render_context(plan(fab, host.name))


def test_doctests() -> None:
    import doctest

    from roceops.platforms.eos import render as module

    result = doctest.testmod(module)
    assert result.attempted and not result.failed
