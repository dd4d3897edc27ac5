"""Load balancing per platform: Cumulus renders ECMP hash fields and adaptive routing, the lab accepts them,
the driver reads them back and audit finds a changed hash field; SONiC and EOS refuse what they cannot render."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from labtools import free_endpoint_base, lab_mini, netmiko_connect

from roceops.device.compare import compare
from roceops.device.intent import LoadBalancingIntent, SwitchIntent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.cumulus import DRIVER
from roceops.platforms.lb_support import LbSupport
from roceops.platforms.templating import render_device

LEAF = "leaf-su2-r1"  # a Cumulus leaf of lab-mini (overrides.groups.cumulus sets the 5-tuple)


def _cumulus_leaf() -> SwitchIntent:
    i = plan(lab_mini(), LEAF)
    assert isinstance(i, SwitchIntent)
    return i


def test_cumulus_renders_hash_fields_and_adaptive_routing() -> None:
    leaf = _cumulus_leaf()
    assert leaf.load_balancing.hash_fields == ["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"]
    adaptive = leaf.model_copy(update={"load_balancing": LoadBalancingIntent(
        mode="adaptive", hash_fields=["src_ip", "dst_ip", "l4_src_port"], hash_seed=4294967295)})
    lines = render_device(adaptive).files["nvue.commands"].splitlines()
    hashing = [line for line in lines if "forwarding" in line or "adaptive-routing" in line]
    fabric = sorted(p.name for p in leaf.ports.values() if p.role == "fabric")
    assert fabric == ["swp3s0", "swp3s1", "swp4s0", "swp4s1"]  # the uplinks to the four spines
    assert hashing == [
        "nv set system forwarding ecmp-hash source-ip on",
        "nv set system forwarding ecmp-hash destination-ip on",
        "nv set system forwarding ecmp-hash ip-protocol off",
        "nv set system forwarding ecmp-hash source-port on",
        "nv set system forwarding ecmp-hash destination-port off",
        "nv set system forwarding hash-seed 4294967295",
        "nv set router adaptive-routing enable on",
        *(f"nv set interface {port} router adaptive-routing enable on" for port in fabric),
    ]  # host ports (swp1s0...) keep NVUE's default, off
    default = leaf.model_copy(update={"load_balancing": LoadBalancingIntent()})
    text = render_device(default).files["nvue.commands"]
    assert "forwarding" not in text and "adaptive-routing" not in text  # device defaults untouched
    seed_zero = leaf.model_copy(update={"load_balancing": LoadBalancingIntent(hash_seed=0)})
    assert "nv set system forwarding hash-seed 0\n" in render_device(seed_zero).files["nvue.commands"]


def test_lb_support_says_what_each_room_renders() -> None:
    from roceops.platforms.base import get_platform
    cumulus = get_platform("cumulus").lb_support
    assert isinstance(cumulus, LbSupport)
    assert cumulus.hash_seed and cumulus.modes == {"ecmp", "adaptive"}
    assert cumulus.adaptive_speeds == {200_000, 400_000} and "800G" in cumulus.adaptive_speeds_source
    assert "restarts switchd" in cumulus.seed_disruption
    for name in ("sonic", "eos"):
        other = get_platform(name).lb_support
        assert not isinstance(other, LbSupport) or (not other.hash_seed and not other.adaptive_speeds)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    spec = lab_specs(lab_mini(), [LEAF], configured=True)[0]
    base, port = free_endpoint_base()
    thread = LabThread([spec], tmp_path_factory.mktemp("lb-lab") / "state", port=port, base_address=base)
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


@pytest.mark.lab
def test_cumulus_lab_reads_back_hashing_and_audit_finds_a_changed_field(lab: LabThread) -> None:
    leaf = _cumulus_leaf()
    conn: Any = netmiko_connect(lab, LEAF, "cumulus")
    try:
        observed = DRIVER.observe(DRIVER.collect(conn, leaf))
        lb = observed.load_balancing
        assert lb is not None and (lb.mode, lb.hash_fields) == ("ecmp", leaf.load_balancing.hash_fields)
        assert compare(DRIVER.expected(leaf), observed) == []
        # an operator turns the source port out of the hash: RoCE loses its per-QP entropy
        for command in ("nv set system forwarding ecmp-hash source-port off", "nv config apply -y"):
            conn.send_command(command)
        drift = compare(DRIVER.expected(leaf), DRIVER.observe(DRIVER.collect(conn, leaf)))
        assert [(d.path, d.observed) for d in drift] == [
            ("load_balancing.hash_fields", ["src_ip", "dst_ip", "ip_protocol", "l4_dst_port"])]
        for command in ("nv set router adaptive-routing enable on", "nv config apply -y"):
            conn.send_command(command)
        observed = DRIVER.observe(DRIVER.collect(conn, leaf))
        assert observed.load_balancing is not None and observed.load_balancing.mode == "adaptive"
    finally:
        conn.disconnect()


def _lab_mini_with(**lb: Any) -> FabricIntent:
    data = lab_mini().intent.model_dump(mode="json", exclude_unset=True)
    data["load_balancing"] = {**data.get("load_balancing", {}), **lb}
    return FabricIntent.model_validate(data)


def test_sonic_and_eos_refuse_what_they_cannot_render() -> None:
    report = lint(_lab_mini_with(hash_fields=["src_ip", "dst_ip", "l4_src_port"], hash_seed={"spine": 7}))
    lb003 = {(f.path, m.group(1)) for f in report.findings if f.id == "LB003"
             and (m := re.search(r"\((sonic|eos|cumulus)\): ", f.message))}
    assert lb003 == {("load_balancing.hash_fields", "eos"), ("load_balancing.hash_seed.spine", "eos")}
    # the Cumulus group and SONiC (SWITCH_HASH) render the same fields: no finding names them
    assert not any(p in f.message for f in report.findings if f.id == "LB003" for p in ("cumulus", "sonic"))
    seeded = lint(_lab_mini_with(hash_seed={"leaf": 7}))  # SONiC's YANG set has no seed leaf
    assert {(f.path, "sonic" in f.message) for f in seeded.findings if f.id == "LB003"} >= {
        ("load_balancing.hash_seed.leaf", True)}
    dynamic = lint(_lab_mini_with(mode="dynamic"))
    assert {f.path for f in dynamic.findings if f.id == "LB003"} == {"load_balancing.mode"}
    assert not dynamic.ok


def _cumulus_adaptive(hwsku: str | None) -> FabricIntent:
    data = lab_mini().intent.model_dump(mode="json", exclude_unset=True)
    data["overrides"]["groups"]["cumulus"]["load_balancing"]["mode"] = "adaptive"
    if hwsku is None:
        data["switch_models"]["sn5600-8x400g"].pop("hwsku")
    else:
        data["switch_models"]["sn5600-8x400g"]["hwsku"] = hwsku
    return FabricIntent.model_validate(data)


def test_adaptive_routing_needs_a_sku_that_has_it() -> None:
    """LB004: Cumulus renders adaptive routing (no LB003), and the SN5600 profile confirms it; the SN4700 profile
    does not, and a model without a hwsku confirms nothing."""
    assert not [f for f in lint(_cumulus_adaptive("Mellanox-SN5600-O128")).findings if f.id in ("LB003", "LB004")]
    sn4700 = [f for f in lint(_cumulus_adaptive("Mellanox-SN4700-O32")).findings if f.id == "LB004"]
    assert [(f.path, f.severity.value) for f in sn4700] == [("overrides.groups.cumulus.load_balancing.mode", "error")]
    assert "mode adaptive on leaf-su2-r1 and 1 more: Mellanox-SN4700-O32 has no adaptive_routing" in sn4700[0].message
    custom = [f for f in lint(_cumulus_adaptive(None)).findings if f.id == "LB004"]
    assert len(custom) == 1 and "names no hardware profile (hwsku), so adaptive_routing is unconfirmed" in \
        custom[0].message


def test_destination_qp_hashing_is_refused_where_it_cannot_be_rendered_or_confirmed() -> None:
    """roce_dest_qp renders nowhere today (LB003 on every platform), so LB004 stays silent rather than report it
    twice."""
    report = lint(_lab_mini_with(hash_fields=["src_ip", "dst_ip", "roce_dest_qp"]))
    assert {f.id for f in report.findings if f.id.startswith("LB00") and f.id != "LB001"} == {"LB003"}


def test_adaptive_routing_on_800g_fabric_ports_is_refused() -> None:
    """LB005: Cumulus runs adaptive routing at 200G/400G only (no AR on Spectrum-4's 800G links). The 800G example
    with Cumulus switches has 800G fabric links; lab-mini's Cumulus leaves (2x400G uplinks) are fine."""
    from conftest import EXAMPLES

    from roceops.model.loader import load
    data = load(EXAMPLES["fabric-800g"]).intent.model_dump(mode="json", exclude_unset=True)
    for tier in ("leaf", "spine"):
        data["tiers"][tier].update(platform="cumulus")
        data["tiers"][tier].pop("nos_version", None)
    data["load_balancing"]["mode"] = "adaptive"
    lb005 = [f for f in lint(FabricIntent.model_validate(data)).findings if f.id == "LB005"]
    assert [(f.path, f.severity.value) for f in lb005] == [("load_balancing.mode", "error")]
    assert "mode adaptive on leaf-su1-r1 and 15 more (cumulus): fabric ports at 800G, but adaptive routing runs " \
           "at 200G/400G only" in lb005[0].message
    assert not [f for f in lint(_cumulus_adaptive("Mellanox-SN5600-O128")).findings if f.id == "LB005"]


def test_a_cumulus_seed_renders_and_warns_that_its_apply_restarts_switchd() -> None:
    """LB003 no longer refuses a seed on Cumulus; LB004 accepts it on the SN5600 (Spectrum-4 confirms a seed);
    LB006 warns that applying it restarts switchd, naming where the seed comes from."""
    data = lab_mini().intent.model_dump(mode="json", exclude_unset=True)
    data["overrides"]["groups"]["cumulus"]["load_balancing"]["hash_seed"] = 1931
    report = lint(FabricIntent.model_validate(data))
    lb = [f for f in report.findings if f.id.startswith("LB")]
    assert [(f.id, f.path, f.severity.value) for f in lb] == [
        ("LB006", "overrides.groups.cumulus.load_balancing.hash_seed", "warning")]
    assert "hash seed on leaf-su2-r1 and 1 more (cumulus): applying a new hash seed restarts switchd, which resets " \
           "every network port" in lb[0].message
    assert report.ok
    from roceops.topology.expand import expand
    leaf = plan(expand(FabricIntent.model_validate(data)), LEAF)
    assert isinstance(leaf, SwitchIntent) and leaf.load_balancing.hash_seed == 1931
