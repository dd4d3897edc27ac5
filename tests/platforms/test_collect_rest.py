"""A first sample read in two parts (health: counters when the window starts, the rest while it runs) is the first
sample ``collect`` reads: every room's ``collect_rest`` against its lab personality, without SSH, clocks stopped."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from labtools import InProcess, lab_mini

from roceops.device.intent import SwitchIntent
from roceops.health.balance import uplinks
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.base import get_driver


@cache
def _health_ports() -> dict[str, frozenset[str]]:
    """The ports health reads on each leaf: its host-facing ports and uplinks (``run_health``)."""
    fabric = lab_mini()
    ports: dict[str, set[str]] = {}
    for host in fabric.hosts:
        for nic in host.nics:
            ports.setdefault(nic.leaf, set()).add(nic.leaf_port)
    for leaf, names in ports.items():
        intent = plan(fabric, leaf)
        assert isinstance(intent, SwitchIntent)
        names.update(uplinks(intent))
    return {leaf: frozenset(names) for leaf, names in ports.items()}


def _device(name: str) -> tuple[Any, InProcess, Any, frozenset[str] | None]:
    """(driver, connection, intent, ports health reads) of a lab-mini device whose counters stand still."""
    spec = next(s for s in lab_specs(lab_mini(), configured=True) if s.name == name)
    personality = get_personality(spec.platform)
    state = personality.state_factory(spec.name, spec.platform, spec.extra)
    now = state.physical.clock() + 100.0
    state.physical.clock = lambda: now  # both reads see the same counters
    if hasattr(state, "clock"):
        state.clock = lambda: now  # and the same uptime (Cumulus's BER view)
    conn = InProcess(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
    return get_driver(spec.platform), conn, plan(lab_mini(), name), _health_ports().get(name)


@pytest.fixture(params=["leaf-su1-r1", "leaf-su2-r1", "spine01", "gpu001"])
def device(request: pytest.FixtureRequest) -> Iterator[tuple[Any, InProcess, Any, frozenset[str] | None]]:
    yield _device(request.param)


def test_counters_then_the_rest_is_the_first_sample_collect_reads(
        device: tuple[Any, InProcess, Any, frozenset[str] | None]) -> None:
    driver, conn, intent, ports = device
    whole = driver.collect(conn, intent, ports)
    counters = driver.collect_counters(conn, intent, ports)
    sent = len(conn.lines)
    split = driver.collect_rest(conn, intent, counters, ports)
    rest_lines = "\n".join(conn.lines[sent:])
    assert driver.observe(split) == driver.observe(whole)
    assert driver.operational(split) == driver.operational(whole)
    if intent.kind == "host":  # the link files come from the counters' sysfs read, the ECN files from their own
        assert set(whole) - set(split) == {c for c in whole if c.startswith("grep -r -H -s . ")}
        assert "ethtool -S" not in rest_lines and "hw_counters" not in rest_lines
    else:  # switches: the same commands in the same order, the counters' outputs from the counter read
        assert list(split) == list(whole)
        assert counters and all(split[c] is counters[c] for c in counters)
    for command in counters:
        assert command not in rest_lines  # nothing is read twice


def test_the_default_reads_collect_again_and_keeps_the_earlier_counters() -> None:
    from tinynos.driver import SHOW_CONFIG, TinyDriver  # the example room has no collect_rest of its own

    answers = iter(['{"ports": {}, "at": "t0"}', '{"ports": {}, "at": "later"}'])

    class Conn:
        def send_command(self, command: str) -> str:
            return next(answers)

    driver, conn = TinyDriver(), Conn()
    counters = driver.collect_counters(conn, None)
    assert driver.collect_rest(conn, None, counters) == {SHOW_CONFIG: '{"ports": {}, "at": "t0"}'}
