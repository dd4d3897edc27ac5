"""``audit --topology-conf``: the scheduler's ``topology.conf`` against the cabling plan, one finding per node the
file places under other leaves than the plan (``schedule.topology``). Reads no device."""

from __future__ import annotations

from roceops.hints import command
from roceops.report.result import Result
from roceops.topology.fabric import Fabric
from roceops.topology.scheduler import SlurmTopology, misplaced_nodes

CHECK = "schedule.topology"
PATH = "schedule.leaves"


def topology_findings(fabric: Fabric, conf: SlurmTopology, nodes: list[str], source: str,
                      hint_context: tuple[str, ...] = ()) -> list[Result]:
    """One ``schedule.topology`` finding per planned node of ``nodes`` that ``conf`` misplaces."""
    fix = command("topology", "--format", "slurm", context=[c for c in hint_context if c != "--lab"])
    out = []
    for m in misplaced_nodes(fabric, conf, nodes):
        where = ", ".join(m.found) if m.found else "no switch"
        out.append(Result(check=CHECK, device=m.node, path=PATH, expected=m.planned, observed=m.found,
                           message=f"{source} places {m.node} under {where}; the plan cables it to "
                                   f"{', '.join(m.planned)}",
                           hint=f"regenerate the file with `{fix}` and run `scontrol reconfigure`"))
    return out
