"""Cumulus (5.14+) and EOS switches stream OpenConfig leaves from the lab into the collector (PFC per priority, ECN
per queue, errors, carrier transitions), moved by pause_storm and link_flap; Cumulus has no watchdog leaf, so that
series stays absent."""

from __future__ import annotations

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
from roceops.telemetry.targets import build_targets

pytestmark = pytest.mark.lab
CUMULUS, EOS = "leaf-su2-r1", "spine01"
INTERVAL = 0.3


@pytest.fixture(scope="module")
def collector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LabThread, Collector]]:
    base, port = free_endpoint_base()
    fabric = lab_mini()
    specs = lab_specs(fabric, [CUMULUS, EOS], configured=True)
    with LabThread(specs, Path(tmp_path_factory.mktemp("oc-lab")), base_address=base, port=port) as lab:
        targets, skipped = build_targets(fabric, [fabric.device(CUMULUS), fabric.device(EOS)], lab.overlay)
        assert not skipped and {t.platform for t in targets} == {"cumulus", "eos"}
        settings = replace(gnmi_settings(INTERVAL, lab.overlay[CUMULUS]["username"]), retry_s=(0.2, 0.4))
        running = Collector(fabric, targets, settings, listen=("127.0.0.1", 0))
        running.start()
        try:
            yield lab, running
        finally:
            running.stop()


def _series(c: Collector, device: str, metric: str) -> dict[tuple[str, ...], float]:
    with c.store._lock:
        parts = c.store._devices[device].parts or {}
        return {row[4:]: v for p in parts.values() for row, v in p.get(metric, {}).items()}


def _port(lab: LabThread, device: str) -> str:
    fabric = lab_mini()
    ends = [e for link in fabric.links for e in (link.a, link.b) if e.device == device]
    return sorted(e.port for e in ends)[0]


def test_both_platforms_stream_pfc_ecn_errors_and_flaps(collector: tuple[LabThread, Collector]) -> None:
    lab, c = collector
    assert wait_until(lambda: c.store.is_up(CUMULUS) and c.store.is_up(EOS))
    for device in (CUMULUS, EOS):
        port = _port(lab, device)
        pfc = _series(c, device, "pfc_pause_frames_total")
        assert (port, "3", "rx") in pfc and (port, "3", "tx") in pfc  # the lossless priority, even at 0
        assert (port, "0", "rx") not in pfc or pfc[(port, "0", "rx")] > 0  # lossy zeros left out
        assert (port,) in _series(c, device, "link_flaps_total")
        assert (port,) in _series(c, device, "port_rx_errors_total")
        assert any(q == "3" for _, q in _series(c, device, "ecn_marked_packets_total"))
    body = urllib.request.urlopen(f"http://127.0.0.1:{c.port}/metrics", timeout=5).read().decode()
    assert f'roceops_target_up{{device="{CUMULUS}",platform="cumulus"' in body
    assert f'roceops_pfc_pause_frames_total{{device="{EOS}",direction="rx"' in body
    assert f'roceops_pfcwd_storms_total{{device="{CUMULUS}"' not in body  # no watchdog leaf: absent, never 0


def test_pause_storm_and_link_flap_move_the_streamed_counters(collector: tuple[LabThread, Collector]) -> None:
    lab, c = collector
    assert wait_until(lambda: c.store.is_up(CUMULUS) and c.store.is_up(EOS))
    try:
        for device in (CUMULUS, EOS):
            port = _port(lab, device)
            pfc0 = _series(c, device, "pfc_pause_frames_total")[(port, "3", "rx")]
            flaps0 = _series(c, device, "link_flaps_total")[(port,)]
            lab.inject(device, "pause_storm", port=port)
            lab.inject(device, "link_flap", port=port)
            assert wait_until(lambda d=device, p=port, v=pfc0:  # type: ignore[misc]
                         _series(c, d, "pfc_pause_frames_total")[(p, "3", "rx")] > v + 5_000)
            assert wait_until(lambda d=device, p=port, v=flaps0:  # type: ignore[misc]
                         _series(c, d, "link_flaps_total")[(p,)] >= v + 1)
    finally:
        lab.clear()
