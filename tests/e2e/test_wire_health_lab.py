"""Issue 29 against one shared lab: the wire faults (retransmits, ...) on gpu003 drain exactly gpu003 through the
CLI's --drain-file with a one-line reason; a clean lab gives no finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from labkit import deployed_lab  # noqa: F401  (fixture: one lab for this module)
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.health.engine import HealthOptions, run_health

pytestmark = pytest.mark.lab

REPO = Path(__file__).resolve().parents[2]
NODES = ["gpu001", "gpu002", "gpu003", "gpu004"]
NEW_CHECKS = {"nic.transport"}


def test_clean_lab_runs_the_new_checks_without_findings(deployed_lab) -> None:
    report = run_health(deployed_lab.fabric, NODES, HealthOptions(window_s=1.0, deadline_s=20.0,
                                                                  lab_dir=deployed_lab.state_dir))
    assert report.exit_code == 0, [(v.node, v.reasons) for v in report.verdicts if v.status != "ok"]
    ran = {r.check for r in report.results}
    assert ran >= NEW_CHECKS
    assert {r.status for r in report.results if r.check in NEW_CHECKS} == {"ok"}


# (fault, params, the check that must name gpu003)
WIRE_FAULTS = [
    ("retransmits", {"port": "eth1"}, "nic.transport"),
]


@pytest.mark.parametrize(("fault", "params", "check"), WIRE_FAULTS, ids=[f[0] for f in WIRE_FAULTS])
def test_wire_fault_on_gpu003_drains_exactly_gpu003(deployed_lab, tmp_path, monkeypatch, fault, params,
                                                    check) -> None:
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(deployed_lab.state_dir))
    drain = tmp_path / "drain"
    deployed_lab.thread.inject("gpu003", fault, **params)
    try:
        result = CliRunner().invoke(app, ["health", "gpu[001-004]", "-f", str(REPO / "inventory/lab-mini.yaml"),
                                          "--lab", "--window", "1s", "--deadline", "20s", "--drain-file", str(drain)])
    finally:
        deployed_lab.thread.clear(None)
    assert result.exit_code == 1, result.output
    lines = drain.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu003 roceops: "), lines
    assert check in lines[0], lines[0]
