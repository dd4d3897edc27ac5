"""Entropy planner: exact balls-into-bins values, NCCL's trees, flows per uplink and the QP recommendation."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.lint import lint
from roceops.model.intent import FabricIntent
from roceops.model.load_balancing import EntropyScenario
from roceops.model.loader import load
from roceops.plan.balls_bins import p_max_at_least, quantile_max
from roceops.plan.entropy import btree_parent, dtree_parents, plan_entropy
from roceops.topology.expand import expand


def _birthday(balls: int, bins: int) -> float:
    """Closed form: P(some bin holds two) = 1 - n!/((n-m)! n^m)."""
    return 1.0 - math.perm(bins, balls) / bins**balls


def _brute(balls: int, bins: int, k: int) -> float:
    hits = sum(max(t.count(b) for b in range(bins)) >= k for t in itertools.product(range(bins), repeat=balls))
    return hits / bins**balls


@pytest.mark.parametrize(("balls", "bins"), [(2, 2), (4, 16), (8, 16), (10, 32), (23, 365), (16, 16)])
def test_two_in_a_bin_is_the_birthday_problem(balls: int, bins: int) -> None:
    assert p_max_at_least(balls, bins, 2) == pytest.approx(_birthday(balls, bins), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("balls", "bins", "k"), [(5, 3, 3), (6, 4, 3), (7, 3, 4), (6, 2, 5), (8, 4, 2)])
def test_any_k_matches_enumeration(balls: int, bins: int, k: int) -> None:
    assert p_max_at_least(balls, bins, k) == pytest.approx(_brute(balls, bins, k), rel=1e-9)


def test_edges_and_the_large_fabric_approximation() -> None:
    assert p_max_at_least(17, 16, 2) == 1.0  # pigeonhole
    assert p_max_at_least(3, 16, 4) == 0.0
    # one ball over the exact limit the independent-Poisson value is within 1 % of the exact one
    assert p_max_at_least(2049, 32, 80) == pytest.approx(p_max_at_least(2048, 32, 80), rel=0.01)
    # 16 balls in 16 bins: P(max >= 3) = 0.5893... (exact, enumerated by the polynomial method) so the
    # fullest bin at 90 % confidence holds 4
    assert quantile_max(16, 16, 0.1) == 4
    assert p_max_at_least(16, 16, 5) <= 0.1 < p_max_at_least(16, 16, 4)


def test_btree_matches_nccl_illustration() -> None:
    # NVIDIA/nccl src/graph/trees.cc: 14 ranks, 0-8, 8-{4,12}, 4-{2,6}, 12-{10,13}, 2-{1,3} ...
    parents = {r: btree_parent(r, 14) for r in range(14)}
    assert parents == {0: None, 1: 2, 2: 4, 3: 2, 4: 8, 5: 6, 6: 4, 7: 6, 8: 0, 9: 10, 10: 12, 11: 10,
                       12: 8, 13: 12}
    # even: the second tree is the mirror (root 13); odd: shifted by one (root 1)
    assert [r for r in range(14) if len(dtree_parents(r, 14)) < 2] == [0, 13]
    assert [r for r in range(13) if len(dtree_parents(r, 13)) < 2] == [0, 1]


def sixteen_uplinks(qps: int) -> FabricIntent:
    """32-port 400G leaves at 1:1 = 16 host ports and 16 ECMP uplinks; 4 nodes per leaf, 4 SUs, 2 rails."""
    return FabricIntent.model_validate({
        "name": "sixteen", "node": {"gpus": 2, "rails": 2, "nic_speed": "400G"},
        "scalable_units": {"count": 4, "nodes_per_su": 4},
        "switch_models": {"sw32": {"radix": 32, "port_speed": "400G"}},
        "tiers": {"leaf": {"model": "sw32", "platform": "sonic"}, "spine": {"model": "sw32", "platform": "sonic"}},
        "load_balancing": {"qps_per_connection": qps},
    })


def test_sixteen_uplinks_one_qp_warns_four_do_not() -> None:
    fabric = expand(sixteen_uplinks(1))
    result = plan_entropy(fabric)
    assert result.worst is not None
    # spread ring: each of the leaf's 4 nodes talks to a node on another leaf -> 4 connections, 16 uplinks
    assert (result.worst.uplinks, result.worst.connections) == (16, 4)
    one = next(r for r in result.rows if r.qps == 1)
    assert one.flows_per_uplink == 0.25
    assert one.p_collision == pytest.approx(1 - 16 * 15 * 14 * 13 / 16**4)  # 0.3335
    four = next(r for r in result.rows if r.qps == 4)
    assert four.p_collision == pytest.approx(p_max_at_least(16, 16, 8))  # >= 8 of 16 QPs on one uplink
    assert four.p_collision < 1e-4
    assert "LB001" in lint(sixteen_uplinks(1), fabric).ids
    assert "LB001" not in lint(sixteen_uplinks(4)).ids
    assert result.recommended_qps == 2  # P(>= 4 of 8 QPs on one of 16 uplinks) = 0.0087


def test_example_fabric_flows_and_recommendation() -> None:
    fabric = expand(load(EXAMPLES["fabric"]).intent)
    result = plan_entropy(fabric, EntropyScenario(), qps=1)
    assert result.worst is not None and result.nodes == 64
    # 16 leaves (8 rails x 2 SUs), each sending its 32 nodes' ring connections over 32 uplinks
    assert {(lt.uplinks, lt.connections) for lt in result.leaves} == {(32, 32)} and len(result.leaves) == 16
    assert [(r.qps, r.flows_per_uplink) for r in result.rows][:2] == [(1, 1.0), (2, 2.0)]
    assert result.recommended_qps == 10
    row10 = next(r for r in result.rows if r.qps == 10)
    assert row10.p_collision <= 0.1 < next(r for r in result.rows if r.qps == 8).p_collision
    packed = plan_entropy(fabric, EntropyScenario(placement="packed"), qps=1)
    assert packed.worst is not None and packed.worst.connections == 1  # only the ring's hop to the next leaf


def test_cli_table_and_json() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["plan", "entropy", "-f", str(EXAMPLES["fabric"]), "--qps", "1"])
    assert out.exit_code == 1, out.output  # 1 QP: the collision warning
    assert "32 connections on 32 x 400G uplinks" in out.output
    assert "qps_per_connection: 10" in out.output
    js = runner.invoke(app, ["plan", "entropy", "-f", str(EXAMPLES["fabric"]), "--qps", "16", "--format", "json"])
    assert js.exit_code == 0, js.output
    data = json.loads(js.output)
    assert data["recommended_qps"] == 10 and data["worst_leaf"]["uplinks"] == 32
    bad = runner.invoke(app, ["plan", "entropy", "-f", str(EXAMPLES["fabric"]), "--channels", "0"])
    assert bad.exit_code == 3 and "--channels" in bad.output


def test_seeded_hash_simulation_agrees_with_the_closed_form() -> None:
    from roceops.model.load_balancing import FIVE_TUPLE
    from roceops.plan.entropy import LeafTraffic
    from roceops.plan.entropy_sim import flow_label, simulate, udp_sport

    leaf = LeafTraffic(leaf="x", rail=1, plane=1, uplinks=16, uplink_speed=400_000, connections=4)
    one = simulate(leaf, 1, FIVE_TUPLE, trials=2000, seed=7)
    assert abs(one.p_collision - (1 - 16 * 15 * 14 * 13 / 16**4)) < 0.035  # 0.3335 +- 3 standard errors
    assert simulate(leaf, 4, FIVE_TUPLE, trials=500, seed=7).p_collision < 0.01
    assert simulate(leaf, 1, FIVE_TUPLE, trials=50, seed=7) == simulate(leaf, 1, FIVE_TUPLE, trials=50, seed=7)
    # a hash blind to the source port and QP: every QP of a connection takes its connection's uplink
    blind = simulate(leaf, 4, ("src_ip", "dst_ip"), trials=50, seed=7)
    assert blind.mean_worst == int(blind.mean_worst)  # whole connections only
    assert all(0xC000 <= udp_sport(flow_label(a, b)) <= 0xFFFF for a in (1, 77, 2**24 - 1) for b in (3, 2**20))


def test_module_doctests() -> None:
    import doctest

    from roceops.model import load_balancing
    from roceops.plan import balls_bins, entropy, entropy_sim, speed_profiles

    for module in (load_balancing, balls_bins, entropy, entropy_sim, speed_profiles):
        assert doctest.testmod(module).failed == 0, module.__name__
