"""Bench: `roceops telemetry`'s collector streaming 1,008 lab switches over gNMI (SAMPLE mode, pygnmi) at a 10 s
interval: client CPU per device per sample, peak memory, the series count; then the series of a whole 64-SU fabric.

Goal (issue 30): client CPU <= 3 ms per device per sample (a plain pygnmi client against a stub measured 3.0-3.5 ms;
the SSH path costs about 28 ms). The lab runs in its own process (start_lab), so this process's CPU time is the
collector's alone: its threads, pygnmi's, gRPC's and one /metrics exposition per interval (as Prometheus scrapes).
Run: python bench/telemetry_scale.py [--devices 1008] [--interval 10] [--samples 6] [--lab-shards 4] [--unconfigured]
     python bench/telemetry_scale.py --decode-only   (one leaf's recorded gNMI messages: parse + decode + store only)
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import rss_of, superpod

from roceops.cli.gc_tuning import run_gc
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import read_overlay, start_lab, stop_lab
from roceops.telemetry.collector import Collector, gnmi_settings
from roceops.telemetry.targets import Target, build_targets
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

SUS = 64  # a 64-SU SuperPOD-style fabric, SONiC on every tier (the lab's gNMI speaks SONiC's paths)


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fabric_series(fabric: Fabric, per_switch_port: float, per_nic: float) -> tuple[int, int]:
    """(switch series, host series) of a whole fabric at the measured series per used switch port and per NIC."""
    ports = sum(len({link.a.port for link in fabric.links if link.a.device == d.name}
                    | {link.b.port for link in fabric.links if link.b.device == d.name})
                for d in fabric.devices() if d.kind == "switch")
    nics = sum(len(h.nics) for h in fabric.hosts)
    switches = sum(1 for d in fabric.devices() if d.kind == "switch")
    return round(ports * per_switch_port) + switches, round(nics * per_nic) + len(fabric.hosts)


def decode_only(fabric: Fabric, rounds: int = 200) -> None:
    """Client CPU of one sample without the transport: the collector's parse, the room's decode and the store, on
    messages recorded from a configured lab leaf (in-process lab, 100 ms SAMPLE interval)."""
    from pygnmi.client import gNMIclient

    from roceops.lab.runtime import LabThread
    from roceops.platforms.sonic.gnmi_paths import GNMI
    from roceops.telemetry.collector import _quiet_cancelled_streams
    from roceops.telemetry.gnmi_worker import parse, readings_of
    from roceops.telemetry.store import Store

    threading.excepthook = _quiet_cancelled_streams
    leaf = next(d.name for d in fabric.devices() if d.role == "leaf")
    with tempfile.TemporaryDirectory() as tmp, LabThread(lab_specs(fabric, [leaf], configured=True), Path(tmp),
                                                         base_address="127.72.0.1") as lab:
        target = build_targets(fabric, [fabric.device(leaf)], lab.overlay)[0][0]
        o = lab.overlay[leaf]
        request = {"subscription": [{"path": p, "mode": "sample", "sample_interval": 100_000_000} for p in GNMI.paths],
                   "mode": "stream", "encoding": "json_ietf"}
        with gNMIclient(target=(o["host"], o["gnmi_port"]), username="admin", password="", insecure=True) as gc:
            stream = gc.subscribe_stream(subscribe=request, target=GNMI.target)
            stream.get_update(5)
            raw = [stream._updates.get(timeout=5) for _ in range(10)]  # the wire messages, before parsing
            stream.close()
    store = Store()
    store.register(target.name, target.platform, target.place)
    cpu = time.process_time()
    for _ in range(rounds // len(raw)):
        for message in raw:
            for path, readings in readings_of(target, GNMI, parse(message)):
                store.put(target.name, readings, part=path)
    ms = (time.process_time() - cpu) / (rounds // len(raw) * len(raw)) * 1000
    print(f"decode only: {ms:.2f} ms CPU per sample of {leaf} ({len(raw[0].SerializeToString()) / 1024:.0f} KiB "
          f"message, {store.series_count()} series kept)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=1008)
    ap.add_argument("--interval", type=float, default=10.0)
    ap.add_argument("--samples", type=int, default=6, help="intervals measured after every device streamed once")
    ap.add_argument("--unconfigured", action="store_true", help="switches without their QoS config (fewer series)")
    ap.add_argument("--decode-only", action="store_true", help="only the per-sample decode cost, no scale run")
    ap.add_argument("--lab-shards", type=int, default=1, help="lab processes the switches are split over")
    args = ap.parse_args()
    with run_gc(acyclic=True):
        fabric = expand(superpod(SUS, "sonic", "sonic", "sonic"))
    if args.decode_only:
        decode_only(fabric)
        return
    names = [d.name for d in fabric.devices() if d.kind == "switch"][:args.devices]
    t0 = time.perf_counter()
    specs = lab_specs(fabric, names, configured=not args.unconfigured)
    print(f"{len(names)} SONiC switches of a {SUS}-SU fabric; specs in {time.perf_counter() - t0:.1f} s; "
          f"{args.lab_shards} lab process(es)")
    with tempfile.TemporaryDirectory() as tmp:
        states: list[Path] = []
        try:
            for k in range(args.lab_shards):  # one lab process cannot feed ~1,000 streams: shards on their own 127.x
                state = Path(tmp) / f"lab{k}"
                started = start_lab(specs[k::args.lab_shards], state, base_address=f"127.{71 + 10 * k}.0.1",
                                    timeout=600)
                states.append(state)
                print(f"lab shard {k} up in {started.seconds:.1f} s, RSS {rss_of(started.pid):.0f} MiB")
            overlay = {n: o for st in states for n, o in read_overlay(st).items()}
            run(fabric, names, overlay, args)
        finally:
            for st in states:
                stop_lab(st)


def run(fabric: Fabric, names: list[str], overlay: dict[str, Any], args: argparse.Namespace) -> None:
    targets, skipped = build_targets(fabric, [fabric.device(n) for n in names], overlay)
    assert not skipped, skipped[:3]
    rss_before = _rss_mib()
    with run_gc():  # as `roceops telemetry` does: the fabric and targets frozen out of the GC's walks
        measure(fabric, names, targets, rss_before, args)


def measure(fabric: Fabric, names: list[str], targets: list[Target], rss_before: float,
            args: argparse.Namespace) -> None:
    collector = Collector(fabric, targets, gnmi_settings(args.interval, "admin"), listen=("127.0.0.1", 0))
    collector.start()
    url = f"http://127.0.0.1:{collector.port}/metrics"
    try:
        t0 = time.monotonic()
        while not all(collector.store.is_up(n) for n in names) and time.monotonic() - t0 < 6 * args.interval + 60:
            time.sleep(0.5)
        up = sum(collector.store.is_up(n) for n in names)
        print(f"{up} of {len(names)} streaming {time.monotonic() - t0:.1f} s after start; "
              f"{collector.store.series_count():,} series")
        spec = next(w for w in collector.workers).spec  # type: ignore[union-attr]
        paths = sum(len(s.paths) for s in (spec, *spec.also))  # one put per path per sample, over every stream
        samples0, cpu0, wall0 = collector.store._samples, time.process_time(), time.monotonic()
        scrape_cpu, body = 0.0, b""
        for _ in range(args.samples):
            time.sleep(args.interval)
            c = time.process_time()
            request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})  # as Prometheus asks
            body = urllib.request.urlopen(request, timeout=60).read()  # the scrape Prometheus would do
            scrape_cpu += time.process_time() - c
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        samples = (collector.store._samples - samples0) / paths
        per_sample_ms = (cpu - scrape_cpu) / samples * 1000
        series = collector.store.series_count()
        up = sum(collector.store.is_up(n) for n in names)
        reconnects = sum(max(0, w.sessions - 1) for w in collector.workers)  # type: ignore[union-attr]
        print(f"{samples:.0f} device samples in {wall:.0f} s ({samples / len(names) / (wall / args.interval):.2f} "
              f"of the expected per device; {up} up at the end, {reconnects} reconnects): "
              f"client CPU {per_sample_ms:.2f} ms per device per sample "
              f"(without scrapes), {cpu / wall * 100:.0f} % of a core in total; one /metrics scrape "
              f"{scrape_cpu / args.samples * 1000:.0f} ms CPU, {len(body) / 2**20:.1f} MiB gzipped; "
              f"with one scrape per interval: {cpu / samples * 1000:.2f} ms per device per sample")
        print(f"collector RSS: {rss_before:.0f} MiB before it started (the expanded fabric), peak "
              f"{_rss_mib():.0f} MiB; {series:,} series, {series / len(names):.0f} per switch")
        leaf = next(t for t in targets if t.place[1] == "leaf")
        with collector.store._lock:
            parts = collector.store._devices[leaf.name].parts or {}
        leaf_series = sum(len(r) for p in parts.values() for r in p.values())
        leaf_ports = len({link.a.port for link in fabric.links if link.a.device == leaf.name}
                         | {link.b.port for link in fabric.links if link.b.device == leaf.name})
        per_port = leaf_series / max(1, leaf_ports)
        sw, hosts = fabric_series(fabric, per_port, per_nic=6)
        print(f"a {SUS}-SU fabric ({sum(1 for d in fabric.devices() if d.kind == 'switch')} switches, "
              f"{len(fabric.hosts)} hosts): ~{sw:,} switch series at {per_port:.1f} per used port "
              f"(a leaf here: {leaf_series} series, {leaf_ports} ports) + ~{hosts:,} host series at 6 per NIC "
              f"= ~{sw + hosts:,}")
    finally:
        collector.stop()


if __name__ == "__main__":
    main()
