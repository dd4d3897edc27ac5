"""NVUE 5.16 against the lab: lab-mini's Cumulus leaves pinned to 5.16 render the 5.15+ words (`state enabled`,
`ipv4 address`, `enabled|disabled`), deploy on simulated 5.16 switches (which refuse the old words) and audit
clean; the release table is roceops/platforms/cumulus/releases.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from labtools import EXAMPLES, free_endpoint_base

from roceops.audit.engine import AuditOptions, run_audit
from roceops.deploy.engine import DeployOptions, deploy
from roceops.device.intent import SwitchIntent
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.cumulus.frr import frr_bgpd_conf
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

pytestmark = pytest.mark.lab
DEVICES = ["leaf-su2-r1", "leaf-su2-r2"]  # the su2 group runs Cumulus (lab-mini overrides)


def fabric(release: str) -> Fabric:
    data = yaml.safe_load(EXAMPLES["lab-mini"].read_text())
    data["overrides"]["groups"]["su2"]["nos_version"] = release
    return expand(FabricIntent.model_validate(data))


def test_5_16_renders_the_state_words_and_5_14_the_old_ones() -> None:
    new = render_device(plan(fabric("5.16"), "leaf-su2-r1")).files["nvue.commands"].splitlines()
    old = render_device(plan(fabric("5.14"), "leaf-su2-r1")).files["nvue.commands"].splitlines()
    for line in ("nv set qos roce state enabled", "nv set router bgp state enabled",
                 "nv set vrf default router bgp state enabled",
                 "nv set vrf default router bgp address-family ipv4-unicast state enabled",
                 "nv set vrf default router bgp path-selection multipath aspath-ignore enabled"):
        assert line in new and line not in old
    assert "nv set qos roce enable on" in old and not any(" enable on" in x for x in new)
    assert any(x.startswith("nv set interface lo ipv4 address ") for x in new)
    assert any(x.startswith("nv set system forwarding ecmp-hash ") and x.endswith(" enabled") for x in new)
    assert not any(x.endswith((" on", " off")) for x in new if "ecmp-hash" in x)
    # verify routing's FRR translation reads the 5.16 words as it reads the 5.14 ones
    assert frr_bgpd_conf("leaf", "\n".join(new)) == frr_bgpd_conf("leaf", "\n".join(old))
    assert "multipath-relax" in frr_bgpd_conf("leaf", "\n".join(new))


class ReleaseLab:
    def __init__(self, tmp: Path, release: str) -> None:
        self.fabric = fabric(release)
        base, port = free_endpoint_base()
        self.state_dir = tmp / "lab"
        self.thread = LabThread(lab_specs(self.fabric, DEVICES), self.state_dir, base_address=base, port=port).start()
        self.journal = Journal(tmp / "journal.sqlite")


@pytest.fixture
def lab516(tmp_path: Path) -> Iterator[ReleaseLab]:
    lab = ReleaseLab(tmp_path, "5.16")
    try:
        yield lab
    finally:
        lab.thread.stop()
        lab.journal.close()


def test_a_5_16_fabric_deploys_on_5_16_switches_and_audits_clean(lab516: ReleaseLab) -> None:
    opts = DeployOptions(commit=True, lab_dir=lab516.state_dir, quiet=True, timeout_s=10.0, confirm_timeout_s=60)
    run_id = lab516.journal.start_run("deploy", lab516.fabric.intent.name, "test", {})
    report = deploy(lab516.fabric, DEVICES, opts, lab516.journal, run_id)
    assert report.exit_code == 0, {n: (o.status, o.error) for n, o in report.outcomes.items()}
    result = run_audit(lab516.fabric, DEVICES, AuditOptions(lab_dir=lab516.state_dir, quiet=True, timeout_s=10))
    assert result.exit_code == 0, [(f.device, f.path, f.expected, f.observed) for f in result.findings]
    again = deploy(lab516.fabric, DEVICES, DeployOptions(commit=False, lab_dir=lab516.state_dir, quiet=True,
                                                         timeout_s=10.0), lab516.journal, run_id)
    assert {o.status for o in again.outcomes.values()} == {"unchanged"}  # the switch prints back what it took


def test_a_5_14_fabric_is_refused_by_a_5_16_switch_s_words(tmp_path: Path) -> None:
    """A fabric still pinned to 5.14 on switches running 5.16: the facts check stops it (release mismatch)
    before any old-spelling command is sent."""
    lab = ReleaseLab(tmp_path, "5.16")
    try:
        old = fabric("5.14")
        opts = DeployOptions(commit=True, lab_dir=lab.state_dir, quiet=True, timeout_s=10.0, confirm_timeout_s=60,
                             max_fail=len(DEVICES))
        report = deploy(old, DEVICES, opts, lab.journal, lab.journal.start_run("deploy", "x", "test", {}))
        assert {o.status for o in report.outcomes.values()} == {"facts_mismatch"}
    finally:
        lab.thread.stop()
        lab.journal.close()


@pytest.mark.parametrize(("release", "takes", "refuses"), [
    ("5.16", "nv set qos roce state enabled", "nv set qos roce enable on"),
    ("5.14", "nv set qos roce enable on", "nv set qos roce state enabled"),
    ("5.16", "nv set interface swp1 ipv4 address 10.9.0.0/31", "nv set interface swp1 ip address 10.9.0.0/31"),
    ("5.16", "nv set system forwarding ecmp-hash source-ip disabled",
     "nv set system forwarding ecmp-hash source-ip off"),
])
def test_the_simulated_switch_takes_only_its_release_s_words(release: str, takes: str, refuses: str) -> None:
    from roceops.lab.devices.cumulus.device import CumulusState, run_line

    spec = next(s for s in lab_specs(fabric(release), ["leaf-su2-r1"]))
    state = CumulusState(spec.name, spec.platform, spec.extra)
    assert run_line(state, takes, "cumulus")[1] == 0
    out, status = run_line(state, refuses, "cumulus")
    assert status != 0 and "Invalid Command" in out
    assert run_line(state, "nv config apply -y", "cumulus")[1] == 0
    assert takes.removeprefix("nv set ") in run_line(state, "nv config show -o commands", "cumulus")[0]


def test_the_facts_check_accepts_5_15_and_5_16_and_not_past_them() -> None:
    from roceops.device.change import DeviceFacts
    from roceops.device.facts import mismatches

    for release, running, problem in (("5.16", "5.16.0", None), ("5.15", "5.15.1", None),
                                      ("5.17", "5.17.0", "outside the supported range 5.9 to 5.16")):
        intent = plan(fabric(release), "leaf-su2-r1")
        assert isinstance(intent, SwitchIntent)
        facts = DeviceFacts(nos_version=running, hardware=intent.hwsku, ports=frozenset(intent.ports))
        found = mismatches(facts, intent)
        assert found == [] if problem is None else (len(found) == 1 and problem in found[0]), found


@pytest.mark.parametrize(("release", "leaf", "off"), [("5.16", "state", "disabled"), ("5.14", "enable", "off")])
def test_the_ar_off_fault_speaks_the_switch_s_release(release: str, leaf: str, off: str) -> None:
    """The fault is an operator's `nv set`, so a 5.15+ switch stores it in its own words (`state disabled`)."""
    from roceops.lab.devices.cumulus.device import CumulusState, run_line
    from roceops.lab.devices.cumulus.faults import apply_config_fault

    spec = next(s for s in lab_specs(fabric(release), ["leaf-su2-r1"]))
    state = CumulusState(spec.name, spec.platform, spec.extra)
    apply_config_fault(state, "ar_off", {"port": "swp3s1"})
    shown = run_line(state, "nv config show -o commands", "cumulus")[0]
    assert f"interface swp3s1 router adaptive-routing {leaf} {off}" in shown, shown
