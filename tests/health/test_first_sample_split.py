"""How health takes a device's first sample when its driver splits it (``collect_rest``): counters when the window
starts, the rest once every device has logged in; the order the devices are started in; and nodes checked while
others are still sampled."""

from __future__ import annotations

import queue
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import EXAMPLES
from labtools import InProcess, lab_mini

import roceops.health.engine as engine
from roceops.device.observed import ObservedHost
from roceops.device.oper import OperState, for_intent
from roceops.health.catalog import Sample
from roceops.health.engine import evaluate
from roceops.health.model import Thresholds
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.model.loader import load_intent
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.driver import RoomDriver
from roceops.topology.expand import expand


class _Host:
    name = "gpu001"
    hostname = "127.0.0.1"

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.connection_options = {"netmiko": SimpleNamespace(extras={})}
        self.connections: dict[str, Any] = {}

    def get_connection(self, plugin: str, config: Any) -> object:
        self.connections[plugin] = SimpleNamespace(remote_conn="an open channel")
        return self.connections[plugin]

    def close_connection(self, plugin: str) -> None:
        self.connections.pop(plugin, None)


class _SplitDriver(RoomDriver):
    """Counters read twice (``{"n": "1"}`` then ``{"n": "2"}``), the rest once; records when each read came."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []
        self.counters = iter([{"n": "1"}, {"n": "2"}])

    def collect(self, conn: Any, intent: Any, ports: Any = None) -> dict[str, str]:
        raise AssertionError("a splitting driver's first sample is not read in one collect")

    def collect_counters(self, conn: Any, intent: Any, ports: Any = None) -> dict[str, str]:
        self.calls.append(("counters", time.monotonic()))
        return next(self.counters)

    def collect_rest(self, conn: Any, intent: Any, counters: dict[str, str], ports: Any = None) -> dict[str, str]:
        self.calls.append(("rest", time.monotonic()))
        return {"config": "x", **counters}

    def observe(self, outputs: dict[str, str]) -> ObservedHost:
        return ObservedHost(tools=dict.fromkeys(sorted(outputs), True))

    def operational(self, outputs: dict[str, str]) -> OperState:
        return OperState(os_version=f"{sorted(outputs.items())}")


@pytest.fixture(scope="module")
def intent() -> Any:
    return plan(expand(load_intent(EXAMPLES["lab-mini"])), "gpu001")


def _run(monkeypatch: pytest.MonkeyPatch, intent: Any, driver: _SplitDriver, window_s: float,
         logins: Any = None) -> tuple[Sample, threading.Thread]:
    monkeypatch.setattr(engine, "get_driver", lambda platform: driver)
    sample = Sample()
    thread = threading.Thread(target=engine._sample_device, args=(
        _Host(), intent, None, sample, window_s, time.monotonic() + 30, threading.Semaphore(2), None, logins))
    thread.start()
    return sample, thread


def test_counters_start_the_window_and_the_rest_completes_the_first_sample(monkeypatch: pytest.MonkeyPatch,
                                                                           intent: Any) -> None:
    driver = _SplitDriver()
    sample, thread = _run(monkeypatch, intent, driver, 0.2)
    thread.join(10)
    assert [what for what, _ in driver.calls] == ["counters", "rest", "counters"]
    assert sample.error is None
    assert sample.observed == ObservedHost(tools={"config": True, "n": True})
    assert sample.first is not None and sample.first.os_version == "[('config', 'x'), ('n', '1')]"
    assert sample.second is not None and sample.second.os_version == "[('n', '2')]"
    # the window runs from (just before) the first counter read to the second
    assert sample.window_s >= 0.2 and abs(sample.window_s - (driver.calls[2][1] - driver.calls[0][1])) < 0.05


def test_the_rest_waits_for_the_other_logins(monkeypatch: pytest.MonkeyPatch, intent: Any) -> None:
    logins = engine._Logins(2)  # this device and one still logging in
    driver = _SplitDriver()
    sample, thread = _run(monkeypatch, intent, driver, 2.0, logins)
    limit = time.monotonic() + 5
    while not driver.calls and time.monotonic() < limit:
        time.sleep(0.01)
    time.sleep(0.3)
    assert [what for what, _ in driver.calls] == ["counters"] and not logins.done.is_set()
    logins.one_done()  # the other device's counters are in
    thread.join(10)
    assert [what for what, _ in driver.calls] == ["counters", "rest", "counters"]
    assert driver.calls[1][1] - driver.calls[0][1] >= 0.3 and sample.error is None


def test_the_rest_waits_at_most_until_the_window_ends(monkeypatch: pytest.MonkeyPatch, intent: Any) -> None:
    logins = engine._Logins(2)  # the other device never logs in
    driver = _SplitDriver()
    sample, thread = _run(monkeypatch, intent, driver, 0.6, logins)
    thread.join(10)
    (_, counters), (_, rest), (_, again) = driver.calls
    assert 0.6 - 0.05 <= rest - counters <= again - counters and sample.error is None
    assert sample.window_s >= 0.6


def test_a_device_that_fails_to_log_in_counts_as_done(monkeypatch: pytest.MonkeyPatch, intent: Any) -> None:
    logins = engine._Logins(1)

    def refuse(host: Any, config: Any) -> Any:
        raise ConnectionRefusedError("connection refused")

    monkeypatch.setattr(engine, "connect_host", refuse)
    sample, thread = _run(monkeypatch, intent, _SplitDriver(), 0.2, logins)
    thread.join(10)
    assert logins.done.is_set() and sample.error is not None and "connect failed" in sample.error


def test_switches_are_started_before_hosts() -> None:
    threads = [threading.Thread(name=n) for n in ("gpu001", "gpu002", "leaf1", "gpu003", "leaf2")]
    order = engine._switches_first(threads, [t.name for t in threads], {"gpu001", "gpu002", "gpu003"})
    assert [t.name for t in order] == ["leaf1", "leaf2", "gpu001", "gpu002", "gpu003"]


def _lab_samples() -> tuple[Any, list[Any], dict[str, Any], dict[str, Sample]]:
    """lab-mini's nodes and leaves sampled as health does, without SSH (their lab personalities in-process, the
    clocks moved 2 s between the samples), a pause storm on one leaf port so not every result is ok."""
    fabric = lab_mini()
    nodes = list(fabric.hosts)
    leaf_ports: dict[str, set[str]] = {}
    for host in nodes:
        for nic in host.nics:
            leaf_ports.setdefault(nic.leaf, set()).add(nic.leaf_port)
    names = [h.name for h in nodes] + sorted(leaf_ports)
    intents = {n: plan(fabric, n) for n in names}
    samples: dict[str, Sample] = {}
    for spec in lab_specs(fabric, names, configured=True):
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        now = [state.physical.clock() + 100.0]
        state.physical.clock = lambda now=now: now[0]  # type: ignore[misc]
        if spec.name == "leaf-su1-r1":
            state.physical.apply("pause_storm", nodes[0].nics[0].leaf_port)
        conn = InProcess(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
        driver, intent = get_driver(spec.platform), intents[spec.name]
        ports = frozenset(leaf_ports[spec.name]) if spec.name in leaf_ports else None
        first = driver.collect_rest(conn, intent, driver.collect_counters(conn, intent, ports), ports)
        now[0] += 2.0
        second = driver.collect_counters(conn, intent, ports)
        samples[spec.name] = Sample(observed=driver.observe(first), first=for_intent(driver.operational(first), intent),
                                    second=for_intent(driver.operational(second), intent), window_s=2.0)
    return fabric, nodes, intents, samples


def test_nodes_checked_while_others_are_sampled_get_what_evaluate_gives() -> None:
    fabric, nodes, intents, samples = _lab_samples()
    whole = evaluate(fabric, nodes, intents, samples, Thresholds())
    assert {r.status for r in whole} == {"ok", "fail"}
    leaves = {n.leaf for h in nodes for n in h.nics}
    done: queue.SimpleQueue[str] = queue.SimpleQueue()
    for name in [nodes[0].name, *sorted(leaves), *(h.name for h in nodes[1:])]:  # a node before the leaves too
        done.put(name)
    checked = engine._check_while_sampling(fabric, nodes, intents, samples, done, len(samples), leaves,
                                           time.monotonic() + 10, Thresholds())
    assert set(checked) == {h.name for h in nodes}
    assert evaluate(fabric, nodes, intents, samples, Thresholds(), None, checked) == whole


def test_no_node_is_checked_before_every_leaf_is_in() -> None:
    fabric, nodes, intents, samples = _lab_samples()
    leaves = sorted({n.leaf for h in nodes for n in h.nics})
    done: queue.SimpleQueue[str] = queue.SimpleQueue()
    for name in [*(h.name for h in nodes), *leaves[1:]]:  # one leaf never answers
        done.put(name)
    checked = engine._check_while_sampling(fabric, nodes, intents, samples, done, len(samples), set(leaves),
                                           time.monotonic() + 0.2, Thresholds())
    assert checked == {}
