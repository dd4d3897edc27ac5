"""verify routing --by-class on real FRR: a 4-SU fabric (lab-mini with 4 SUs, EOS leaves) with one broken device
in each non-representative SU. Both are found: the class argument builds them, and FRR reports them.

Needs root, ``ip netns`` and FRR; skips with the reason otherwise.
"""

from __future__ import annotations

from pathlib import Path

from conftest import example_dict
from frrkit import four_su_intent, without_maximum_paths
from planekit import needs_plane

from roceops.device.change import RenderedDevice
from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.verify import report
from roceops.verify.engine import VerifyOptions, verify_routing
from roceops.verify.netns import namespaces_with_prefix

pytestmark = needs_plane


def test_broken_devices_of_non_representative_sus_are_built_and_reported(tmp_path: Path) -> None:
    fabric = expand(FabricIntent.model_validate(four_su_intent(example_dict("lab-mini"))))
    leaf = plan(fabric, "leaf-su2-r1")
    assert isinstance(leaf, SwitchIntent)
    first = leaf.bgp.neighbors[0]
    wrong_asn = leaf.model_copy(update={"bgp": leaf.bgp.model_copy(
        update={"neighbors": [first.model_copy(update={"remote_asn": 65999}), *leaf.bgp.neighbors[1:]]})})
    files = dict(render_device(plan(fabric, "leaf-su3-r2")).files)
    files["config.eos"] = without_maximum_paths(files["config.eos"])
    opts = VerifyOptions(settle_s=1.0, settle_down_s=5.0, deadline_s=40.0, state_dir=tmp_path / "state",
                         by_class=True)
    result = verify_routing(fabric, opts, intents={"leaf-su2-r1": wrong_asn},
                            rendered={"leaf-su3-r2": RenderedDevice(name="leaf-su3-r2", platform="eos", files=files)})
    assert not namespaces_with_prefix(result.run_id)
    # the spine at the other end of the broken session has no other path to that leaf's hosts (one cable
    # per leaf and spine here, every spine in one ASN), so it misses their subnets
    assert sorted((f.check, f.device, f.path) for f in result.findings) == [
        ("bgp.session", "leaf-su2-r1", f"bgp[{first.ip}]"), ("ecmp.width", "leaf-su3-r2", "ecmp.host_subnets"),
        ("route.host_subnet", first.description, "rib.host_subnets")]
    assert result.verified("leaf-su2-r1") == result.verified("leaf-su3-r2") == "direct"
    # the broken leaves' SUs are built (hosts need every leaf of their SU); nothing else of them is by class
    assert result.counts["verified_by_class"] == 0 and result.counts["verified_direct"] == 28
    doc = report.as_dict(result)
    assert doc["verified"]["leaf-su2-r1"] == {"verified": "direct", "reason": "differs from its class"}


def test_clean_fabric_by_class_reports_how_each_device_was_verified(tmp_path: Path) -> None:
    fabric = expand(FabricIntent.model_validate(four_su_intent(example_dict("lab-mini"))))
    opts = VerifyOptions(settle_s=1.0, settle_down_s=5.0, deadline_s=40.0, state_dir=tmp_path / "state",
                         by_class=True)
    result = verify_routing(fabric, opts)
    assert result.findings == [] and result.exit_code == 0
    assert (result.counts["verified_direct"], result.counts["verified_by_class"]) == (16, 12)
    assert result.counts["established"] == result.counts["sessions"] == 16  # SU1 and SU4 leaves x 4 spines
    doc = report.as_dict(result)
    assert doc["verified"]["gpu010"] == {"verified": "class", "representative": "gpu002"}
    assert "verified: direct 16, by class 12" in report.run_of(result).summary[1]
