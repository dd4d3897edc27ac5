"""Issue 26 against the lab: a fresh lab (every switch in its vendor-default state: PORT and BREAKOUT_CFG as the SKU
boots, no QoS, no routing) of each example fabric deploys with `--bringup` and audits clean; a switch whose reload
skipped the service restarts gives `facts.mode` in audit and is planned as bring-up by deploy.

A subset per fabric covers every platform, SKU and role it has (the whole fabrics: bench/lab_bringup.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from labkit import run_on_device
from labtools import EXAMPLES, free_endpoint_base

from roceops.audit.engine import AuditOptions, AuditResult, run_audit
from roceops.deploy.engine import DeployOptions, DeployReport, deploy
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric, Switch

pytestmark = pytest.mark.lab

# every (platform, hwsku, role) of the fabric, and a host
SUBSETS = {
    "fabric": ["leaf-su1-r1", "spine01", "gpu001"],  # SONiC SN5600-O128 leaf, EOS 7060X6 spine, ConnectX-7 host
    "fabric-800g": ["leaf-su1-r1", "spine01", "gpu001"],  # SONiC Z9864F leaf (2x400G host cages) and spine, CX-8
}


@dataclass
class ExampleLab:
    fabric: Fabric
    names: list[str]
    thread: LabThread
    state_dir: Path
    journal: Journal

    def deploy(self, names: list[str] | None = None, **opts: object) -> DeployReport:
        options = DeployOptions(**{"commit": True, "bringup": True, "firmware": self.fabric.intent.node.firmware,
                                   "lab_dir": self.state_dir, "quiet": True, "timeout_s": 30.0,
                                   "max_fail": len(self.names), **opts})  # type: ignore[arg-type]
        run_id = self.journal.start_run("deploy", self.fabric.intent.name, "test", {})
        return deploy(self.fabric, names or self.names, options, self.journal, run_id)

    def audit(self, names: list[str] | None = None) -> AuditResult:
        return run_audit(self.fabric, names or self.names, AuditOptions(lab_dir=self.state_dir, quiet=True,
                                                                        timeout_s=20))

    def run_on(self, device: str, commands: list[str], files: dict[str, str]) -> list[str]:
        return run_on_device(self.fabric, self.state_dir, device, commands, files)

    def config_db(self, device: str) -> dict:
        return json.loads(self.run_on(device, ["sonic-cfggen -d --print-data"], {})[0])


def example_lab(name: str, tmp: Path) -> ExampleLab:
    fabric = expand(FabricIntent.model_validate(yaml.safe_load(EXAMPLES[name].read_text())))
    names = SUBSETS[name]
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(fabric, names), tmp / "lab", base_address=base, port=port).start()
    return ExampleLab(fabric, names, thread, tmp / "lab", Journal(tmp / "journal.sqlite"))


@pytest.fixture
def lab(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ExampleLab]:
    started = example_lab(request.param, tmp_path)
    try:
        yield started
    finally:
        started.thread.stop()
        started.journal.close()


def test_subsets_cover_every_platform_sku_and_role_of_their_fabric() -> None:
    for name, subset in SUBSETS.items():
        fabric = expand(FabricIntent.model_validate(yaml.safe_load(EXAMPLES[name].read_text())))

        def kind(d: object) -> tuple[str, ...]:
            return (d.platform, d.hwsku or "", d.role) if isinstance(d, Switch) else ("host", d.platform)  # type: ignore[attr-defined]

        assert {kind(fabric.device(n)) for n in subset} == {kind(d) for d in fabric.devices()}, name


@pytest.mark.parametrize("lab", ["fabric", "fabric-800g"], indirect=True)
def test_fresh_lab_of_each_example_deploys_with_bringup_and_audits_clean(lab: ExampleLab) -> None:
    report = lab.deploy()
    assert report.exit_code == 0, {n: (o.status, o.error) for n, o in report.outcomes.items()}
    assert {o.status for o in report.outcomes.values()} == {"changed"}
    sonic = {n for n, o in report.outcomes.items() if o.platform == "sonic"}
    assert sonic and all(report.outcomes[n].path == "bringup" for n in sonic)  # new tables and modes: GCU cannot
    result = lab.audit()
    assert result.exit_code == 0 and result.findings == [], [(f.device, f.check, f.path) for f in result.findings]
    again = lab.deploy()
    assert {o.status for o in again.outcomes.values()} == {"unchanged"}, {
        n: (o.status, o.diff[:300]) for n, o in again.outcomes.items()}


@pytest.mark.parametrize("lab", ["fabric-800g"], indirect=True)
def test_800g_leaf_boots_unsplit_and_the_bringup_breaks_its_host_cages_out(lab: ExampleLab) -> None:
    """The Z9864F boots its cages in hwsku.json's default mode (1x800G): the host ports' 2x400G children do not
    exist until the bring-up's reload loads BREAKOUT_CFG and the child ports."""
    before = lab.config_db("leaf-su1-r1")
    assert before["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "1x800G"}
    assert before["PORT"]["Ethernet0"]["speed"] == "800000" and "Ethernet4" not in before["PORT"]
    dry = lab.deploy(["leaf-su1-r1"], commit=False)
    reasons = dry.outcomes["leaf-su1-r1"].path_reasons
    assert any(r.startswith("BREAKOUT_CFG changes") for r in reasons), reasons
    assert lab.deploy(["leaf-su1-r1"]).exit_code == 0
    after = lab.config_db("leaf-su1-r1")
    assert after["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "2x400G(8)"}
    assert {p: after["PORT"][p]["lanes"] for p in ("Ethernet0", "Ethernet4")} == {"Ethernet0": "1,2,3,4",
                                                                                 "Ethernet4": "5,6,7,8"}


@pytest.mark.parametrize("lab", ["fabric-800g"], indirect=True)
def test_800g_switch_whose_reload_skipped_the_restarts_gives_facts_mode(lab: ExampleLab) -> None:
    """The rendered config loaded with `config reload -n` (no service restarts): CONFIG_DB is right, the bgp
    container still runs bgpcfgd, so audit says facts.mode; deploy plans the bring-up for it (nothing else to
    change), and after `--bringup` the switch audits clean."""
    spine = "spine01"
    rendered = render_device(plan(lab.fabric, spine)).files["config_db.json"]
    lab.run_on(spine, ["sudo config reload -y -n /tmp/rendered.json"], {"/tmp/rendered.json": rendered})
    stale = lab.audit([spine])
    modes = [f for f in stale.findings if f.check == "facts.mode"]
    assert [f.check for f in stale.findings] == ["facts.mode"], [(f.check, f.path) for f in stale.findings]
    assert "bgpcfgd" in modes[0].message and "frrcfgd" in modes[0].message
    stopped = lab.deploy([spine], bringup=False)
    outcome = stopped.outcomes[spine]
    assert outcome.status == "needs_bringup" and stopped.exit_code == 1, (outcome.status, outcome.error)
    assert any("bgpcfgd" in r for r in outcome.path_reasons), outcome.path_reasons
    assert lab.deploy([spine]).exit_code == 0
    assert lab.audit([spine]).findings == []

