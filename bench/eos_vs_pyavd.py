"""EOS configs per second: roceops (plan + render) against Arista AVD's pyavd (validate + eos_cli_config_gen) for
the same devices (issue 32: roceops >= 60x pyavd at equal count).

pyavd is installed only here, into its own venv (default ``.bench-venvs/pyavd``, created on first run with
``pip install pyavd==6.4.0``), never into roceops' environment. The structured config given to pyavd carries
the same settings as roceops' EOS context (the mapping of tests/platforms/eos/test_eos_avd_diff.py, issue 27):
interfaces, QoS maps, tx-queues with ECN and PFC (as one qos profile), the PFC watchdog, loopback and BGP.
Building that structured config is not timed; pyavd's time is its schema validation plus its config generation.
Both sides are timed in one process each, single core, as CPU seconds.

    python bench/eos_vs_pyavd.py [--sus 8] [--devices 320] [--pyavd-python PATH] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the mapping to AVD structured config that the AVD diff test uses (one copy, beside that test)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "platforms" / "eos"))

from avd_mapping import structured_config
from common import superpod

from roceops.cli.gc_tuning import run_gc
from roceops.plan import plan
from roceops.platforms.eos.render import render_context
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

PYAVD = "pyavd==6.4.0"

# runs in the pyavd venv: reads the structured configs, prints CPU seconds and the configs' total size
AVD_TIMER = """
import json, sys, time
import pyavd
configs = json.load(open(sys.argv[1]))
best = None
for _ in range(int(sys.argv[2])):
    start = time.process_time()
    size = 0
    for sc in configs:
        result = pyavd.validate_structured_config(sc)
        assert not result.validation_result.violations, result.validation_result.violations[:3]
        size += len(pyavd.get_device_config(result.validated_data))
    spent = time.process_time() - start
    best = spent if best is None else min(best, spent)
print(json.dumps({"cpu_s": best, "bytes": size}))
"""


def pyavd_python(given: str | None) -> Path:
    """The pyavd venv's python: the one given, else ``.bench-venvs/pyavd`` (created with pyavd on first use)."""
    if given:
        return Path(given)
    venv = Path(__file__).resolve().parents[1] / ".bench-venvs" / "pyavd"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PYAVD], check=True)
    return python


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sus", type=int, default=8, help="SUs of the bench superpod (EOS spines and cores)")
    ap.add_argument("--devices", type=int, default=320, help="EOS devices rendered by each side")
    ap.add_argument("--pyavd-python", help="a python with pyavd installed (default: the bench's own venv)")
    ap.add_argument("--repeat", type=int, default=5, help="passes per side; the best (least CPU) of each is compared")
    args = ap.parse_args()
    python = pyavd_python(args.pyavd_python)
    with run_gc(acyclic=True):
        fabric = expand(superpod(args.sus))
    names = [s.name for s in fabric.switches if s.platform == "eos"][:args.devices]
    intents = [plan(fabric, n) for n in names[:8]]
    for i in intents:  # warm: templates compiled, caches filled, as in a long render
        render_device(i)
    ours = float("inf")
    for _ in range(args.repeat):  # one pass is ~0.3 s: best of N, as for pyavd, so load spikes do not decide
        start = time.process_time()
        size = 0
        with run_gc(acyclic=True):
            for n in names:
                size += sum(len(t) for t in render_device(plan(fabric, n)).files.values())
        ours = min(ours, time.process_time() - start)
    configs = [structured_config(render_context(plan(fabric, n))) for n in names]
    with tempfile.NamedTemporaryFile("w", suffix=".json") as fh:
        json.dump(configs, fh)
        fh.flush()
        done = subprocess.run([str(python), "-c", AVD_TIMER, fh.name, str(args.repeat)], capture_output=True,
                              text=True, check=True)
    avd = json.loads(done.stdout)
    print(f"{len(names)} EOS devices ({args.sus} SUs), one core, CPU seconds (best of {args.repeat} passes):")
    print(f"roceops plan+render:            {ours:7.2f} s, {len(names) / ours:8.0f} devices/s, "
          f"{size / 2**20:.1f} MiB of config")
    print(f"pyavd validate+eos_cli_config_gen: {avd['cpu_s']:7.2f} s, {len(names) / avd['cpu_s']:8.1f} devices/s, "
          f"{avd['bytes'] / 2**20:.1f} MiB of config")
    print(f"ratio roceops / pyavd devices/s: {avd['cpu_s'] / ours:.1f}x")


if __name__ == "__main__":
    main()
