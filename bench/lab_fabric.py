"""Bench: start the lab for ~1,000 devices of a real mixed-platform fabric, then run two show commands
on every device through Nornir + Netmiko.

Goal (issue 4): 1,000 devices start in under 10 s in one process and under 300 MB.
Run: python bench/lab_fabric.py [SUS] [--configured] [--port P] [--base 127.x.y.z]
(18 SUs of 32 nodes x 8 rails -> 1,008 devices)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_lab_address, lab_fabric, lab_options, rss_of
from nornir.core.task import Result, Task

from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import start_lab, stop_lab
from roceops.nornir_glue.runner import make_nornir
from roceops.topology.expand import expand

SHOW = {
    "sonic": ["show version", "show interfaces status"],
    "cumulus": ["nv show system", "nv show interface"],
    "eos": ["show version", "show interfaces status"],
    "linux_mlx5": ["uname -r", "ip -j link show"],
}


def two_shows(task: Task) -> Result:
    conn = task.host.get_connection("netmiko", task.nornir.config)
    out = [conn.send_command(c) for c in SHOW[task.host.data["roceops_platform"]]]
    return Result(host=task.host, result=sum(len(o) for o in out))


def main(sus: int, configured: bool, port: int, base: str) -> None:
    check_lab_address(base, port)
    fabric = expand(lab_fabric(sus))
    names = [d.name for d in fabric.devices()]
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        t_specs = time.perf_counter()
        specs = lab_specs(fabric, configured=configured)
        t0 = time.perf_counter()
        print(f"specs built in {t0 - t_specs:.1f} s (configured={configured})")
        started = start_lab(specs, state, port=port, base_address=base)
        t1 = time.perf_counter()
        print(f"{len(names)} devices ({sus} SUs): lab started in {t1 - t0:.2f} s, RSS {rss_of(started.pid):.0f} MiB")
        try:
            for workers in (100,):
                nr = make_nornir(fabric, names, lab_dir=state, workers=workers, timeout_s=60)
                t2 = time.perf_counter()
                res = nr.run(task=two_shows)
                nr.close_connections()
                t3 = time.perf_counter()
                failed = [h for h, r in res.items() if r.failed]
                print(f"nornir, {workers} workers: two show commands on {len(names)} devices in {t3 - t2:.1f} s "
                      f"({len(names) / (t3 - t2):.0f} devices/s), {len(failed)} failed; lab RSS now "
                      f"{rss_of(started.pid):.0f} MiB")
        finally:
            stop_lab(state)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=18)
    ap.add_argument("--configured", action="store_true", help="every device preloaded with its rendered config")
    lab_options(ap, "127.60.0.1")
    args = ap.parse_args()
    main(args.sus, args.configured, args.port, args.base)
