"""load_balancing: strict types at load, and the settings reach every switch's and host's DeviceIntent."""

from __future__ import annotations

import pytest
from conftest import example_dict
from pydantic import ValidationError

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.model.load_balancing import FIVE_TUPLE, LoadBalancingPolicy
from roceops.plan import plan
from roceops.topology.expand import expand


def _intent(lb: dict) -> FabricIntent:
    data = example_dict("lab-mini")
    data["load_balancing"] = lb
    return FabricIntent.model_validate(data)


def test_defaults_keep_device_hashing_and_one_qp() -> None:
    lb = LoadBalancingPolicy()
    assert (lb.mode, lb.hash_fields, lb.qps_per_connection) == ("ecmp", None, 1)
    assert lb.fields == FIVE_TUPLE and lb.qp_entropy


@pytest.mark.parametrize(
    ("lb", "needle"),
    [
        ({"mode": "flowlet"}, "mode"),
        ({"qps_per_connection": 0}, "qps_per_connection"),
        ({"qps_per_connection": "4"}, "qps_per_connection"),  # strict: no string coercion
        ({"hash_fields": []}, "hash_fields"),
        ({"hash_fields": ["src_ip", "src_ip"]}, "more than once"),
        ({"hash_fields": ["bth_qp"]}, "hash_fields"),
        ({"hash_seed": {"leaf": -1}}, "leaf"),
        ({"hash_seed": {"spine": 2**32}}, "spine"),
        ({"hash_seed": {"edge": 1}}, "edge"),
        ({"hash_seed": {"leaf": "7"}}, "leaf"),
    ],
)
def test_bad_values_are_refused_with_the_field(lb: dict, needle: str) -> None:
    with pytest.raises(ValidationError) as info:
        _intent(lb)
    assert needle in str(info.value)


def test_settings_reach_switch_and_host_device_intent() -> None:
    intent = _intent({"mode": "adaptive", "hash_fields": ["src_ip", "dst_ip", "l4_src_port", "roce_dest_qp"],
                      "hash_seed": {"leaf": 11, "spine": 22}, "qps_per_connection": 4})
    fabric = expand(intent)
    leaf, spine, host = plan(fabric, "leaf-su1-r1"), plan(fabric, "spine01"), plan(fabric, "gpu001")
    assert isinstance(leaf, SwitchIntent) and isinstance(spine, SwitchIntent) and isinstance(host, HostIntent)
    assert leaf.load_balancing.mode == spine.load_balancing.mode == "adaptive"
    assert leaf.load_balancing.hash_fields == ["src_ip", "dst_ip", "l4_src_port", "roce_dest_qp"]
    assert (leaf.load_balancing.hash_seed, spine.load_balancing.hash_seed) == (11, 22)
    assert host.nccl.qps_per_connection == 4


def test_entropy_needs_a_hashed_qp_field() -> None:
    assert not LoadBalancingPolicy.model_validate({"hash_fields": ["src_ip", "dst_ip"]}).qp_entropy
    assert LoadBalancingPolicy.model_validate({"hash_fields": ["roce_dest_qp"]}).qp_entropy
