"""Speed-aware DCQCN defaults (Barre Table 2 at 400G), pinned values winning, and the congestion lint rules."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import example_dict

from roceops.device.intent import HostIntent
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.plan.speed_profiles import GENERIC_NP, GENERIC_RP, ecn_floor_bytes, speed_profile
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand


def _intent(speed: str = "400G", **qos: Any) -> FabricIntent:
    data = example_dict("lab-mini")
    data["node"]["nic_speed"] = speed
    for model in data["switch_models"].values():
        model["port_speed"] = speed
        if speed == "800G" and "hwsku" in model:  # the SN5600 SKU runs its ports at 400G: take an 800G SKU
            model["hwsku"] = "Dell-Z9864f-O64"
    data["qos"] = {**data["qos"], **qos}
    return FabricIntent.model_validate(data)


def _dcqcn(intent: FabricIntent) -> tuple[dict[str, int], dict[str, int]]:
    host = plan(expand(intent), "gpu001")
    assert isinstance(host, HostIntent)
    dcqcn = next(iter(host.nics.values())).dcqcn
    return dcqcn.rp, dcqcn.np


def test_400g_gets_the_published_tuned_values() -> None:
    rp, np = _dcqcn(_intent())
    # Barre Table 2 ranges, nearest end to the ConnectX default: 50 -> 80..98, 5 -> 8..20, 300 -> 20..100,
    # 4 -> 1..4 (already inside), CNP interval 4 -> 0..2
    assert {k: rp[k] for k in GENERIC_RP} == {"rpg_min_dec_fac": 80, "rate_reduce_monitor_period": 4,
                                               "rpg_ai_rate": 8, "rpg_time_reset": 100}
    assert np == {"min_time_between_cnps": 2}
    assert rp["rpg_hai_rate"] == 50 and rp["dce_tcp_g"] == 1019  # untuned parameters keep the ConnectX default
    host = plan(expand(_intent()), "gpu001")
    script = render_device(host).files["roce-setup.sh"]
    assert "echo 80 > /sys/class/net/eth0/ecn/roce_rp/rpg_min_dec_fac" in script
    assert "echo 2 > /sys/class/net/eth0/ecn/roce_np/min_time_between_cnps" in script


def test_pinned_values_win_and_generic_pins_warn_at_400g() -> None:
    pinned = _intent(dcqcn={"rp": {"rpg_min_dec_fac": 50, "rpg_ai_rate": 12}})
    rp, _ = _dcqcn(pinned)
    assert (rp["rpg_min_dec_fac"], rp["rpg_ai_rate"], rp["rpg_time_reset"]) == (50, 12, 100)
    findings = [f for f in lint(pinned).findings if f.id == "DCQ006"]
    assert [f.path for f in findings] == ["qos.dcqcn.rp.rpg_min_dec_fac"]  # 12 is a tuned value, not generic
    assert "80-98" in findings[0].message
    assert "DCQ006" not in lint(_intent()).ids


def test_100g_keeps_connectx_defaults_and_800g_says_there_is_no_published_tuning() -> None:
    rp, np = _dcqcn(_intent("100G"))
    assert {k: rp[k] for k in GENERIC_RP} == GENERIC_RP and np == GENERIC_NP
    assert "DCQ006" not in lint(_intent("100G")).ids
    rp, np = _dcqcn(_intent("800G"))
    assert {k: rp[k] for k in GENERIC_RP} == GENERIC_RP and np == GENERIC_NP
    assert speed_profile(800_000).source is None
    dcq = [f for f in lint(_intent("800G")).findings if f.id == "DCQ006"]
    assert [f.path for f in dcq] == ["qos.dcqcn"] and "no published DCQCN tuning for 800G" in dcq[0].message


def test_dcq006_names_the_fabric_nic_model() -> None:
    pinned = _intent(dcqcn={"rp": {"rpg_min_dec_fac": 50}})
    model = pinned.node.nic_model
    [finding] = [f for f in lint(pinned).findings if f.id == "DCQ006"]
    assert f"pins the generic {model} default at 400G" in finding.message
    other = pinned.model_copy(update={"node": pinned.node.model_copy(update={"nic_model": "BlueField-3"})})
    [finding] = [f for f in lint(other).findings if f.id == "DCQ006"]
    assert "pins the generic BlueField-3 default at 400G" in finding.message


@pytest.mark.parametrize(("speed", "rtt", "floor"), [(100_000, 10.0, 17_858), (400_000, 10.0, 71_429),
                                                       (800_000, 10.0, 142_858), (400_000, 4.0, 28_572)])
def test_ecn_floor_is_bdp_over_seven(speed: int, rtt: float, floor: int) -> None:
    assert ecn_floor_bytes(speed, rtt) == floor


def test_ecn_floor_follows_the_fabric_rtt() -> None:
    # lab-mini's 150KB min clears the 400G floor at 10 us (70KB) but not at 25 us (175KB)
    assert "ECN007" not in lint(_intent()).ids
    assert "ECN007" in lint(_intent(base_rtt_us=25.0)).ids
