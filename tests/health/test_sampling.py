"""One device's two samples, without SSH: what health records when a device answers garbage or nothing."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import EXAMPLES

import roceops.health.engine as engine
from roceops.device.observed import ObservedHost
from roceops.device.oper import OperState
from roceops.health.catalog import Sample
from roceops.model.loader import load_intent
from roceops.plan import plan
from roceops.topology.expand import expand


class _Host:
    """The bits of a Nornir host the sampler uses."""

    name = "gpu001"
    hostname = "127.0.0.1"

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}  # no "roceops_lab": connect_host's loopback guard does not apply
        self.connection_options = {"netmiko": SimpleNamespace(extras={})}
        self.connections: dict[str, Any] = {}
        self.closed = 0

    def get_connection(self, plugin: str, config: Any) -> object:
        self.connections[plugin] = SimpleNamespace(remote_conn="an open channel")  # already logged in
        return self.connections[plugin]

    def close_connection(self, plugin: str) -> None:
        self.closed += 1
        self.connections.pop(plugin, None)


class _Driver:
    def __init__(self, first: dict[str, str], second: dict[str, str], parse_fails: bool = False) -> None:
        self.first, self.second, self.parse_fails = first, second, parse_fails
        self.calls: list[str] = []

    def collect(self, conn: Any, intent: Any, ports: Any = None) -> dict[str, str]:
        self.calls.append("collect")
        return self.first

    def collect_counters(self, conn: Any, intent: Any, ports: Any = None) -> dict[str, str]:
        self.calls.append("counters")
        return self.second

    def observe(self, outputs: dict[str, str]) -> ObservedHost:
        if self.parse_fails:
            raise ValueError("table 'x' has no header")
        return ObservedHost(tools=dict.fromkeys(sorted(outputs), True))  # which outputs it was given

    def operational(self, outputs: dict[str, str]) -> OperState:
        return OperState(os_version=f"oper of {sorted(outputs)}")  # which outputs it was given


@pytest.fixture(scope="module")
def intent() -> Any:
    return plan(expand(load_intent(EXAMPLES["lab-mini"])), "gpu001")


def _sample(monkeypatch: pytest.MonkeyPatch, intent: Any, driver: _Driver,
            deadline_in: float = 30.0) -> tuple[Sample, _Host]:
    monkeypatch.setattr(engine, "get_driver", lambda platform: driver)
    host, sample = _Host(), Sample()
    deadline = engine.time.monotonic() + deadline_in
    engine._sample_device(host, intent, None, sample, 0.05, deadline, threading.Semaphore(1))  # type: ignore[arg-type]
    return sample, host


def test_both_samples_parsed_with_the_window_between(monkeypatch: pytest.MonkeyPatch, intent: Any) -> None:
    driver = _Driver({"full": "x", "more": "y"}, {"counters": "z"})
    sample, host = _sample(monkeypatch, intent, driver)
    assert driver.calls == ["collect", "counters"]
    assert sample.observed == ObservedHost(tools={"full": True, "more": True})
    assert sample.first == OperState(device="gpu001", os_version="oper of ['full', 'more']")  # named by the intent
    assert sample.second == OperState(device="gpu001", os_version="oper of ['counters']")
    assert sample.window_s >= 0.05 and sample.error is None
    assert host.closed == 1 and not host.connections


def test_unparsable_first_sample_is_recorded_and_stops_the_device(monkeypatch: pytest.MonkeyPatch,
                                                                  intent: Any) -> None:
    driver = _Driver({"full": "garbage"}, {}, parse_fails=True)
    sample, host = _sample(monkeypatch, intent, driver)
    assert driver.calls == ["collect"]  # no second sample of a device whose output cannot be read
    assert sample.error == "gpu001: could not parse its output: table 'x' has no header"
    assert sample.observed is None and sample.first is None and sample.second is None and sample.window_s == 0
    assert host.closed == 1


def test_no_second_sample_when_the_window_would_end_after_the_deadline(monkeypatch: pytest.MonkeyPatch,
                                                                       intent: Any) -> None:
    driver = _Driver({"full": "x"}, {"counters": "z"})
    sample, _ = _sample(monkeypatch, intent, driver, deadline_in=0.52)
    assert driver.calls == ["collect"]
    assert sample.first is not None and sample.second is None
    assert sample.error is not None and "deadline falls inside the sampling window" in sample.error
