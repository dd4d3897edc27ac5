"""lab up --routing: SONiC and Cumulus personalities answer BGP reads from the real FRR of the routing plane,
read over SSH by the product's drivers (needs root + FRR; skips otherwise)."""

from __future__ import annotations

import time
from pathlib import Path

from labtools import free_endpoint_base, lab_mini, netmiko_connect
from planekit import needs_plane

from roceops.cli.lab_routing import attach_vty
from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.verify.engine import VerifyOptions, running_plane

pytestmark = needs_plane

SWITCHES = {"leaf-su1-r1": "sonic", "leaf-su2-r1": "cumulus"}


def bgp_states(lab: LabThread, name: str, platform: str) -> dict[str, str]:
    driver = get_driver(platform)
    intent = plan(lab_mini(), name)
    conn = netmiko_connect(lab, name, platform)
    try:
        oper = for_intent(driver.operational(driver.collect(conn, intent)), intent)
    finally:
        conn.disconnect()
    return {ip: s.state for ip, s in oper.bgp.items()}


def test_bgp_reads_come_from_the_real_frr(tmp_path: Path) -> None:
    fab = lab_mini()
    opts = VerifyOptions(settle_s=1.0, state_dir=tmp_path / "verify")
    with running_plane(fab, opts) as run:
        vty = run.bgpd_vty()
        specs = lab_specs(fab, list(SWITCHES), configured=True)
        attach_vty(specs, vty)  # as `lab up --routing` does
        assert all("bgp_vty" in spec.extra for spec in specs)
        base, port = free_endpoint_base()
        lab = LabThread(specs, tmp_path / "lab", port=port, base_address=base).start()
        try:
            for name, platform in SWITCHES.items():
                states = bgp_states(lab, name, platform)
                want = {n.ip for n in plan(fab, name).bgp.neighbors}  # type: ignore[union-attr]
                assert set(states) == want and set(states.values()) == {"Established"}, (name, states)
            spine = next(i for i in run.instances if i.device == "spine01")
            spine.procs["bgpd"].kill()  # the real thing goes down: both personalities must see it
            spine.procs["bgpd"].wait()
            to_spine01 = {n.ip for name in SWITCHES for n in plan(fab, name).bgp.neighbors  # type: ignore[union-attr]
                          if n.description == "spine01"}
            deadline = time.monotonic() + 20
            while True:
                seen = {ip: st for name, p in SWITCHES.items() for ip, st in bgp_states(lab, name, p).items()}
                down = {ip for ip, st in seen.items() if st != "Established"}
                if down == to_spine01 or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert down == to_spine01, seen
        finally:
            lab.stop()
