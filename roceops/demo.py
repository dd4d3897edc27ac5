"""``roceops demo``: the whole value in one command, on a laptop, no root, no hardware.

Starts a private lab for inventory/lab-mini.yaml (its own state dir, journal and
loopback range, so it never disturbs a lab you run yourself), then validates, renders,
deploys, audits, reboots a host (its settings come back from the installed files), injects
two realistic faults, audits and health-checks, re-deploys, audits clean and stops the lab,
narrating each step in a line or two.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from roceops import registry
from roceops.audit.engine import AuditOptions, run_audit
from roceops.deploy.engine import DeployOptions, deploy
from roceops.health.engine import HealthOptions, run_health
from roceops.journal import Journal
from roceops.lab.control import ControlClient
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import start_lab, stop_lab
from roceops.lint import lint
from roceops.model.loader import load
from roceops.render.build import render_devices, write_build
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

DEMO_BASE_ADDRESS = "127.20.0.1"
DEMO_PORT = 2223


class DemoFailed(RuntimeError):
    pass


def _nic_and_port(fabric: Fabric) -> tuple[str, str, str, str, str]:
    """A host whose NIC will 'reboot' and another host whose leaf port loses PFC (different leaves)."""
    a, b = fabric.hosts[1], fabric.hosts[2]
    nic_a = a.nics[0]
    nic_b = b.nics[-1]
    return a.name, nic_a.netdev, b.name, nic_b.leaf, nic_b.leaf_port


def _device_counts(fabric: Fabric) -> str:
    """``4 SONiC leaf, 2 Arista EOS spine, 8 ... host``: devices per registered platform and role."""
    counts = Counter((d.platform, d.role) for d in fabric.devices())
    return ", ".join(f"{n} {registry.get(platform).title} {role}" for (platform, role), n in
                     sorted(counts.items(), key=lambda kv: (registry.names().index(kv[0][0]), kv[0][1])))


def run_demo(fabric_path: Path, out: Path, say: Callable[[str], None]) -> int:
    t0 = time.monotonic()
    source = load(fabric_path)
    fabric = expand(source.intent)
    report = lint(source.intent, fabric)
    say(f"1. validate: {fabric.intent.name} is {'valid' if report.ok else 'INVALID'} "
        f"({len(report.errors)} errors, {len(report.warnings)} warnings): {_device_counts(fabric)}")
    if not report.ok:
        raise DemoFailed("the demo fabric does not validate")
    rendered = render_devices(fabric, list(fabric.devices()))
    write_build(out, fabric.intent.name, source.source_hash, rendered)
    say(f"2. render: {sum(len(r.files) for r in rendered)} files for {len(rendered)} devices in {out}/")
    with tempfile.TemporaryDirectory(prefix="roceops-demo-") as tmp:
        state = Path(tmp) / "lab"
        started = start_lab(lab_specs(fabric), state, port=DEMO_PORT, base_address=DEMO_BASE_ADDRESS)
        say(f"3. lab: {started.devices} simulated devices answering SSH on {DEMO_BASE_ADDRESS}+ "
            f"(started in {started.seconds:.1f}s)")
        journal = Journal(Path(tmp) / "journal.sqlite")
        try:
            return _story(fabric, state, journal, say, t0)
        finally:
            journal.close()
            stop_lab(state)
            say(f"10. lab stopped; the demo took {time.monotonic() - t0:.0f}s")


def _deploy(fabric: Fabric, state: Path, journal: Journal, label: str) -> dict[str, int]:
    names = [d.name for d in fabric.devices()]
    run_id = journal.start_run("deploy", fabric.intent.name, "demo", {"demo": label})
    opts = DeployOptions(commit=True, bringup=True, canary=3, batch="50%", lab_dir=state, quiet=True, timeout_s=60)
    rep = deploy(fabric, names, opts, journal, run_id)
    journal.finish_run(run_id, "demo", rep.exit_code)
    counts: dict[str, int] = {}
    for o in rep.outcomes.values():
        counts[o.status] = counts.get(o.status, 0) + 1
    if rep.exit_code:
        bad = [f"{o.device}: {o.status} {o.error}" for o in rep.outcomes.values() if o.status not in
               ("changed", "unchanged")]
        raise DemoFailed(f"deploy failed: {'; '.join(bad[:3])}")
    return counts


def _audit(fabric: Fabric, state: Path) -> list[str]:
    result = run_audit(fabric, [d.name for d in fabric.devices()], AuditOptions(lab_dir=state, quiet=True))
    if result.unreachable:
        raise DemoFailed(f"audit could not reach {', '.join(result.unreachable)}")
    return [f"{f.device} {f.path or f.check}" for f in result.findings]


def _story(fabric: Fabric, state: Path, journal: Journal, say: Callable[[str], None], t0: float) -> int:
    counts = _deploy(fabric, state, journal, "initial")
    say(f"4. deploy: canary then batches, each device in its own transaction: {counts.get('changed', 0)} changed")
    found = _audit(fabric, state)
    say(f"5. audit: {'no drift' if not found else f'{len(found)} findings: ' + '; '.join(found)}")
    host_a, nic_a, host_b, leaf, port = _nic_and_port(fabric)
    control = ControlClient(state)
    control.inject(host_a, "reboot")
    after_reboot = _audit(fabric, state)
    say(f"   reboot of {host_a}: "
        f"{after_reboot if after_reboot else 'its settings came back from the installed files'}")
    control.inject(host_a, "nic_reset", port=nic_a)
    control.inject(leaf, "pfc_off", port=port)
    say(f"6. fault: {host_a} {nic_a}'s driver was reloaded and lost its DCQCN/trust/PFC settings; "
        f"someone turned PFC off on {leaf} {port} (cabled to {host_b})")
    found = _audit(fabric, state)
    say(f"7. audit: {len(found)} drifted settings: " + "; ".join(found[:6]) + (" ..." if len(found) > 6 else ""))
    health = run_health(fabric, [h.name for h in fabric.hosts],
                        HealthOptions(window_s=1.0, deadline_s=25.0, lab_dir=state))
    drains = [v for v in health.verdicts if v.status != "ok"]
    say(f"8. health: {len(health.verdicts) - len(drains)} nodes ok, drain "
        + ", ".join(f"{v.node} ({v.reasons[0] if v.reasons else v.status})" for v in drains))
    control.clear(None)
    counts = _deploy(fabric, state, journal, "remediate")
    found = _audit(fabric, state)
    say(f"9. re-deploy: {counts.get('changed', 0)} devices fixed, {counts.get('unchanged', 0)} untouched; "
        f"audit: {'clean' if not found else '; '.join(found)}")
    expected = {host_a, host_b}
    ok = not found and {v.node for v in drains} == expected and not after_reboot
    say("demo OK: both faults found, exactly the affected nodes drained, remediated by re-deploy" if ok else
        f"demo FAILED: drained {sorted(v.node for v in drains)}, expected {sorted(expected)}; left {found}")
    return 0 if ok else 1
