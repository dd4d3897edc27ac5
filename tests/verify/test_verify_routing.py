"""verify routing on real FRR in network namespaces (lab-mini: 6 switches, 8 hosts, 32 cables).

Needs root, ``ip netns`` and FRR; skips with the reason otherwise. Every run removes its namespaces and
daemons; the last test SIGKILLs a run and checks that ``--cleanup`` removes what it left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

from conftest import REPO, example_dict
from frrkit import legacy_config_db
from planekit import needs_plane

from roceops.device.change import RenderedDevice
from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.verify.engine import VerifyOptions, VerifyResult, verify_routing
from roceops.verify.netns import namespaces_with_prefix

pytestmark = needs_plane


@cache
def fabric() -> Fabric:
    return expand(FabricIntent.model_validate(example_dict("lab-mini")))


def run(tmp_path: Path, **overrides: object) -> VerifyResult:
    opts = VerifyOptions(settle_s=1.0, settle_down_s=5.0, deadline_s=40.0, state_dir=tmp_path / "state")
    result = verify_routing(fabric(), opts, **overrides)  # type: ignore[arg-type]
    assert not [n for n in namespaces_with_prefix(result.run_id)], "namespaces left behind"
    assert not _our_processes(result.run_id), "FRR processes left behind"
    return result


def _our_processes(run_id: str) -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if f"roceops-{run_id}".encode() in cmd:
                out.append(int(proc.name))
    return out


def _summary(result: VerifyResult) -> list[tuple[str, str, str]]:
    return sorted((f.check, f.device, f.path) for f in result.findings)


def test_lab_mini_routes_and_pings(tmp_path: Path) -> None:
    result = run(tmp_path)
    assert result.findings == [], _summary(result)
    assert result.exit_code == 0
    assert result.counts["established"] == result.counts["sessions"] == 16
    assert result.counts["pings"] == 2 * 16 * 4 and result.counts["link_probes"] == 48


def test_old_sonic_render_misses_the_host_subnets(tmp_path: Path) -> None:
    """Issue 16 item 2 made visible: with the classic bgpcfgd render, no SONiC leaf announces its hosts."""
    sonic = [s.name for s in fabric().switches if s.platform == "sonic"]
    old = {}
    for name in sonic:
        files = dict(render_device(plan(fabric(), name)).files)
        files["config_db.json"] = legacy_config_db(files["config_db.json"])
        old[name] = RenderedDevice(name=name, platform="sonic", files=files)
    result = run(tmp_path, rendered=old)
    missing = {f.device for f in result.findings if f.check == "route.host_subnet"}
    assert missing >= {s.name for s in fabric().switches if s.role == "leaf"}
    su1 = {h.name for h in fabric().hosts if h.su == 1}
    assert {f.device for f in result.findings if f.check == "ping.reach"} >= su1
    assert result.exit_code == 1


def test_wrong_neighbour_asn_is_one_session_finding(tmp_path: Path) -> None:
    leaf = plan(fabric(), "leaf-su1-r1")
    assert isinstance(leaf, SwitchIntent)
    first = leaf.bgp.neighbors[0]
    neighbors = [first.model_copy(update={"remote_asn": 65999}), *leaf.bgp.neighbors[1:]]
    broken = leaf.model_copy(update={"bgp": leaf.bgp.model_copy(update={"neighbors": neighbors})})
    result = run(tmp_path, intents={"leaf-su1-r1": broken})
    assert _summary(result) == [("bgp.session", "leaf-su1-r1", f"bgp[{first.ip}]")]


def test_missing_maximum_paths_is_one_ecmp_finding(tmp_path: Path) -> None:
    """EOS without maximum-paths installs one path: spine01 uses one of its two links to each leaf."""
    files = dict(render_device(plan(fabric(), "spine01")).files)
    files["config.eos"] = "\n".join(ln for ln in files["config.eos"].splitlines() if "maximum-paths" not in ln)
    result = run(tmp_path, rendered={"spine01": RenderedDevice(name="spine01", platform="eos", files=files)})
    assert _summary(result) == [("ecmp.width", "spine01", "ecmp.host_subnets")]
    assert result.findings[0].expected == "2 next hops"


def test_mtu_mismatch_on_one_cable_is_one_link_finding(tmp_path: Path) -> None:
    link = next(lk for lk in fabric().links if lk.tier == "leaf-spine")
    spine = plan(fabric(), link.b.device)
    assert isinstance(spine, SwitchIntent)
    ports = dict(spine.ports)
    ports[link.b.port] = ports[link.b.port].model_copy(update={"mtu": 9000})
    result = run(tmp_path, intents={link.b.device: spine.model_copy(update={"ports": ports})})
    assert _summary(result) == [("mtu.link", link.a.device, f"ports[{link.a.port}].mtu")]


LAB_MINI = str(REPO / "inventory" / "lab-mini.yaml")
CLI = [sys.executable, "-m", "roceops.cli.main", "verify", "routing", "-f", LAB_MINI, "--format", "json"]


def _start_until_frr(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A CLI run in ``tmp_path``, returned once its bgpds run (run id from its state file)."""
    proc = subprocess.Popen(CLI, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state_dir = tmp_path / ".roceops" / "verify"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        states = list(state_dir.glob("rv*.json"))
        if states:
            run_id = states[0].stem
            for pid in _our_processes(run_id):
                with contextlib.suppress(OSError):
                    if b"bgpd" in Path(f"/proc/{pid}/cmdline").read_bytes():
                        return proc, run_id
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the run never got to FRR")


def test_sigterm_stops_the_run_and_removes_everything(tmp_path: Path) -> None:
    proc, run_id = _start_until_frr(tmp_path)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 3
    assert namespaces_with_prefix(run_id) == [] and _our_processes(run_id) == []
    assert not list((tmp_path / ".roceops" / "verify").glob("rv*.json"))


def test_sigkilled_run_is_removed_by_cleanup(tmp_path: Path) -> None:
    proc, run_id = _start_until_frr(tmp_path)
    state_dir = tmp_path / ".roceops" / "verify"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert namespaces_with_prefix(run_id) and _our_processes(run_id)  # left behind by the kill
    done = subprocess.run([*CLI[:5], "--cleanup"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert run_id in done.stdout
    time.sleep(0.5)
    assert namespaces_with_prefix(run_id) == [] and _our_processes(run_id) == []
    assert not list(state_dir.glob("rv*.json"))
