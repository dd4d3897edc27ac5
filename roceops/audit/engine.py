"""Audit orchestration: collect read-only state on Nornir, parse, compare, check across devices.

One bad device never stops the audit: unreachable devices, timeouts and unparsable output
become findings of their own (``device.unreachable``/``device.timeout``/``device.unparsable``).
"""

from __future__ import annotations

import dataclasses
import gc
import multiprocessing as mp
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from netmiko.exceptions import NetmikoTimeoutException, ReadTimeout
from nornir.core.task import Result, Task

from roceops.audit.checks import Observation, all_findings
from roceops.audit.findings import UNREACHABLE_CHECKS, Finding
from roceops.nornir_glue.runner import Progress, TaskConnector, make_nornir
from roceops.parallel import ForkedWorkers
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.redact import redact
from roceops.topology.fabric import Fabric


@dataclass(frozen=True)
class AuditOptions:
    workers: int = 64
    timeout_s: float = 30.0
    lab_dir: Path | None = None
    quiet: bool = False
    with_oper: bool = True


@dataclass
class AuditResult:
    fabric: str
    devices: list[str]
    observations: list[Observation]
    findings: list[Finding]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def unreachable(self) -> list[str]:
        return sorted({f.device for f in self.findings if f.check in UNREACHABLE_CHECKS})

    @property
    def drift(self) -> list[Finding]:
        return [f for f in self.findings if f.check not in UNREACHABLE_CHECKS]

    @property
    def exit_code(self) -> int:
        if self.unreachable:
            return 2
        return 1 if self.drift else 0


def _error_finding(device: str, exc: BaseException, phase: str) -> Finding:
    text = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)[:300]
    if phase == "parse":
        check, msg = "device.unparsable", f"could not parse the device's output: {text}"
    elif isinstance(exc, ReadTimeout | TimeoutError) or "timed out" in text.lower() or "timeout" in text.lower():
        check, msg = "device.timeout", f"device did not answer in time: {text}"
    elif isinstance(exc, NetmikoTimeoutException | OSError | EOFError) or phase == "connect":
        check, msg = "device.unreachable", f"could not reach the device: {text}"
    else:
        check, msg = "device.unreachable", f"{type(exc).__name__}: {text}"
    return Finding(check=check, device=device, path="", message=msg,
                   hint="check reachability and credentials; the device was not audited")


def collect_device(task: Task, obs: Observation) -> Observation:
    """Device I/O only: connect and run the read-only commands. Parsing happens elsewhere, off the I/O threads."""
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
        obs.error = _error_finding(obs.device, exc, phase)
        obs.outputs = None
    obs.seconds = time.monotonic() - start
    return obs


def parse_observation(obs: Observation, with_oper: bool) -> tuple[dict | None, object, Finding | None, float]:
    """(observed, oper, error finding, seconds) for one collected device. Pure: runs in any process."""
    if obs.outputs is None:
        return None, None, obs.error, 0.0
    driver = get_driver(obs.platform)
    t0 = time.monotonic()
    try:
        observed = driver.observe(obs.outputs, obs.intent)
        oper = driver.operational(obs.outputs, obs.intent) if with_oper else None
    except Exception as exc:
        return None, None, _error_finding(obs.device, exc, "parse"), time.monotonic() - t0
    return observed, oper, None, time.monotonic() - t0


PARALLEL_PARSE_THRESHOLD = 64  # below this, forking costs more than parsing

Parsed = tuple[dict | None, object, Finding | None, float]


def _apply(obs: Observation, parsed: Parsed) -> None:
    obs.observed, obs.oper, obs.error = parsed[0], parsed[1], parsed[2]  # type: ignore[assignment]
    obs.phases["parse"] = parsed[3]
    obs.outputs = None  # release the raw text


