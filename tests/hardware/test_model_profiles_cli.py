"""`roceops hardware list/show` know the model profiles (EOS hardware) beside the SONiC SKUs."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.hardware.model_profiles import model_profile_names

runner = CliRunner()


def test_list_names_every_model_profile() -> None:
    result = runner.invoke(app, ["hardware", "list"])
    assert result.exit_code == 0, result.output
    for name in model_profile_names():
        assert name in result.output


def test_show_prints_each_fact_with_its_source_and_the_refusals() -> None:
    result = runner.invoke(app, ["hardware", "show", "7800R3-48CQ-LC"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "ASIC Jericho2 (aristanetworks/sonic arista/platforms/linecard/clearwater.py @" in result.output
    assert "ecn: refused (" in result.output and "pfc_watchdog: refused (" in result.output
    data = json.loads(runner.invoke(app, ["hardware", "show", "DCS-7060X6-64PE", "--json"]).output)
    assert (data["queues"]["keyword"], data["ports"]["count"]) == ("uc-tx-queue", 64)
