"""One device's audit, start to end: plan its intent, read it (read-only), parse, and find what it shows on its
own. Runs on a Nornir worker thread, in whichever process holds that device's shard.

Only a :class:`DeviceAudit` leaves this module: the device's findings and the few values the checks across
host-leaf links need (:class:`~roceops.audit.checks.EndFacts`), never the raw outputs or the parsed state.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from netmiko.exceptions import NetmikoTimeoutException, ReadTimeout
from nornir.core.task import Task

from roceops.audit.checks import EndFacts, Observation, device_findings, end_facts
from roceops.audit.findings import UNREACHABLE_CHECKS
from roceops.device.oper import for_intent
from roceops.nornir_glue.runner import TaskConnector
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.login import AUTH_FAILED, is_auth_failure
from roceops.redact import reason
from roceops.report.result import Result
from roceops.topology.fabric import Fabric


@dataclass
class DeviceAudit:
    """What one device's audit leaves for the report and for the checks across devices."""

    device: str
    platform: str
    findings: list[Result]
    ends: dict[str, EndFacts] = field(default_factory=dict)  # NIC netdev / host-facing port -> facts
    phases: dict[str, float] = field(default_factory=dict)  # wall seconds: plan, connect, collect, parse, check
    cpu: dict[str, float] = field(default_factory=dict)  # this device's thread's CPU seconds, per phase

    @property
    def audited(self) -> bool:
        return not any(f.check in UNREACHABLE_CHECKS for f in self.findings)


def error_finding(device: str, exc: BaseException, phase: str) -> Result:
    text = reason(exc)[:300]
    if phase == "parse":
        check, msg = "device.unparsable", f"could not parse the device's output: {text}"
    elif phase == "audit":
        check, msg = "device.failed", f"roceops could not audit this device: {type(exc).__name__}: {text}"
    elif is_auth_failure(exc):
        check, msg = "device.unreachable", AUTH_FAILED
    elif isinstance(exc, ReadTimeout | TimeoutError) or "timed out" in text.lower() or "timeout" in text.lower():
        check, msg = "device.timeout", f"device did not answer in time: {text}"
    elif isinstance(exc, NetmikoTimeoutException | OSError | EOFError) or phase == "connect":
        check, msg = "device.unreachable", f"could not reach the device: {text}"
    else:
        check, msg = "device.unreachable", f"{type(exc).__name__}: {text}"
    return Result(check=check, device=device, path="", status="error", message=msg,
                   hint="check reachability and credentials; the device was not audited")


def not_audited(device: str, platform: str, why: str) -> DeviceAudit:
    """A device whose audit never reported back (its task or its shard process died)."""
    return DeviceAudit(device, platform, [Result(check="device.failed", device=device, path="", status="error",
                                                  message=f"not audited: {why}",
                                                  hint="re-run the audit for this device")])


def collect_device(task: Task, obs: Observation) -> None:
    """Device I/O only: connect and run the read-only commands into ``obs.outputs`` (or ``obs.error``)."""
    driver = get_driver(obs.platform)
    start = time.monotonic()
    phase = "connect"
    try:
        conn = TaskConnector(task).connect()
        t0 = time.monotonic()
        obs.phases["connect"] = t0 - start
        phase = "collect"
        obs.outputs = driver.collect(conn, obs.intent)
        obs.phases["collect"] = time.monotonic() - t0
    except Exception as exc:
        obs.error = error_finding(obs.device, exc, phase)
        obs.outputs = None
    finally:
        TaskConnector(task).close(logout=False)  # read-only: no logout dialogue needed


def parse_observation(obs: Observation) -> None:
    """Parse ``obs.outputs`` into ``obs.observed`` and ``obs.oper`` (or ``obs.error``), then drop the raw text."""
    if obs.outputs is None:
        return
    driver = get_driver(obs.platform)
    try:
        obs.observed = driver.observe(obs.outputs)
        obs.oper = for_intent(driver.operational(obs.outputs), obs.intent)
        obs.facts = driver.facts(obs.outputs)  # None for hosts: they report no NOS facts
        obs.mode_problems = driver.mode_problems(obs.outputs, obs.intent)  # [] for rooms without restart-only modes
    except Exception as exc:
        obs.observed, obs.oper = None, None
        obs.error = error_finding(obs.device, exc, "parse")
    obs.outputs = None


def plan_observation(fabric: Fabric, name: str) -> Observation:
    intent = plan(fabric, name)
    driver = get_driver(intent.platform)
    return Observation(device=name, platform=intent.platform, intent=intent, expected=driver.expected(intent))


# Planning, parsing and checking are pure Python: the GIL runs them one thread at a time anyway. Taking turns
# through this lock, a worker thread does its device's part without being switched with the other workers' parts
# every few milliseconds (those hand-offs and the cache misses after them cost ~10 % more CPU: bench/RESULTS.md,
# "Ninth round: issue 32 audit"); device I/O and Paramiko's threads run between turns as before. Held by no
# thread while an audit forks its shards, and never while a device is read.
_TURNS = threading.Lock()


def audit_device(task: Task, fabric: Fabric, hint_context: tuple[str, ...] = ()) -> DeviceAudit:
    """Plan, read, parse and check one device. Never raises: whatever fails becomes the device's finding."""
    name = task.host.name
    clock = _PhaseClock()
    try:
        with _TURNS:
            obs = plan_observation(fabric, name)
    except Exception as exc:  # a planning bug must not stop the audit of the other devices
        return DeviceAudit(name, str(task.host.data.get("roceops_platform", "")), [error_finding(name, exc, "audit")])
    clock.lap("plan")
    collect_device(task, obs)
    clock.lap("read")
    with _TURNS:
        parse_observation(obs)
        clock.lap("parse")
        try:
            findings, ends = device_findings(fabric, obs, hint_context), end_facts(fabric, obs)
        except Exception as exc:
            findings, ends = [error_finding(name, exc, "audit")], {}
        clock.lap("check")
    wall = {k: v for k, v in clock.wall.items() if k != "read"} | obs.phases  # read = connect + collect
    return DeviceAudit(name, obs.platform, findings, ends, wall, clock.cpu)


class _PhaseClock:
    """Wall and thread-CPU seconds of consecutive phases. The CPU figure is this thread's own work, without
    the time it waited for the GIL or the device, so summed over devices it says where the CPU goes."""

    def __init__(self) -> None:
        self._wall = time.monotonic()
        self._cpu = time.thread_time()
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def lap(self, phase: str) -> None:
        wall, cpu = time.monotonic(), time.thread_time()
        self.wall[phase], self.cpu[phase] = wall - self._wall, cpu - self._cpu
        self._wall, self._cpu = wall, cpu
