"""Bench: where bench/health_scale.py's time goes, device by device: the critical path of the health run.

Runs health_scale.py (same fabric, lab, window) with the sampler's steps timed on each device's thread: login
(``t0``: its window starts), first sample in, second sample read (``t1``) and parsed. Prints, for hosts and leaves,
when the first/median/last device reached each step, and the CPU seconds of the client process and of the lab
process spent before the last window started (``phase 1``: it sets when the run can end) and after the last
window ended (``tail``). Works on trees with and without ``collect_rest`` (the first sample read in one ``collect``).
On a loaded machine the CPU seconds compare better than the times.

Run: python bench/health_timeline.py [health_scale.py's options]
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import time
from pathlib import Path
from typing import Any

import roceops.health.engine as engine
import roceops.lab.runtime as lab_runtime
from roceops.platforms.driver import RoomDriver

HERE = Path(__file__).resolve().parent
STEPS = ("login", "t0", "first", "t1", "second", "parsed")
events: list[tuple[str, str, float, float, float]] = []  # device, step, time, client CPU, lab CPU
lab: dict[str, int] = {}


def _cpu(pid: int | str) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mark(step: str) -> None:
    events.append((threading.current_thread().name.removeprefix("health-"), step, time.monotonic(),
                   time.process_time(), _cpu(lab["pid"]) if "pid" in lab else 0.0))


class _Timed(RoomDriver):
    """A room's driver with its sampling reads timed (a RoomDriver, so the engine splits the first sample as it
    does for the room)."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    def __getattr__(self, name: str) -> Any:
        return getattr(self.driver, name)

    def observe(self, outputs: dict[str, str]) -> Any:
        return self.driver.observe(outputs)

    def operational(self, outputs: dict[str, str]) -> Any:
        return self.driver.operational(outputs)

    def collect(self, conn: Any, intent: Any, ports: Any = None) -> dict[str, str]:
        out: dict[str, str] = self.driver.collect(conn, intent, ports)
        _mark("first")
        return out

    def collect_counters(self, conn: Any, intent: Any, ports: Any = None) -> dict[str, str]:
        if any(d == threading.current_thread().name.removeprefix("health-") and s == "first"
               for d, s, *_ in events[-2000:]):
            _mark("t1")
            out: dict[str, str] = self.driver.collect_counters(conn, intent, ports)
            _mark("second")
            return out
        return self.driver.collect_counters(conn, intent, ports)  # the window's first read (t0: logged in)

    def collect_rest(self, conn: Any, intent: Any, counters: dict[str, str], ports: Any = None) -> dict[str, str]:
        out: dict[str, str] = self.driver.collect_rest(conn, intent, counters, ports)
        _mark("first")
        return out


def main() -> None:
    split = hasattr(RoomDriver, "collect_rest")
    get_driver, connect_host, parse_into = engine.get_driver, engine.connect_host, engine._parse_into
    start_lab, run_health = lab_runtime.start_lab, engine.run_health

    def timed_connect(host: Any, config: Any) -> Any:
        _mark("login")
        conn = connect_host(host, config)
        _mark("t0")
        return conn

    def timed_parse(sample: Any, name: str, intent: Any, outputs: dict[str, str], first: bool) -> bool:
        ok: bool = parse_into(sample, name, intent, outputs, first)
        if not first:
            _mark("parsed")
        return ok

    def timed_start(*args: Any, **kwargs: Any) -> Any:
        started = start_lab(*args, **kwargs)
        lab["pid"] = started.pid
        return started

    def timed_run(*args: Any, **kwargs: Any) -> Any:
        events.clear()
        begin, client0, lab0 = time.monotonic(), time.process_time(), _cpu(lab["pid"])
        report = run_health(*args, **kwargs)
        _print(begin, client0, lab0, time.monotonic(), time.process_time(), _cpu(lab["pid"]))
        return report

    engine.get_driver = lambda platform: _Timed(get_driver(platform)) if split else _Untimed(get_driver(platform))
    engine.connect_host, engine._parse_into = timed_connect, timed_parse
    lab_runtime.start_lab, engine.run_health = timed_start, timed_run
    sys.argv = [str(HERE / "health_scale.py"), *sys.argv[1:]]
    sys.path.insert(0, str(HERE))
    runpy.run_path(str(HERE / "health_scale.py"), run_name="__main__")


class _Untimed:
    """A tree whose sampler reads the first sample in one ``collect``: time that, as a plain Driver."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    def __getattr__(self, name: str) -> Any:
        return getattr(self.driver, name)

    collect = _Timed.collect
    collect_counters = _Timed.collect_counters


def _print(begin: float, client0: float, lab0: float, end: float, client1: float, lab1: float) -> None:
    at: dict[str, dict[str, tuple[float, float, float]]] = {}
    for device, step, t, client, lab_cpu in events:
        at.setdefault(device, {})[step] = (t - begin, client, lab_cpu)
    for kind, names in (("leaves", [d for d in at if d.startswith("leaf")]),
                        ("hosts", [d for d in at if not d.startswith("leaf")])):
        if not names:
            continue
        print(f"{kind} ({len(names)}): s after run_health started, first / median / last device")
        for step in STEPS:
            times = sorted(at[d][step][0] for d in names if step in at[d])
            if times:
                print(f"  {step:7s} {times[0]:6.2f} {times[len(times) // 2]:6.2f} {times[-1]:6.2f}")
    last_t0 = max((v["t0"] for v in at.values() if "t0" in v), key=lambda x: x[0])
    last_t1 = max((v["t1"] for v in at.values() if "t1" in v), key=lambda x: x[0])
    print(f"phase 1 (to the last window start, {last_t0[0]:.2f} s): client {last_t0[1] - client0:.2f} CPU s, "
          f"lab {last_t0[2] - lab0:.2f} CPU s")
    print(f"tail (last window end {last_t1[0]:.2f} s to the end, {end - begin:.2f} s): client "
          f"{client1 - last_t1[1]:.2f} CPU s, lab {lab1 - last_t1[2]:.2f} CPU s")
    print(f"run_health: client {client1 - client0:.2f} CPU s, lab {lab1 - lab0:.2f} CPU s")


if __name__ == "__main__":
    main()
