"""The collector against a lab on loopback: switches stream over gNMI and a host over SSH; a device that is down,
slow or refusing never stops the others, comes back after the fault with backoff; wrong credentials leave only
that device down; stopping closes everything promptly."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from labtools import free_endpoint_base, lab_mini, wait_until

pytest.importorskip("pygnmi")

from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.telemetry.collector import Collector, gnmi_settings
from roceops.telemetry.targets import Target, build_targets

pytestmark = pytest.mark.lab
NAMES = ["leaf-su1-r1", "leaf-su1-r2", "gpu001"]
INTERVAL = 0.3


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    base, port = free_endpoint_base()
    specs = lab_specs(lab_mini(), NAMES, configured=True)
    with LabThread(specs, Path(tmp_path_factory.mktemp("telemetry-lab")), base_address=base, port=port) as running:
        yield running


def _collector(lab: LabThread, extra: list[Target] = (), **settings: object) -> Collector:  # type: ignore[assignment]
    fabric = lab_mini()
    devices = [fabric.device(n) for n in NAMES]
    targets, skipped = build_targets(fabric, devices, lab.overlay)
    assert not skipped
    base = replace(gnmi_settings(INTERVAL, lab.overlay[NAMES[0]]["username"]), retry_s=(0.2, 0.4))
    collector = Collector(fabric, [*targets, *extra], replace(base, **settings), listen=("127.0.0.1", 0),
                          lab_dir=lab.state_dir)
    collector.start()
    return collector


def _pfc(collector: Collector, device: str) -> float | None:
    with collector.store._lock:
        parts = collector.store._devices[device].parts or {}
    rows = [v for p in parts.values() for row, v in p.get("pfc_pause_frames_total", {}).items()
            if row[4:7] == ("Ethernet0", "3", "rx")]
    return rows[0] if rows else None


def _transport(collector: Collector, counter: str) -> float | None:
    with collector.store._lock:
        parts = collector.store._devices["gpu001"].parts or {}
    rows = [v for p in parts.values() for row, v in p.get("nic_transport_errors_total", {}).items()
            if row[4] == "eth0" and row[-1] == counter]
    return rows[0] if rows else None


def test_switches_stream_and_hosts_are_sampled_into_the_endpoint(lab: LabThread) -> None:
    collector = _collector(lab)
    try:
        assert wait_until(lambda: all(collector.store.is_up(n) for n in NAMES))
        body = urllib.request.urlopen(f"http://127.0.0.1:{collector.port}/metrics", timeout=5).read().decode()
        assert 'roceops_pfcwd_storms_total{device="leaf-su1-r1",port="Ethernet0",queue="3",rail="1",su="1",' \
               'tier="leaf"}' in body
        assert 'roceops_nic_cnp_sent_total{device="gpu001",port="eth0",rail="1",su="1",tier="host"}' in body
        assert 'roceops_queue_drops_total{device="leaf-su1-r2",lossless="true"' in body
        first = _pfc(collector, "leaf-su1-r1")
        lab.inject("leaf-su1-r1", "pause_storm", port="Ethernet0")
        assert wait_until(lambda: (_pfc(collector, "leaf-su1-r1") or 0) > (first or 0) + 5_000)
        retransmits = _transport(collector, "out_of_sequence")
        lab.inject("gpu001", "retransmits", port="eth0")  # a lossy path: the NIC's transport errors climb
        assert wait_until(lambda: (_transport(collector, "out_of_sequence") or 0) > (retransmits or 0) + 50)
    finally:
        lab.clear()
        collector.stop()


def test_down_slow_and_refusing_devices_never_stop_the_others(lab: LabThread) -> None:
    dead = Target("ghost", "sonic", "gnmi", "127.0.0.1", 1, ("ghost", "leaf", "9", "9"))  # nothing listens there
    collector = _collector(lab, extra=[dead])
    try:
        assert wait_until(lambda: collector.store.is_up("leaf-su1-r1") and collector.store.is_up("leaf-su1-r2"))
        lab.inject("leaf-su1-r2", "refuse")
        lab.inject("gpu001", "slow", ms=3000)
        assert wait_until(lambda: not collector.store.is_up("leaf-su1-r2"))
        assert wait_until(lambda: not collector.store.is_up("gpu001"), timeout=12)
        before = _pfc(collector, "leaf-su1-r1")
        time.sleep(3 * INTERVAL)
        assert (_pfc(collector, "leaf-su1-r1") or 0) > (before or 0)  # the healthy leaf kept streaming
        assert collector.store.is_up("leaf-su1-r1") and not collector.store.is_up("ghost")
        worker = next(w for w in collector.workers if w.target.name == "leaf-su1-r2")
        assert "UNAVAILABLE" in worker.last_error
        lab.clear()
        assert wait_until(lambda: collector.store.is_up("leaf-su1-r2"))  # reconnected after the fault
        assert worker.sessions >= 2
    finally:
        lab.clear()
        collector.stop()


def test_wrong_credentials_leave_that_device_down_without_leaking_them(lab: LabThread) -> None:
    collector = _collector(lab, username="intruder", password="s3cret-pw")
    try:
        worker = next(w for w in collector.workers if w.target.name == "leaf-su1-r1")
        assert wait_until(lambda: "UNAUTHENTICATED" in worker.last_error)
        assert not collector.store.is_up("leaf-su1-r1") and "s3cret-pw" not in worker.last_error
        assert wait_until(lambda: collector.store.is_up("gpu001"))  # the host's SSH login is not gNMI's
    finally:
        collector.stop()


def test_stop_ends_every_worker_and_the_endpoint_promptly(lab: LabThread) -> None:
    collector = _collector(lab)
    assert wait_until(lambda: collector.store.is_up("leaf-su1-r1"))
    t0 = time.monotonic()
    collector.stop()
    assert time.monotonic() - t0 < 5
    assert not any(w.is_alive() for w in collector.workers)
    assert not [t for t in threading.enumerate() if t.name.startswith(("gnmi-", "ssh-"))]
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{collector.port}/metrics", timeout=2)


def test_sonic_link_flaps_stream_from_appl_db(lab: LabThread) -> None:
    """SONiC's flap count is APPL_DB PORT_TABLE's flap_count, on a second stream (another target) beside the
    COUNTERS_DB stream of the same switch; link_flap moves it."""
    collector = _collector(lab)

    def flaps() -> float | None:
        with collector.store._lock:
            parts = collector.store._devices["leaf-su1-r1"].parts or {}
        rows = [v for p in parts.values() for row, v in p.get("link_flaps_total", {}).items() if row[4] == "Ethernet0"]
        return rows[0] if rows else None

    try:
        names = sorted(w.name for w in collector.workers if w.target.name == "leaf-su1-r1")
        assert names == ["gnmi-leaf-su1-r1-APPL_DB", "gnmi-leaf-su1-r1-COUNTERS_DB"]
        assert wait_until(lambda: collector.store.is_up("leaf-su1-r1"))
        time.sleep(2 * INTERVAL)
        before = flaps() or 0  # absent while the port never flapped (earlier tests' faults may have flapped it)
        lab.inject("leaf-su1-r1", "link_flap", port="Ethernet0")
        assert wait_until(lambda: (flaps() or 0) >= before + 2)
    finally:
        lab.clear()
        collector.stop()
