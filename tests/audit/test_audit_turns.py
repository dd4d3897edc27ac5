"""An audit's worker threads take turns planning, parsing and checking their devices (roceops.audit.device._TURNS),
while reading devices overlaps as before."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

import roceops.audit.device as device


def test_workers_take_turns_planning_parsing_and_checking_but_read_devices_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    active = {"turn": 0, "read": 0}
    peak = dict(active)
    count = threading.Lock()

    def work(kind: str) -> None:
        with count:
            active[kind] += 1
            peak[kind] = max(peak[kind], active[kind])
        time.sleep(0.02)  # lets the other threads run meanwhile (as Python work does at every switch interval)
        with count:
            active[kind] -= 1

    def plan_observation(fabric: Any, name: str) -> Any:
        work("turn")
        return SimpleNamespace(platform="eos", phases={})

    def collect_device(task: Any, obs: Any) -> None:
        work("read")

    monkeypatch.setattr(device, "plan_observation", plan_observation)
    monkeypatch.setattr(device, "collect_device", collect_device)
    monkeypatch.setattr(device, "parse_observation", lambda obs: work("turn"))
    monkeypatch.setattr(device, "device_findings", lambda fabric, obs, hints: work("turn") or [])
    monkeypatch.setattr(device, "end_facts", lambda fabric, obs: {})
    tasks = [SimpleNamespace(host=SimpleNamespace(name=f"dev{i}", data={})) for i in range(6)]
    with ThreadPoolExecutor(len(tasks)) as pool:
        audits = list(pool.map(lambda t: device.audit_device(t, None), tasks))  # type: ignore[arg-type]
    assert [a.device for a in audits] == [f"dev{i}" for i in range(6)]
    assert all(a.findings == [] and set(a.cpu) == {"plan", "read", "parse", "check"} for a in audits)
    assert peak["turn"] == 1  # never two devices' Python work at once
    assert peak["read"] > 1  # devices are still read side by side
