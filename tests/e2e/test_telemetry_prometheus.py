"""End to end on real components: Debian's prometheus scrapes `roceops telemetry --lab` on lab-mini with the
rules `render` writes for the fabric; a pause storm on leaf-su1-r1 Ethernet0 makes RoCEPauseStorm fire through
Prometheus' HTTP API, clearing it resolves the alert, `health --counters-from` gives the verdicts of the SSH path
(healthy and during a storm), and SIGTERM stops the collector cleanly."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES, REPO
from labtools import free_endpoint_base, lab_mini

from roceops.health.engine import HealthOptions, run_health
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.monitoring import monitoring_files
from roceops.report.result import Result
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

PROMETHEUS = shutil.which("prometheus")
pytestmark = [pytest.mark.telemetry, pytest.mark.lab,
              pytest.mark.skipif(PROMETHEUS is None, reason="Debian's prometheus is not installed")]
SCRAPE_S, COLLECT_S = 1, 0.5
LEAF, PORT = "leaf-su1-r1", "Ethernet0"
NODES = ["gpu001", "gpu002"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check: Callable[[], Any], timeout: float, step: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = check()
        except OSError:
            found = None
        if found:
            return found
        time.sleep(step)
    return None


@dataclass
class Stack:
    lab: LabThread
    fabric: Fabric
    fabric_file: Path
    prometheus: str  # http://127.0.0.1:PORT
    collector: subprocess.Popen[str]
    env: dict[str, str]

    def query(self, expr: str) -> list[dict[str, Any]]:
        url = f"{self.prometheus}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
        with urllib.request.urlopen(url, timeout=5) as reply:
            body = json.load(reply)
        assert body["status"] == "success"
        return list(body["data"]["result"])

    def firing(self, alert: str) -> list[dict[str, Any]]:
        return [a for a in self.query(f'ALERTS{{alertname="{alert}",alertstate="firing"}}')]


def _fabric_file(tmp: Path, exporter: str) -> Path:
    """lab-mini with monitoring fast enough for a test: 1 s scrapes, a 3 s rate window, alerts without `for`."""
    data = yaml.safe_load(EXAMPLES["lab-mini"].read_text())
    data["monitoring"] = {"scrape_interval_s": SCRAPE_S, "rate_window_s": 3 * SCRAPE_S, "alert_for_s": 0,
                          "exporters": [exporter]}
    path = tmp / "lab-mini-fast.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("telemetry-e2e")
    metrics_port, prom_port = _free_port(), _free_port()
    fabric_file = _fabric_file(tmp, f"127.0.0.1:{metrics_port}")
    fabric = expand(FabricIntent.model_validate(yaml.safe_load(fabric_file.read_text())))
    assert [d.name for d in fabric.devices()] == [d.name for d in lab_mini().devices()]
    for name, text in monitoring_files(fabric).items():
        (tmp / name).write_text(text)
    base, port = free_endpoint_base()
    lab = LabThread(lab_specs(lab_mini(), configured=True), tmp / "lab", base_address=base, port=port).start()
    env = {**os.environ, "ROCEOPS_LAB_DIR": str(tmp / "lab")}
    collector = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "roceops") if (REPO / ".venv" / "bin" / "roceops").exists() else "roceops",
         "telemetry", "--lab", "-f", str(fabric_file), "--listen", f"127.0.0.1:{metrics_port}",
         "--interval", str(COLLECT_S)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert PROMETHEUS is not None
    prom = subprocess.Popen([PROMETHEUS, f"--config.file={tmp / 'prometheus-scrape.yml'}",
                             f"--storage.tsdb.path={tmp / 'data'}", f"--web.listen-address=127.0.0.1:{prom_port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{prom_port}"
    try:
        s = Stack(lab, fabric, fabric_file, url, collector, env)
        ready = _wait(lambda: s.query('roceops_target_up{device="leaf-su1-r1"} == 1'), timeout=30)
        assert ready, "prometheus never scraped the collector"
        yield s
    finally:
        prom.send_signal(signal.SIGTERM)
        try:
            prom.wait(15)
        except subprocess.TimeoutExpired:
            prom.kill()
        if collector.poll() is None:
            collector.kill()
            collector.wait(10)
        lab.stop()


def test_rules_are_loaded_and_the_fabric_is_scraped(stack: Stack) -> None:
    with urllib.request.urlopen(f"{stack.prometheus}/api/v1/rules", timeout=5) as reply:
        groups = json.load(reply)["data"]["groups"]
    names = {r["name"] for g in groups for r in g["rules"]}
    assert "RoCEPauseStorm" in names and len(names) == 7
    up = {r["metric"]["device"]: r["value"][1] for r in stack.query("roceops_target_up")}
    assert up["leaf-su1-r1"] == "1" and up["gpu001"] == "1"
    assert stack.query('roceops_pfc_pause_frames_total{device="leaf-su1-r1",port="Ethernet0",su="1",rail="1",'
                       'tier="leaf"}')


def test_a_pause_storm_fires_and_clearing_resolves_it(stack: Stack) -> None:
    assert not stack.firing("RoCEPauseStorm")
    t0 = time.monotonic()
    stack.lab.inject(LEAF, "pause_storm", port=PORT)
    alerts = _wait(lambda: stack.firing("RoCEPauseStorm"), timeout=15, step=0.1)
    fired_after = time.monotonic() - t0
    assert alerts, "RoCEPauseStorm never fired"
    print(f"RoCEPauseStorm fired {fired_after:.2f} s after the inject")
    labels = alerts[0]["metric"]
    assert (labels["device"], labels["port"], labels["priority"]) == (LEAF, PORT, "3")
    assert (labels["su"], labels["rail"], labels["tier"], labels["severity"]) == ("1", "1", "leaf", "critical")
    # the sample reaches the collector within its interval, then 2 scrape/evaluation intervals
    assert fired_after <= 2 * SCRAPE_S + COLLECT_S + 0.5, f"fired after {fired_after:.1f} s"
    stack.lab.clear(LEAF)
    assert _wait(lambda: not stack.firing("RoCEPauseStorm"), timeout=15), "RoCEPauseStorm did not resolve"


def _verdicts(stack: Stack, counters_from: str | None) -> tuple[list[tuple[str, str]], list[Result]]:
    opts = HealthOptions(window_s=1.5, deadline_s=30, lab_dir=stack.lab.state_dir, counters_from=counters_from)
    report = run_health(stack.fabric, NODES, opts)
    unknown = [v.reasons for v in report.verdicts if v.status == "unknown"]
    assert not unknown, unknown  # the lab and Prometheus answered: every node has a verdict
    return [(v.node, v.status) for v in report.verdicts], report.results


def test_health_from_prometheus_gives_the_ssh_verdicts(stack: Stack) -> None:
    healthy_ssh, _ = _verdicts(stack, None)
    healthy_prom, results = _verdicts(stack, stack.prometheus)
    assert healthy_ssh == healthy_prom == [(n, "ok") for n in NODES]
    leaf_checks = {r.check: r.status for r in results if r.path.startswith(f"{LEAF}:{PORT}")}
    assert leaf_checks["leaf.port"] == "skipped" and leaf_checks["counters.pause"] == "ok"
    stack.lab.inject(LEAF, "pause_storm", port=PORT)
    try:
        time.sleep(2 * SCRAPE_S)  # the storm is in Prometheus' lookback
        storm_ssh, _ = _verdicts(stack, None)
        storm_prom, results = _verdicts(stack, stack.prometheus)
    finally:
        stack.lab.clear(LEAF)
    assert storm_ssh == storm_prom and ("gpu001", "drain") in storm_prom
    pause = next(r for r in results if r.check == "counters.pause" and r.path == f"{LEAF}:{PORT}")
    assert pause.status == "fail"


def test_sigterm_stops_the_collector_cleanly(stack: Stack) -> None:
    t0 = time.monotonic()
    stack.collector.send_signal(signal.SIGTERM)
    out, _ = stack.collector.communicate(timeout=15)
    assert stack.collector.returncode == 0, out
    assert time.monotonic() - t0 < 10 and "telemetry stopped" in out
    assert "Traceback" not in out
