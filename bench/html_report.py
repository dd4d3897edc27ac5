"""Bench: the HTML report of a 3,328-device audit (64 SUs: 512 leaves, 512 spines, 256 cores, 2,048 hosts).

Goal (issue 31): written in under 2 s and under 10 MB. The audit result is made up (no lab): one PFC finding on
every leaf, an ECN finding on every 8th spine, a DCQCN finding on every 16th host and 10 unreachable hosts, so
the page carries ~800 findings and every status the map draws. Expansion is not timed (the CLI has the fabric).
``--per-device N`` adds N findings on every device (a worst case: a fabric-wide drift).
Run: python bench/html_report.py [SUS] [--out FILE] [--per-device N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import superpod

from roceops.audit.engine import AuditResult
from roceops.audit.report import run_of
from roceops.report.files import write_atomic
from roceops.report.html import render_html
from roceops.report.result import Result
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric


def made_up_audit(fabric: Fabric, per_device: int = 0) -> AuditResult:
    findings = [Result(check="config.drift", device=d.name, path=f"ports[Ethernet{4 * k}].mtu", expected=9216,
                        observed=1500) for d in fabric.devices() for k in range(per_device)]
    for s in fabric.switches:
        if s.role == "leaf":
            findings.append(Result(check="config.drift", device=s.name, path="ports[Ethernet0].pfc_priorities",
                                    expected=[3], observed=[], hint=f"roceops deploy --limit {s.name} --commit"))
        elif s.role == "spine" and s.index % 8 == 0:
            findings.append(Result(check="config.drift", device=s.name, path="qos.queues[3].ecn.min_bytes",
                                    expected=153600, observed=51200, status="warn"))
    for i, h in enumerate(fabric.hosts):
        if i % 16 == 0:
            findings.append(Result(check="config.drift", device=h.name, path="nics[eth0].dcqcn.enabled_priorities",
                                    expected=[3], observed=[]))
        elif i % 200 == 1:
            findings.append(Result(check="device.unreachable", device=h.name, status="error", message="timed out"))
    names = [d.name for d in fabric.devices()]
    return AuditResult(fabric=fabric.intent.name, devices=names, audits=[], findings=findings, seconds=12.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sus", nargs="?", type=int, default=64)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--per-device", type=int, default=0, help="also N MTU findings on every device")
    args = parser.parse_args()
    fabric = expand(superpod(args.sus))
    result = made_up_audit(fabric, args.per_device)
    out = args.out or Path(tempfile.mkdtemp()) / "audit.html"
    start, cpu = time.perf_counter(), time.process_time()
    write_atomic(out, render_html(result.findings, run_of(result), fabric, "roceops audit --format html"))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    size = out.stat().st_size
    print(f"{args.sus} SUs, {sum(1 for _ in fabric.devices())} devices, {len(result.findings)} findings: "
          f"HTML written in {seconds:.2f} s ({cpu:.2f} CPU-s), {size / 1e6:.2f} MB ({out})")


if __name__ == "__main__":
    main()
