"""The SKU importer against the vendor files in ../shared/reference/hardware/sonic/skus/."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, SHARED
from typer.testing import CliRunner

from roceops.cli.hardware_cmds import profile_json
from roceops.cli.main import app
from roceops.hardware import (
    CATALOGUE_ENV,
    SHIPPED_CATALOGUE,
    FeatureFlags,
    UnknownSwitchProfile,
    switch_profile,
    switch_profile_names,
)
from roceops.hardware.importer import import_sku
from roceops.hardware.sku_files import SkuFileError, read_port_config

SKUS_REL = Path("../shared/reference/hardware/sonic/skus")
SKUS = sorted(p.name for p in (SHARED / "reference/hardware/sonic/skus").glob("*/") if p.is_dir())
pytestmark = pytest.mark.skipif(not (SHARED / "reference/hardware/sonic/skus").is_dir(),
                                reason="../shared/reference/hardware/sonic/skus is not beside this checkout")
runner = CliRunner()


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Catalogue files record the vendor paths as the builder gave them: ../shared/... from the repo root.
    monkeypatch.chdir(REPO)
    monkeypatch.delenv(CATALOGUE_ENV, raising=False)


@pytest.mark.parametrize("sku", SKUS)
def test_shipped_catalogue_equals_a_fresh_import(sku: str) -> None:
    fresh = profile_json(import_sku(SKUS_REL / sku))
    assert (SHIPPED_CATALOGUE / f"{sku}.json").read_text() == fresh, (
        f"rebuild: roceops hardware import {SKUS_REL}/* --out-dir roceops/hardware/catalogue")


@pytest.mark.parametrize("sku", SKUS)
def test_port_map_is_port_config_ini_row_by_row(sku: str) -> None:
    rows = read_port_config(SKUS_REL / sku / "port_config.ini")
    profile = switch_profile(sku)
    assert [(p.name, p.lanes, p.alias, p.index) for p in profile.ports] == [
        (r["name"], r["lanes"], r["alias"], r["index"]) for r in rows]
    for port, row in zip(profile.ports, rows, strict=True):
        if "speed" in row:
            assert port.speed == row["speed"]


@pytest.mark.parametrize("sku", SKUS)
def test_every_file_read_is_recorded_with_its_sha256(sku: str) -> None:
    profile = switch_profile(sku)
    names = {Path(s.path).name for s in profile.sources}
    assert {"port_config.ini", "hwsku.json", "platform.json", "pg_profile_lookup.ini"} <= names
    for src in profile.sources:
        assert hashlib.sha256(Path(src.path).read_bytes()).hexdigest() == src.sha256


def test_sn5600_is_128_four_lane_400g_ports_from_800g_cages() -> None:
    p = switch_profile("Mellanox-SN5600-O128")
    assert (p.vendor, p.platform, p.asic_family.value) == ("mellanox", "x86_64-nvidia_sn5600-r0", "Spectrum-4")
    e0, e4 = p.port("Ethernet0"), p.port("Ethernet4")
    assert e0 is not None and e4 is not None
    assert (e0.lanes, e0.alias, e0.index, e0.speed) == ((0, 1, 2, 3), "etp1a", 1, 400_000)
    assert (e4.lanes, e4.alias, e4.cage) == ((4, 5, 6, 7), "etp1b", "Ethernet0")
    assert len(p.ports_at(400_000)) == 128
    cage = p.cage("Ethernet0")
    assert cage is not None and cage.default_breakout == "2x400G[200G,100G,50G,40G,25G,10G]"
    mode = cage.mode("2x400G[200G,100G,50G,40G,25G,10G]")
    assert mode is not None and (mode.ports, mode.lanes_per_port, mode.aliases) == (2, 4, ("etp1a", "etp1b"))


def test_sn4700_speed_comes_from_hwsku_json_when_port_config_has_no_speed_column() -> None:
    p = switch_profile("Mellanox-SN4700-O32")
    assert "speed" not in read_port_config(SKUS_REL / "Mellanox-SN4700-O32" / "port_config.ini")[0]
    assert {port.speed for port in p.ports} == {400_000}
    assert p.ports[0].lanes == (0, 1, 2, 3, 4, 5, 6, 7)


def test_buffer_numbers_are_the_templates_set_values() -> None:
    sn5600 = switch_profile("Mellanox-SN5600-O128")
    t1 = sn5600.buffers["t1"]
    assert t1.model == "dynamic" and t1.dynamic_calculation
    pool = t1.pool("ingress_lossless_pool")
    assert pool is not None and pool.size == 52161690  # {% set ingress_lossless_pool_size = '52161690' %}
    egress = t1.pool("egress_lossless_pool")
    assert egress is not None and egress.size == 158229504
    assert t1.ingress_profile_list == ("ingress_lossless_profile", "ingress_lossy_profile")
    assert t1.lossless_queues == (3, 4) and t1.lossless_from == "sku"
    lossless = t1.profile("egress_lossless_profile")
    assert lossless is not None and lossless.dynamic_th == 7
    dell = switch_profile("Dell-Z9864f-O64").buffers["t1"]
    assert dell.model == "static" and not dell.dynamic_calculation
    dell_lossless = dell.profile("egress_lossless_profile")
    assert dell_lossless is not None and dell_lossless.static_th == 165867080
    assert dell_lossless.pool == "egress_lossless_pool"  # [BUFFER_POOL|egress_lossless_pool] resolved
    assert dell.lossless_from == "buffers_config.j2"
    assert sn5600.buffers["t0"].pool("ingress_lossless_pool").size == 67737959  # type: ignore[union-attr]


def test_features_are_sourced_or_false_unconfirmed() -> None:
    for name in switch_profile_names():
        f = switch_profile(name).features
        for flag in ("adaptive_routing", "dynamic_load_balancing", "udf_hash", "hash_seed"):
            assert f.source_of(flag), flag
            if getattr(f, flag):
                assert f.source_of(flag) != "unconfirmed"
    assert switch_profile("Mellanox-SN5600-O128").features.adaptive_routing
    dell = switch_profile("Dell-Z9864f-O64").features
    assert dell.udf_hash and "platform_qos.json" in dell.source_of("udf_hash")
    with pytest.raises(ValueError, match="unconfirmed"):
        FeatureFlags(adaptive_routing=True, dynamic_load_balancing=False, udf_hash=False, hash_seed=False,
                     sources=dict.fromkeys(("adaptive_routing", "dynamic_load_balancing", "udf_hash", "hash_seed"),
                                           "unconfirmed"))


def test_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(UnknownSwitchProfile, match="Mellanox-SN5600-O128"):
        switch_profile("Generic-lab-8x400g")


def test_missing_port_config_is_a_clear_error(tmp_path: Path) -> None:
    sku = tmp_path / "Vendor-X"
    sku.mkdir()
    (sku / "PLATFORM").write_text("x86_64-vendor_x-r0\n")
    with pytest.raises(SkuFileError, match=r"port_config\.ini: missing"):
        import_sku(sku)


def test_cli_import_writes_a_profile_the_lookup_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sku = tmp_path / "Mellanox-SN4700-Custom"
    shutil.copytree(SKUS_REL / "Mellanox-SN4700-O32", sku)
    out = tmp_path / "cat" / "Mellanox-SN4700-Custom.json"
    result = runner.invoke(app, ["hardware", "import", str(sku), "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["name"] == "Mellanox-SN4700-Custom" and len(data["ports"]) == 32
    monkeypatch.setenv(CATALOGUE_ENV, str(out.parent))
    assert switch_profile("Mellanox-SN4700-Custom").ports[0].alias == "etp1"
    shown = runner.invoke(app, ["hardware", "show", "Mellanox-SN4700-Custom"])
    assert shown.exit_code == 0 and "32 x 400G" in shown.output
    listed = runner.invoke(app, ["hardware", "list"])
    assert listed.exit_code == 0 and "Spectrum-3" in listed.output


def test_cli_import_of_a_folder_without_sku_files_exits_3(tmp_path: Path) -> None:
    result = runner.invoke(app, ["hardware", "import", str(tmp_path), "--platform", "x86_64-x-r0"])
    assert result.exit_code == 3
    assert "port_config.ini: missing" in result.output


def test_cli_show_unknown_exits_3() -> None:
    result = runner.invoke(app, ["hardware", "show", "lab-8x400g"])
    assert result.exit_code == 3 and "no switch hardware profile" in result.output


def test_import_from_the_sonic_buildimage_layout(tmp_path: Path) -> None:
    # device/<vendor>/<platform>/platform.json next to device/<vendor>/<platform>/<hwsku>/, no PLATFORM file
    src = SKUS_REL / "Mellanox-SN5600-O128"
    platform_dir = tmp_path / "device" / "mellanox" / "x86_64-nvidia_sn5600-r0"
    sku = platform_dir / "Mellanox-SN5600-O128"
    shutil.copytree(src, sku, ignore=shutil.ignore_patterns("PLATFORM", "platform.json"))
    shutil.copy(src / "platform.json", platform_dir / "platform.json")
    profile = import_sku(sku)
    assert profile.platform == "x86_64-nvidia_sn5600-r0"
    assert profile.ports == switch_profile("Mellanox-SN5600-O128").ports
    assert any(s.path.endswith("x86_64-nvidia_sn5600-r0/platform.json") for s in profile.sources)
