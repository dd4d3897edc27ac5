"""Lossless headroom is the vendor's: pg_profile_lookup.ini rows (traditional), buffermgrd's lua (dynamic)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, SHARED

from roceops.api import plan, render
from roceops.hardware import switch_profile, switch_profile_names
from roceops.hardware.dynamic_headroom import mellanox_headroom
from roceops.hardware.sku_files import read_pg_profile_lookup
from roceops.lint import lint
from roceops.model.loader import load
from roceops.plan.hardware import row_profile_name, vendor_profile
from roceops.topology.expand import expand

sys.path.insert(0, str(Path(__file__).parents[1] / "lint"))
from lint_helpers import broken, run

EXAMPLES = sorted((REPO / "inventory").glob("*.yaml"))
SKUS_DIR = SHARED / "reference/hardware/sonic/skus"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_sonic_lossless_profile_of_the_examples_is_the_vendor_row(example: Path) -> None:
    fabric = expand(load(example).intent)
    checked = 0
    for sw in fabric.switches:
        if sw.platform != "sonic":
            continue
        intent = plan(fabric, sw.name)
        assert intent.hwsku is not None
        rows = {row_profile_name(r): r for spec in switch_profile(intent.hwsku).buffers.values()
                for r in spec.pg_lossless}
        config = json.loads(render(intent)["config_db.json"])
        for port in intent.ports.values():
            for h in port.headroom.values():
                row = rows[h.profile]  # the name is buffermgrd's pg_lossless_<speed>_<cable>_profile
                assert (row.speed, row.cable) == (port.speed, f"{port.cable_length}m")
                assert (h.xon, h.xoff, h.size) == (row.xon, row.xoff, row.size)
                rendered = config["BUFFER_PROFILE"][h.profile]
                assert rendered["xon"] == str(row.xon) and rendered["xoff"] == str(row.xoff)
                assert rendered["size"] == str(row.size) and rendered["pool"] == "ingress_lossless_pool"
                assert rendered.get("xon_offset") == (str(row.xon_offset) if row.xon_offset is not None else None)
                assert rendered["dynamic_th"] == str(row.threshold)  # ingress_lossless_pool is dynamic here
                checked += 1
        if sw.role == "leaf":
            assert checked
    assert checked


@pytest.mark.skipif(not SKUS_DIR.is_dir(), reason="../shared/reference/hardware/sonic/skus is not beside this checkout")
@pytest.mark.parametrize("sku", switch_profile_names())
def test_catalogue_rows_are_the_vendor_file_and_render_as_buffermgrd_writes_them(sku: str) -> None:
    profile = switch_profile(sku)
    ini = SKUS_DIR / sku / "pg_profile_lookup.ini"
    if not ini.is_file():
        pytest.skip(f"no {ini}")
    vendor = read_pg_profile_lookup(ini)
    for spec in profile.buffers.values():
        assert list(spec.pg_lossless) == vendor
        pool = spec.pool("ingress_lossless_pool")
        assert pool is not None
        for row in vendor:
            prof = vendor_profile(spec, row_profile_name(row))
            assert prof is not None
            th = prof.dynamic_th if pool.mode == "dynamic" else prof.static_th  # "<pool mode>_th" = threshold
            assert (prof.size, prof.xon, prof.xoff, prof.xon_offset, th) == (
                row.size, row.xon, row.xoff, row.xon_offset, row.threshold)


def test_a_length_without_a_row_is_refused_naming_the_table_lengths() -> None:
    report = run(broken(("cable_lengths.leaf_spine", 30)))
    hit = next(f for f in report.errors if f.id == "HDRM003")  # one per switch group (leaves, spines)
    assert hit.path == "cable_lengths.leaf_spine"
    assert "no row for 400000 Mb/s at 30 m" in hit.message
    assert "5m, 40m, 300m, 1500m, 2000m" in hit.message and "5m, 40m, 300m, 1500m, 2000m" in hit.hint


def test_dynamic_model_takes_the_vendor_computation_where_the_table_has_no_row() -> None:
    report = run(broken(("switch_models.sw8.hwsku", "Mellanox-SN5600-O128"), ("qos.buffers.model", "dynamic"),
                        ("cable_lengths.leaf_spine", 30)))
    assert report.errors == [] and report.fabric is not None
    intent = plan(report.fabric, "spine01")
    port = next(p for p in intent.ports.values() if p.cable_length == 30)
    h = next(iter(port.headroom.values()))
    lua = mellanox_headroom(asic="MELLANOX-SPECTRUM-4", speed_mbps=400_000, cable_m=30, port_mtu=port.mtu,
                            lanes=len(port.lanes))
    assert (h.xon, h.xoff, h.size) == (lua.xon, lua.xoff, lua.size) == (19456, 113664, 133120)
    config = json.loads(render(intent)["config_db.json"])
    assert config["BUFFER_PG"][f"{port.name}|3"] == {"profile": "NULL"}  # buffermgrd computes it on the switch
    # a leaf's 5 m host ports have a table row, but the dynamic model still takes buffermgrd's computation
    leaf = plan(report.fabric, "leaf-su1-r1")
    host = next(p for p in leaf.ports.values() if p.cable_length == 5)
    h5 = mellanox_headroom(asic="MELLANOX-SPECTRUM-4", speed_mbps=400_000, cable_m=5, port_mtu=host.mtu, lanes=4)
    assert next(iter(host.headroom.values())).xoff == h5.xoff != 231424
    leaf_config = json.loads(render(leaf)["config_db.json"])
    assert not [n for n in leaf_config["BUFFER_PROFILE"] if n.startswith("pg_lossless_")]


def test_lua_port_by_hand() -> None:
    # Spectrum-3, 400G, 5 m, MTU 9100 (buffer_headroom_mellanox.lua): worst case factor ceil(144/64) = 3,
    # small packets by byte 100*64/((50*64+50*1024)/100) = 11.76 %, occupancy 1.2353; propagation
    # 9100 + 2525.25 (cable) + 819.2 (mac/phy) + 57920 (905 quanta) = 70364.45; xoff ceil1024(1024 + 86920.8)
    # = 88064, +2048 (below the all-small-packet 212992) = 90112; xon ceil1024(19*1024) = 19456
    h = mellanox_headroom(asic="MELLANOX-SPECTRUM-3", speed_mbps=400_000, cable_m=5, port_mtu=9100, lanes=4)
    assert (h.xon, h.xoff, h.size) == (19456, 90112, 109568)
    shared = mellanox_headroom(asic="MELLANOX-SPECTRUM-3", speed_mbps=400_000, cable_m=5, port_mtu=9100, lanes=4,
                               shared_headroom=True)
    assert shared.size == 19456 and shared.xoff == 88064  # no 2 KB compensation with a shared headroom pool
    eight = mellanox_headroom(asic="MELLANOX-SPECTRUM-4", speed_mbps=800_000, cable_m=5, port_mtu=9216, lanes=8)
    assert eight.xon == 38912  # 8-lane ports double the pipeline latency (the tables' 800G xon too)


def test_render_refuses_the_length_with_or_without_lint(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from roceops.cli.main import app

    fabric_file = tmp_path / "fabric.yaml"
    fabric_file.write_text(json.dumps(broken(("cable_lengths.leaf_spine", 30))))  # JSON is YAML
    runner = CliRunner()
    linted = runner.invoke(app, ["render", "-f", str(fabric_file), "--out", str(tmp_path / "a")])
    assert linted.exit_code == 1 and "lint errors" in linted.output
    forced = runner.invoke(app, ["render", "-f", str(fabric_file), "--out", str(tmp_path / "b"), "--skip-lint"])
    assert forced.exit_code == 3  # bad input, a message and no traceback
    assert "no row for 400000 Mb/s at 30 m" in " ".join(forced.output.split())
    assert not (tmp_path / "b").exists()


def test_formula_below_the_vendor_table_is_a_warning_naming_the_rows() -> None:
    # Cumulus leaves on an SN5600 (lab-mini's su2): their headroom is roceops' estimate, below NVIDIA's rows
    report = lint(load(REPO / "inventory" / "lab-mini.yaml").intent)
    [hit] = [f for f in report.warnings if f.id == "HDRM004"]
    assert hit.path == "qos.buffers" and "cumulus switches of model sn5600-8x400g (Mellanox-SN5600-O128)" in hit.message
    assert "400G 300m: 533KB < 662KB" in hit.message  # formula xoff vs the table's 677888 B
    # raising the estimate's inputs above the vendor's clears it
    report = run(broken(("switch_models.sw8.hwsku", "Mellanox-SN5600-O128"), ("tiers.leaf.platform", "cumulus"),
                        ("tiers.spine.platform", "cumulus"), ("qos.buffers.mac_phy_delay_bytes", 300_000)))
    assert "HDRM004" not in report.ids


def test_dynamic_model_on_a_sku_without_a_dynamic_calculation_is_refused() -> None:
    from roceops.plan.hardware import NoVendorHeadroom, vendor_headroom

    dell = switch_profile("Dell-Z9864f-O64")  # Broadcom: no buffers_dynamic.json.j2, no Mellanox ASIC_TABLE
    spec = dell.buffer_spec("t0")
    assert spec is not None and not spec.dynamic_calculation
    with pytest.raises(NoVendorHeadroom, match="no dynamic buffer calculation"):
        vendor_headroom(dell, spec, "dynamic", 800_000, 40, 9216, 8)
    row = vendor_headroom(dell, spec, "traditional", 800_000, 40, 9216, 8)
    assert row is not None and (row.profile, row.xoff) == ("pg_lossless_800000_40m_profile", 835406)
