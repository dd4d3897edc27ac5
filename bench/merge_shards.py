"""Bench: `roceops merge` of 16 shards of a 3,328-device audit (the 64-SU example), JSON in and out.

Goal (issue 28): under 1 s. The shards are made without devices: the 64-SU fabric is cut with `--shard I/16`'s own
partition, and one device in ten gets three findings (a drifted port, a PFC mismatch, an unreachable device in
one of a hundred). Timed: reading the 16 files, checking they are one run, merging, writing the merged JSON.
Run: python bench/merge_shards.py [SUS] [SHARDS]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import superpod

from roceops.audit import report as audit_report
from roceops.audit.device import DeviceAudit
from roceops.audit.engine import AuditResult
from roceops.audit.merge import merge_audit
from roceops.report import json_doc
from roceops.report.result import Result
from roceops.report.shards import check_shards, identity, with_identity
from roceops.topology.expand import expand
from roceops.topology.sharding import Shard, shard_names


def findings_of(i: int, name: str) -> list[Result]:
    if i % 100 == 0:
        return [Result(check="device.unreachable", device=name, path="", status="error",
                       message="could not reach the device")]
    if i % 10:
        return []
    return [Result(check="config.drift", device=name, path=f"ports[Ethernet{k}].pfc_priorities", expected=[3],
                    observed=[], message="PFC off", hint="roceops deploy --limit " + name) for k in (0, 4)] + [
        Result(check="pfc.mismatch", device=name, path="ports[Ethernet8].mtu", expected=9216, observed=1500)]


def write_shards(folder: Path, sus: int, count: int) -> list[Path]:
    fabric = expand(superpod(sus))
    names = [d.name for d in fabric.devices()]
    index = {n: i for i, n in enumerate(names)}
    paths = []
    for k in range(1, count + 1):
        shard = Shard(k, count)
        mine = shard_names(fabric, names, shard)
        audits = [DeviceAudit(device=n, platform=fabric.device(n).platform, findings=findings_of(index[n], n))
                  for n in mine]
        result = AuditResult(fabric=fabric.intent.name, devices=mine, audits=audits,
                             findings=sorted((f for a in audits for f in a.findings),
                                             key=lambda f: (f.device, f.path, f.check)), seconds=60.0)
        path = folder / f"shard-{k}.json"
        run = with_identity(audit_report.run_of(result), identity("0" * 64, "bench", shard, names, mine))
        path.write_text(json_doc.to_json(result.findings, run))
        paths.append(path)
    return paths


def main() -> None:
    sus = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_shards(Path(tmp), sus, count)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            docs = [(str(p), json.loads(p.read_text())) for p in paths]
            result, resolved = merge_audit(check_shards(docs, "audit"))
            text = json_doc.to_json(result.findings, audit_report.run_of(result, resolved))
            times.append(time.perf_counter() - start)
    print(f"merge of {count} shards: {len(result.devices)} devices, {len(result.findings)} findings, "
          f"{len(text) // 1024} KiB of JSON out: best {min(times):.3f} s, worst {max(times):.3f} s")


if __name__ == "__main__":
    main()
