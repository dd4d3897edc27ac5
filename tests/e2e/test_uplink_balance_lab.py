"""Uplink balance against the lab: a clean fabric has none; hash_polarized on one uplink of a leaf is a warning
naming that leaf and uplink on exactly the nodes cabled to it, and drains nobody."""

from __future__ import annotations

import pytest
from labkit import deployed_lab  # noqa: F401  (fixture)

from roceops.device.intent import SwitchIntent
from roceops.health.balance import CHECK, uplinks
from roceops.health.engine import HealthOptions, run_health
from roceops.plan import plan

pytestmark = pytest.mark.lab

NODES = [f"gpu{n:03d}" for n in range(1, 9)]


def health(lab):
    return run_health(lab.fabric, NODES, HealthOptions(window_s=1.0, deadline_s=20.0, lab_dir=lab.state_dir))


def test_clean_fabric_has_no_uplink_warning(deployed_lab) -> None:
    report = health(deployed_lab)
    balance = [r for r in report.results if r.check == CHECK]
    assert balance and {r.status for r in balance} == {"ok"}
    assert all(len(r.observed) == 4 for r in balance)  # lab-mini leaves: 4 uplinks each, all sampled
    assert all(v.reasons == [] for v in report.verdicts)


@pytest.mark.parametrize("leaf", ["leaf-su1-r1", "leaf-su2-r2"])  # a SONiC and a Cumulus leaf
def test_hash_polarized_warns_naming_the_leaf_and_hot_uplink(deployed_lab, leaf: str) -> None:
    intent = plan(deployed_lab.fabric, leaf)
    assert isinstance(intent, SwitchIntent)
    hot = uplinks(intent)[1]
    deployed_lab.thread.inject(leaf, "hash_polarized", port=hot)
    try:
        report = health(deployed_lab)
    finally:
        deployed_lab.thread.clear(None)
    warned = {r.node: r for r in report.results if r.check == CHECK and r.status == "warn"}
    cabled = {h.name for h in deployed_lab.fabric.hosts if any(n.leaf == leaf for n in h.nics)}
    assert set(warned) == cabled
    message = next(iter(warned.values())).message
    assert leaf in message and hot in message and "4.0x" not in message  # 4x a healthy port = 2.3x the mean
    assert report.exit_code == 0 and {v.status for v in report.verdicts} == {"ok"}  # a warning drains nobody
    assert all(any(hot in r for r in v.reasons) for v in report.verdicts if v.node in cabled)
