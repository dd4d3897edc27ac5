"""EOS configs per second: roceops (plan + render) against Arista AVD's pyavd (validate + eos_cli_config_gen) for
the same devices (issue 32: roceops >= 60x pyavd at equal count).

pyavd is installed only here, into its own venv (default ``.bench-venvs/pyavd``, created on first run with
``pip install pyavd==6.4.0``), never into roceops' environment. The structured config given to pyavd carries
the same settings as roceops' EOS context (the mapping of tests/platforms/eos/test_eos_avd_diff.py, issue 27):
interfaces, QoS maps, tx-queues with ECN and PFC (as one qos profile), the PFC watchdog, loopback and BGP.
Building that structured config is not timed; pyavd's time is its schema validation plus its config generation.
Both sides are timed in one process each, single core, as CPU seconds.

    python bench/eos_vs_pyavd.py [--sus 8] [--devices 320] [--pyavd-python PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import superpod

from roceops.cli.gc_tuning import run_gc
from roceops.plan import plan
from roceops.platforms.eos.render import render_context
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

PYAVD = "pyavd==6.4.0"
PROFILE = "ROCE"

# runs in the pyavd venv: reads the structured configs, prints CPU seconds and the configs' total size
AVD_TIMER = """
import json, sys, time
import pyavd
configs = json.load(open(sys.argv[1]))
start = time.process_time()
size = 0
for sc in configs:
    result = pyavd.validate_structured_config(sc)
    assert not result.validation_result.violations, result.validation_result.violations[:3]
    size += len(pyavd.get_device_config(result.validated_data))
print(json.dumps({"cpu_s": time.process_time() - start, "bytes": size}))
"""


def structured_config(ctx: dict[str, Any]) -> dict[str, Any]:
    """roceops' EOS render context as AVD eos_cli_config_gen structured config (pyavd 6.4 schema); the mapping of
    tests/platforms/eos/test_eos_avd_diff.py (per-interface QoS as one ``qos profile`` + ``service-profile``)."""
    queues = []
    for q in ctx["tx_queues"]:
        d: dict[str, Any] = {"id": q["id"], "priority": q["priority"]}
        if q["bandwidth_percent"] is not None:
            d["bandwidth_percent"] = q["bandwidth_percent"]
        if q["ecn"]:
            d["random_detect"] = {"ecn": {"count": True, "threshold": {
                "units": q["ecn"]["unit"], "min": q["ecn"]["min"], "max": q["ecn"]["max"],
                "max_probability": q["ecn"]["probability"]}}}
        queues.append(d)
    first = ctx["interfaces"][0]
    pfc: dict[str, Any] = {"enabled": True, "priorities": [{"priority": p, "no_drop": True}
                                                          for p in first.pfc_priorities]}
    if first.pfc_watchdog:
        pfc["watchdog"] = {"enabled": True}
    profile = {"name": PROFILE, "trust": first.trust, ctx["tx_queue_keyword"].replace("-", "_") + "s": queues,
               "priority_flow_control": pfc}
    interfaces = [{k: v for k, v in {
        "name": i.name, "description": i.description or None, "shutdown": i.shutdown, "mtu": i.mtu, "speed": i.speed,
        "switchport": {"enabled": False}, "ip_address": i.address, "service_profile": PROFILE}.items() if v is not None}
        for i in ctx["interfaces"]]
    bgp = ctx["bgp"]
    out: dict[str, Any] = {
        "hostname": ctx["hostname"], "service_routing_protocols_model": "multi-agent", "ip_routing": True,
        "ethernet_interfaces": interfaces, "qos_profiles": [profile],
        "loopback_interfaces": [{"name": ctx["loopback"]["name"], "ip_address": ctx["loopback"]["address"]}],
        "qos": {"map": {"dscp": [f"{' '.join(map(str, d))} to traffic-class {tc}" for tc, d in ctx["dscp_maps"]],
                        "traffic_class": [f"{tc} to tx-queue {q}" for tc, q in ctx["tc_queue_maps"]]}},
        "router_bgp": {"as": str(bgp["asn"]), "router_id": bgp["router_id"],
                       "maximum_paths": {"paths": bgp["maximum_paths"], "ecmp": bgp["maximum_paths"]},
                       "neighbors": [{"ip_address": n["ip"], "remote_as": str(n["remote_as"]),
                                      "description": n["description"]} for n in bgp["neighbors"]],
                       "address_family_ipv4": {"networks": [{"prefix": p} for p in bgp["networks"]]}},
    }
    if ctx["watchdog"]:
        w = ctx["watchdog"]
        out["priority_flow_control"] = {"watchdog": {"action": w["action"], "timeout": w["timeout"],
                                                     "polling_interval": w["polling_interval"],
                                                     "recovery_time": w["recovery_time"]}}
    return out


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
    args = ap.parse_args()
    python = pyavd_python(args.pyavd_python)
    with run_gc(acyclic=True):
        fabric = expand(superpod(args.sus))
    names = [s.name for s in fabric.switches if s.platform == "eos"][:args.devices]
    intents = [plan(fabric, n) for n in names[:8]]
    for i in intents:  # warm: templates compiled, caches filled, as in a long render
        render_device(i)
    start = time.process_time()
    size = 0
    with run_gc(acyclic=True):
        for n in names:
            size += sum(len(t) for t in render_device(plan(fabric, n)).files.values())
    ours = time.process_time() - start
    configs = [structured_config(render_context(plan(fabric, n))) for n in names]
    with tempfile.NamedTemporaryFile("w", suffix=".json") as fh:
        json.dump(configs, fh)
        fh.flush()
        done = subprocess.run([str(python), "-c", AVD_TIMER, fh.name], capture_output=True, text=True, check=True)
    avd = json.loads(done.stdout)
    print(f"{len(names)} EOS devices ({args.sus} SUs), one core, CPU seconds:")
    print(f"roceops plan+render:            {ours:7.2f} s, {len(names) / ours:8.0f} devices/s, "
          f"{size / 2**20:.1f} MiB of config")
    print(f"pyavd validate+eos_cli_config_gen: {avd['cpu_s']:7.2f} s, {len(names) / avd['cpu_s']:8.1f} devices/s, "
          f"{avd['bytes'] / 2**20:.1f} MiB of config")
    print(f"ratio roceops / pyavd devices/s: {avd['cpu_s'] / ours:.1f}x")


if __name__ == "__main__":
    main()
