"""Device facts against the lab: switches answer their NOS release, hardware and ports from the fabric; one
that reports another hwsku or release (the lab's ``facts`` fault) is stopped before anything is sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from labkit import read_configs
from labtools import EXAMPLES, free_endpoint_base

from roceops.deploy.engine import DeployOptions, DeployReport, deploy
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.nornir_glue.runner import make_nornir
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

pytestmark = pytest.mark.lab
DEVICES = ["leaf-su1-r1", "leaf-su2-r1", "spine01"]  # SONiC, Cumulus, EOS
SPINE_MODEL = "DCS-7060DX5-64S"


def fabric() -> Fabric:
    """lab-mini with its spines naming their hardware (an Arista model), as a production fabric would."""
    data = yaml.safe_load(EXAMPLES["lab-mini"].read_text())
    data["switch_models"]["lab-spine"] = {**data["switch_models"][data["tiers"]["spine"]["model"]],
                                          "hwsku": SPINE_MODEL}
    data["tiers"]["spine"]["model"] = "lab-spine"
    return expand(FabricIntent.model_validate(data))


class FactsLab:
    def __init__(self, tmp: Path) -> None:
        self.fabric = fabric()
        base, port = free_endpoint_base()
        self.state_dir = tmp / "lab"
        self.thread = LabThread(lab_specs(self.fabric, DEVICES), self.state_dir, base_address=base, port=port).start()
        self.journal = Journal(tmp / "journal.sqlite")

    def deploy(self, commit: bool = True, max_fail: int = 0) -> DeployReport:
        opts = DeployOptions(commit=commit, lab_dir=self.state_dir, quiet=True, timeout_s=10.0, confirm_timeout_s=60,
                             max_fail=max_fail, bringup=True)  # a fresh lab's SONiC switches take their bring-up
        run_id = self.journal.start_run("deploy", self.fabric.intent.name, "test", {})
        return deploy(self.fabric, DEVICES, opts, self.journal, run_id)

    def configs(self) -> dict[str, str]:
        return read_configs(self.fabric, self.state_dir, DEVICES, workers=4)

@pytest.fixture
def lab(tmp_path: Path) -> Iterator[FactsLab]:
    facts_lab = FactsLab(tmp_path)
    try:
        yield facts_lab
    finally:
        facts_lab.thread.stop()
        facts_lab.journal.close()


def test_lab_switches_report_the_fabric_facts_so_a_dry_run_plans_changes(lab: FactsLab) -> None:
    report = lab.deploy(commit=False)
    assert {n: o.status for n, o in report.outcomes.items()} == dict.fromkeys(DEVICES, "would_change"), {
        n: o.error for n, o in report.outcomes.items()}
    assert report.exit_code == 0


@pytest.mark.parametrize(("device", "params", "named"), [
    ("leaf-su1-r1", {"version": "202405.3"}, "NOS release: fabric says '202411', device runs '202405.3-roceops-lab'"),
    ("leaf-su1-r1", {"hwsku": "Mellanox-SN4600C-C64"},  # lab-mini's leaves are Mellanox-SN5600-O128
     "hardware: fabric says 'Mellanox-SN5600-O128', device reports 'Mellanox-SN4600C-C64'"),
    ("leaf-su2-r1", {"version": "5.15.0"}, "NOS release: fabric says '5.14', device runs '5.15.0'"),
    ("spine01", {"hwsku": "DCS-7280CR3-32P4"},
     f"hardware: fabric says '{SPINE_MODEL}', device reports 'DCS-7280CR3-32P4'"),
    ("spine01", {"version": "4.26.1F"}, "NOS release '4.26.1F' is outside the supported range 4.28 to 4.34"),
])
def test_a_switch_whose_facts_differ_is_stopped_before_anything_is_sent(lab: FactsLab, device: str,
                                                                        params: dict[str, str],
                                                                        named: str | None) -> None:
    lab.thread.inject(device, "facts", **params)
    before = lab.configs()
    report = lab.deploy(commit=True, max_fail=len(DEVICES))  # the others go on: only the mismatch is stopped
    outcome = report.outcomes[device]
    if named is None:
        assert outcome.status == "changed", outcome.error
        return
    assert outcome.status == "facts_mismatch" and outcome.error is not None
    assert outcome.error.startswith("facts.mismatch: ") and named in outcome.error
    assert outcome.diff == "" and outcome.summary == {}
    assert report.exit_code == 1
    assert lab.configs()[device] == before[device]  # nothing was sent to it
    others = {n: o.status for n, o in report.outcomes.items() if n != device}
    assert set(others.values()) == {"changed"}


def test_a_facts_mismatch_counts_against_max_fail(lab: FactsLab) -> None:
    lab.thread.inject("spine01", "facts", version="4.26.1F")
    report = lab.deploy(commit=True)  # --max-fail 0: one stopped device stops the wave and rolls it back
    assert report.outcomes["spine01"].status == "facts_mismatch" and report.stopped_after_wave == 0
    assert {o.status for n, o in report.outcomes.items() if n != "spine01"} <= {"rolled_back", "not_touched"}
    assert report.exit_code == 1


def test_the_profile_spine_shows_its_model_and_ecn_counters_per_uc_tx_queue(lab: FactsLab) -> None:
    """The spine's model profile (DCS-7060DX5-64S: uc-tx-queue) reaches the lab: ``show version`` names the model,
    the running-config holds uc-tx-queue blocks, and the ECN counters of those queues are read by the room's parser."""
    from roceops.platforms.eos import parsers as eos_parsers

    assert lab.deploy(commit=True).outcomes["spine01"].status == "changed"
    nr = make_nornir(lab.fabric, ["spine01"], lab_dir=lab.state_dir, workers=1, timeout_s=10)
    out: dict[str, str] = {}

    def task(t):  # type: ignore[no-untyped-def]
        from nornir.core.task import Result

        conn = t.host.get_connection("netmiko", t.nornir.config)
        for cmd in (eos_parsers.CMD_VERSION, eos_parsers.CMD_ECN):
            out[cmd] = conn.send_command(cmd)
        return Result(host=t.host)

    try:
        nr.run(task=task)
    finally:
        nr.close_connections()
    assert eos_parsers.parse_version_json(out[eos_parsers.CMD_VERSION])["model"] == SPINE_MODEL
    assert "\n   uc-tx-queue 3\n" in lab.configs()["spine01"]
    ecn = eos_parsers.parse_ecn_counters_json(out[eos_parsers.CMD_ECN])
    assert ecn and all(isinstance(queues.get(3), int) for queues in ecn.values())  # "-" would be None: ECN off


def test_audit_reports_a_profile_spine_that_reports_another_model(lab: FactsLab) -> None:
    """The audit reads the model the spine reports against its profile: another model is one facts.mismatch."""
    from roceops.audit.engine import AuditOptions, run_audit

    lab.thread.inject("spine01", "facts", hwsku="DCS-7800R3-36P")
    result = run_audit(lab.fabric, ["spine01"], AuditOptions(lab_dir=lab.state_dir, quiet=True, timeout_s=10))
    mismatch = [f for f in result.findings if f.check == "facts.mismatch"]
    assert len(mismatch) == 1 and mismatch[0].device == "spine01"
    assert f"fabric says '{SPINE_MODEL}', device reports 'DCS-7800R3-36P'" in mismatch[0].message
