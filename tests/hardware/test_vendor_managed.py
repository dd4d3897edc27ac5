"""SKUs whose files set no buffers import as vendor-managed and render no BUFFER_* tables (never invented pools).

The files are the Arista 7060X6 SONiC SKUs on sonic-buildimage's shared TH5 profile, copied with their source
path, commit and sha256 into tests/hardware/captures/th5/ (SOURCES.md); ../shared does not hold them.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.hardware import CATALOGUE_ENV
from roceops.hardware.importer import import_sku

sys.path.insert(0, str(Path(__file__).parents[1] / "lint"))
from lint_helpers import broken, run

CAPTURES = Path(__file__).parent / "captures" / "th5"
PLATFORM = "x86_64-arista_7060x6_64pe"
SKUS = ("Arista-7060X6-64PE-64x400G", "Arista-7060X6-64PE-P32O64", "Arista-7060X6-64PE")
runner = CliRunner()


def _sku_folder(tmp: Path, sku: str) -> Path:
    """The SKU folder as sonic-buildimage's symlinks resolve: its own files plus th5/gen/BALANCED's."""
    plat = tmp / PLATFORM
    if not plat.exists():
        shutil.copytree(CAPTURES / PLATFORM, plat)
    for f in (CAPTURES / "th5-gen-BALANCED").iterdir():
        shutil.copy(f, plat / sku / f.name)
    return plat / sku


def test_fixture_files_are_the_vendor_files_named_in_sources() -> None:
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| ([0-9a-f]{64}) \|$", (CAPTURES / "SOURCES.md").read_text(),
                      re.MULTILINE)
    assert len(rows) == 13
    for here, _vendor_path, sha in rows:
        assert hashlib.sha256((CAPTURES / here).read_bytes()).hexdigest() == sha


@pytest.mark.parametrize("sku", SKUS)
def test_th5_profile_skus_import_as_vendor_managed(sku: str, tmp_path: Path) -> None:
    profile = import_sku(_sku_folder(tmp_path, sku), platform=PLATFORM)
    assert profile.buffers == {} and profile.vendor_managed_buffers is not None
    assert "render no BUFFER_POOL/BUFFER_PROFILE" in profile.vendor_managed_buffers.reason
    assert "pg_profile_lookup.ini has no rows" in profile.vendor_managed_buffers.reason
    assert {Path(s.path).name for s in profile.sources} >= {"buffers_defaults_t0.j2", "pg_profile_lookup.ini"}


def test_cli_import_and_a_sonic_fabric_on_it_renders_no_buffer_tables(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sku = "Arista-7060X6-64PE-64x400G"
    catalogue = tmp_path / "catalogue"
    catalogue.mkdir()
    result = runner.invoke(app, ["hardware", "import", str(_sku_folder(tmp_path, sku)), "--platform", PLATFORM,
                                 "--out", str(catalogue / f"{sku}.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((catalogue / f"{sku}.json").read_text())["vendor_managed_buffers"]["reason"]
    monkeypatch.setenv(CATALOGUE_ENV, str(catalogue))
    report = run(broken(("switch_models.sw8.hwsku", sku)))
    assert report.errors == []
    hw028 = [f for f in report.warnings if f.id == "HW028"]
    assert hw028 and "no BUFFER_* tables" in hw028[0].message
    from roceops.api import plan, render

    assert report.fabric is not None
    intent = plan(report.fabric, "leaf-su1-r1")
    config = json.loads(render(intent)["config_db.json"])
    assert not [t for t in config if t.startswith("BUFFER_")]
    assert config["CABLE_LENGTH"] and config["PORT_QOS_MAP"]  # PFC still on; buffers_config.j2 writes lengths

    # the CLI says so: hardware show, and render names the switches it wrote no buffers for
    shown = runner.invoke(app, ["hardware", "show", sku])
    assert shown.exit_code == 0 and "buffers: vendor-managed, no BUFFER_* tables rendered" in shown.output
    fabric_file = tmp_path / "fabric.yaml"
    fabric_file.write_text(json.dumps(broken(("switch_models.sw8.hwsku", sku))))  # JSON is YAML
    rendered = runner.invoke(app, ["render", "-f", str(fabric_file), "--out", str(tmp_path / "build")])
    assert rendered.exit_code == 0, rendered.output
    said = " ".join(rendered.output.split())
    assert f"no BUFFER_* tables rendered for 6 switches (leaf-su1-r1, leaf-su1-r2, leaf-su2-r1, ...): {sku}" in said
    built = json.loads((tmp_path / "build" / "spine01" / "config_db.json").read_text())
    assert not [t for t in built if t.startswith("BUFFER_")]