class _Parser:
    """Parses each device as soon as its outputs arrive: in forked workers for large audits (started
    before the I/O threads, fed from them), so parsing overlaps collection instead of following it.

    Parsing inside the I/O threads would hold the GIL while other sessions wait (the audit once ran at
    4.7x a bare Netmiko loop that way); small audits parse in-process after collection.
    """

    def __init__(self, observations: dict[str, Observation], with_oper: bool) -> None:
        self.with_oper = with_oper
        self.futures: dict[str, Future[Parsed]] = {}
        self.workers: ForkedWorkers | None = None
        if len(observations) >= PARALLEL_PARSE_THRESHOLD and "fork" in mp.get_all_start_methods():
            def parse(item: tuple[str, dict[str, str]]) -> Parsed:  # runs in a worker, on its inherited copy
                return parse_observation(dataclasses.replace(observations[item[0]], outputs=item[1]), with_oper)

            self.workers = ForkedWorkers(parse)

    def submit(self, obs: Observation) -> None:
        if self.workers is not None and obs.outputs is not None:
            self.futures[obs.device] = self.workers.submit((obs.device, obs.outputs))
            obs.outputs = None

    def finish(self, observations: list[Observation]) -> None:
        """Every device parsed (collected its worker's result, or parsed here)."""
        try:
            for obs in observations:
                future = self.futures.get(obs.device)
                try:
                    parsed = future.result() if future is not None else parse_observation(obs, self.with_oper)
                except Exception:  # a worker died; the outputs went with the job, so say so, never "no drift"
                    parsed = (None, None, Finding(check="device.unparsable", device=obs.device, path="",
                                                  message="the parse worker failed on this device's output",
                                                  hint="re-run the audit for this device"), 0.0)
                _apply(obs, parsed)
        finally:
            if self.workers is not None:
                self.workers.close()


def run_audit(fabric: Fabric, names: list[str], opts: AuditOptions) -> AuditResult:
    start = time.monotonic()
    observations: dict[str, Observation] = {}
    for n in names:
        intent = plan(fabric, n)
        driver = get_driver(intent.platform)
        expected = getattr(driver, "expected", lambda i: i)(intent)
        observations[n] = Observation(device=n, platform=intent.platform, intent=intent, expected=expected)
    gc.collect()
    gc.freeze()  # the planned intents are long-lived: keep the cyclic GC from walking them during I/O
    planned = time.monotonic()
    nr = make_nornir(fabric, names, lab_dir=opts.lab_dir, workers=opts.workers, timeout_s=opts.timeout_s)
    parser = _Parser(observations, opts.with_oper)  # forks its workers now, before any I/O thread starts

    def task(t: Task) -> Result:
        try:
            obs = collect_device(t, observations[t.host.name])
        finally:
            TaskConnector(t).close(logout=False)  # read-only: no logout dialogue needed
        parser.submit(obs)
        return Result(host=t.host, result=obs)

    obs_list = [observations[n] for n in names]
    try:
        with Progress("audit", len(names), lambda n, o: f"{n}: {'error' if o.error else 'ok'}",
                      quiet=opts.quiet) as progress:
            nr.with_processors([progress]).run(task=task, on_failed=True)
    finally:
        nr.close_connections(on_good=True, on_failed=True)
        collected = time.monotonic()
        parser.finish(obs_list)
    parsed = time.monotonic()
    for o in obs_list:  # a task that died outside collect_device (should not happen) is still reported
        if o.observed is None and o.error is None:
            o.error = Finding(check="device.unreachable", device=o.device, path="", message="no result from device")
    findings = all_findings(fabric, obs_list)
    end = time.monotonic()
    phases = {"plan": planned - start, "devices": collected - planned, "parse": parsed - collected,
              "checks": end - parsed}
    for key in ("connect", "collect", "parse"):
        phases[f"sum.{key}"] = sum(o.phases.get(key, 0.0) for o in obs_list)
    return AuditResult(fabric=fabric.intent.name, devices=names, observations=obs_list, findings=findings,
                       seconds=end - start, phases=phases)
