"""Bench: `roceops topology --format slurm` and `--format k8s-labels` on the 64-SU example (3,328 devices).

Goal (issue 28): the export under 1 s. Prints the export alone (the fabric already expanded) and the whole command
(load + expand + export, in this process), best of 3.
Run: python bench/topology_export.py [SUS]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import superpod

from roceops.cli.gc_tuning import run_gc
from roceops.topology.expand import expand
from roceops.topology.scheduler import k8s_labels, parse_topology_conf, slurm_topology_conf


def best(fn, runs: int = 3) -> tuple[object, float]:
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, min(times)


def main() -> None:
    sus = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    intent = superpod(sus)
    with run_gc(acyclic=True):
        fabric, t_expand = best(lambda: expand(intent), 1)
        conf, t_slurm = best(lambda: slurm_topology_conf(fabric))
        labels, t_k8s = best(lambda: k8s_labels(fabric))
        _, t_parse = best(lambda: parse_topology_conf(conf))
    devices = len(fabric.switches) + len(fabric.hosts)
    print(f"{sus} SUs, {devices} devices, {len(fabric.hosts)} nodes: expand {t_expand:.2f} s; "
          f"slurm export {t_slurm:.3f} s ({len(conf.splitlines())} lines), k8s-labels {t_k8s:.3f} s "
          f"({len(labels)} nodes), topology.conf parse {t_parse:.3f} s; "
          f"command total {t_expand + t_slurm:.2f} s")


if __name__ == "__main__":
    main()
