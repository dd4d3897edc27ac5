"""`roceops plan ...`: planning reports computed from the fabric intent alone (no devices)."""

from __future__ import annotations

from dataclasses import asdict
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from roceops.cli.common import Exit, FabricOption, console, fail, load_fabric_or_exit, print_json

if TYPE_CHECKING:  # imported where used (CLI start-up time: tests/cli/test_startup_imports.py)
    from roceops.plan.entropy import EntropyPlan

app = typer.Typer(help="Planning reports from the fabric intent (no devices touched).", no_args_is_help=True)


class Algorithm(StrEnum):
    ring = "ring"
    tree = "tree"


class Placement(StrEnum):
    spread = "spread"
    packed = "packed"


class TableOrJson(StrEnum):
    table = "table"
    json = "json"


@app.command()
def entropy(
    fabric: Path = FabricOption,
    algorithm: Algorithm | None = typer.Option(None, help="collective (default: load_balancing.entropy)"),
    placement: Placement | None = typer.Option(None, help="how the job's ranks sit on leaves"),
    nodes: int | None = typer.Option(None, help="nodes in the job (default: every node)"),
    channels: int | None = typer.Option(None, help="NCCL channels per NIC and peer"),
    qps: int | None = typer.Option(None, help="QPs per connection to judge (default: the fabric's)"),
    target_load: float | None = typer.Option(None, help="worst-uplink load, in connections' worth"),
    simulate_trials: int = typer.Option(0, "--simulate", help="also run a seeded hash simulation of N trials"),
    seed: int = typer.Option(1, help="simulation seed"),
    fmt: TableOrJson = typer.Option(TableOrJson.table, "--format"),
) -> None:
    """Flows per leaf uplink and collision odds per QP count; recommends NCCL_IB_QPS_PER_CONNECTION.

    Exit 1 when the fabric's QP count gives a collision probability above the limit (lint LB001).
    Example: roceops plan entropy --algorithm tree --placement packed
    """
    from pydantic import ValidationError

    from roceops.model.load_balancing import EntropyScenario
    from roceops.plan.entropy import plan_entropy
    from roceops.plan.entropy_sim import simulate

    loaded = load_fabric_or_exit(fabric)
    base = loaded.fabric.intent.load_balancing.entropy
    changes = {k: v for k, v in {"algorithm": algorithm, "placement": placement, "nodes": nodes,
                                 "channels": channels, "target_load": target_load}.items() if v is not None}
    try:
        scenario = EntropyScenario.model_validate({**base.model_dump(), **changes})
    except ValidationError as exc:
        fail("; ".join(f"--{'-'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()))
    if qps is not None and qps < 1:
        fail("--qps must be at least 1")
    if not 0 <= simulate_trials <= 100_000:
        fail("--simulate takes 0 to 100000 trials")
    result = plan_entropy(loaded.fabric, scenario, qps)
    fields = loaded.fabric.intent.load_balancing.fields
    sims = [(r.qps, simulate(result.worst, r.qps, fields, trials=simulate_trials, seed=seed))
            for r in result.rows if r.qps in (result.fabric_qps, result.recommended_qps)] \
        if simulate_trials and result.worst is not None else []
    if fmt is TableOrJson.json:
        print_json({"fabric": loaded.fabric.intent.name, **result.to_dict(),
                    "simulation": [{"qps": q, "seed": seed, **asdict(s)} for q, s in sims]})
    else:
        _print(loaded.fabric.intent.name, result)
        for q, sim in sims:
            console.print(f"simulated ({sim.trials} trials, seed {seed}, hash on {', '.join(fields)}): {q} QPs: "
                          f"P(>=2 conns) {sim.p_collision:.3g}, mean fullest uplink {sim.mean_worst:.3g} conns")
    row = result.fabric_row
    warn = row is not None and row.p_collision > scenario.max_collision_probability
    raise typer.Exit(int(Exit.FINDINGS if warn else Exit.OK))


def _print(name: str, result: EntropyPlan) -> None:
    from rich.table import Table

    from roceops.plan.entropy import leaf_groups

    sc = result.scenario
    console.print(f"{name}: {sc.algorithm} AllReduce over {result.nodes} nodes, {sc.placement} placement, "
                  f"{sc.channels} channel(s); each connection {result.connection_mbps / 1000:g} Gb/s")
    if result.worst is None or not result.rows:
        console.print("no connection leaves a leaf through ECMP uplinks (rail-only, or the job fits on one leaf)")
        return
    groups = Table("leaves", "uplinks", "connections leaving", "per uplink", title="leaves by uplink traffic")
    for (uplinks, conns), count in sorted(leaf_groups(result.leaves).items()):
        groups.add_row(str(count), str(uplinks), str(conns), f"{conns / uplinks:.3g}")
    console.print(groups)
    w = result.worst
    target = f"P>={sc.target_load:g}" if sc.target_load != 2.0 else None
    table = Table("QPs", "flows", "per uplink", "load", "P(>=2 conns)", *([target] if target else []),
                  f"worst @{1 - sc.max_collision_probability:.0%}", "",
                  title=f"worst leaf {w.leaf} (rail {w.rail}, plane {w.plane}): {w.connections} connections on "
                        f"{w.uplinks} x {w.uplink_speed // 1000}G uplinks")
    for r in result.rows:
        mark = ", ".join(m for m, on in (("fabric", r.qps == result.fabric_qps),
                                          ("recommended", r.qps == result.recommended_qps)) if on)
        cells = [str(r.qps), str(r.flows), f"{r.flows_per_uplink:.3g}", f"{r.load_percent:.0f}%",
                 f"{r.p_collision:.3g}", *([f"{r.p_over_target:.3g}"] if target else []),
                 f"{r.worst_load:.3g} ({r.worst_percent:.0f}%)", mark]
        table.add_row(*cells)
    console.print(table)
    if result.recommended_qps is None:
        console.print(f"no QP count up to 128 keeps every uplink under {sc.target_load:g} connections' worth with "
                      f"probability {1 - sc.max_collision_probability:.0%}: use load_balancing.mode dynamic or "
                      "adaptive, or more uplinks")
    else:
        console.print(f"recommended: load_balancing.qps_per_connection: {result.recommended_qps} "
                      f"(NCCL_IB_QPS_PER_CONNECTION={result.recommended_qps})")
