"""Lint against hardware profiles, for every SKU in ../shared/reference/hardware/sonic/skus/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED
from lint_helpers import broken, run

from roceops.hardware import CATALOGUE_ENV, SHIPPED_CATALOGUE, switch_profile

SKUS = sorted(p.name for p in (SHARED / "reference/hardware/sonic/skus").glob("*/") if p.is_dir())
pytestmark = pytest.mark.skipif(not (SHARED / "reference/hardware/sonic/skus").is_dir(),
                                reason="../shared/reference/hardware/sonic/skus is not beside this checkout")


def _on(sku: str, speed: str, *edits: tuple[str, object]) -> dict:
    return broken(("switch_models.sw8.hwsku", sku), ("switch_models.sw8.port_speed", speed),
                  ("node.nic_speed", speed), *edits)


def _sku_speed(sku: str) -> str:
    return f"{switch_profile(sku).ports[0].speed // 1000}G"


@pytest.mark.parametrize("sku", SKUS)
def test_each_sku_lints_clean_at_its_own_speed(sku: str) -> None:
    report = run(_on(sku, _sku_speed(sku)))
    assert not [f for f in report.findings if f.id.startswith("HW")], str(report)


@pytest.mark.parametrize("sku", SKUS)
def test_a_speed_the_sku_cannot_run_is_an_error_with_a_hint(sku: str) -> None:
    report = run(_on(sku, "1600G"))
    hit = next(f for f in report.findings if f.id == "HW003")
    assert hit.path == "switch_models.sw8.port_speed" and "not 1600G" in hit.message
    assert f"{sku} cannot run 1600G" in hit.hint


@pytest.mark.parametrize("sku", SKUS)
def test_a_breakout_the_cages_cannot_do_is_an_error_with_a_hint(sku: str) -> None:
    report = run(_on(sku, _sku_speed(sku), ("switch_models.sw8.breakout", "8x200G")))
    hit = next(f for f in report.findings if f.id == "HW005")
    assert "cannot break out 8x200G" in hit.message and "platform.json modes" in hit.message
    assert hit.hint


def test_sn5600_at_800g_points_at_the_1x800g_breakout() -> None:
    hit = next(f for f in run(_on("Mellanox-SN5600-O128", "800G")).findings if f.id == "HW003")
    assert "ports run 400G" in hit.message
    assert "1x800G[400G,200G,100G,50G,40G,25G,10G]" in hit.hint


def test_a_breakout_the_cages_can_do_but_the_sku_does_not_ship() -> None:
    hit = next(f for f in run(_on("Mellanox-SN5600-O128", "400G", ("switch_models.sw8.breakout", "1x800G"))).findings
               if f.id == "HW005")
    assert "ships its cages as 2x400G" in hit.message and "1x800G" in hit.hint
    assert not [f for f in run(_on("Mellanox-SN5600-O128", "400G", ("switch_models.sw8.breakout", "2x400G")))
                .findings if f.id == "HW005"]


def test_mtu_outside_the_sku_range_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads((SHIPPED_CATALOGUE / "Mellanox-SN4700-O32.json").read_text())
    data["name"] = "Mellanox-SN4700-Mtu9100"
    data["mtu"] = {"min": 68, "max": 9100, "source": "test catalogue entry"}
    (tmp_path / "Mellanox-SN4700-Mtu9100.json").write_text(json.dumps(data))
    monkeypatch.setenv(CATALOGUE_ENV, str(tmp_path))
    report = run(_on("Mellanox-SN4700-Mtu9100", "400G"))
    hit = next(f for f in report.findings if f.id == "HW006")
    assert hit.path == "mtu.switch" and "MTU 9216 is outside 68..9100" in hit.message


def test_headroom_is_checked_against_the_sku_pool_not_qos_buffers() -> None:
    # qos.buffers' own pool is tiny, but an SN4700's switches use the SKU's ingress_lossless_pool: no finding
    assert "HDRM001" not in run(broken(("qos.buffers.ingress_lossless_pool_bytes", 256 * 1024))).ids
    # 8 ports x 12 km of cable need more headroom than the SKU's t1 pool (52 MB): the dynamic model's vendor
    # computation (the SN4700's table has no 12 km row, and its shared headroom pool keeps sizes at xon)
    report = run(broken(("switch_models.sw8.hwsku", "Mellanox-SN5600-O128"), ("qos.buffers.model", "dynamic"),
                        ("cable_lengths.host_leaf", 12000), ("cable_lengths.leaf_spine", 12000)))
    hit = next(f for f in report.findings if f.id == "HDRM001")
    assert "more than the Mellanox-SN5600-O128 ingress_lossless_pool" in hit.message
    assert "fixed by the SKU" in hit.hint
