"""Cabling faults that span devices: ``rail_swap`` swaps two cables of one device (by default a host's first two
NICs), so both ends' link layers (and what each side's LLDP reports) follow the swap; ``no_lldpd`` makes a
device send no LLDP, so no far end hears it (:func:`silence`). Every device personality
keeps its ports in a ``physical`` (:class:`roceops.lab.physical.Physical`) whose port neighbours are the cabling;
clearing the fault puts every moved end back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.lab.personality import LabError
from roceops.lab.physical import Physical

# (device, port, neighbour before the fault)
Moved = list[tuple[str, str, tuple[str, str] | None]]


def _physical(states: Mapping[str, Any], device: str) -> Physical:
    physical = getattr(states.get(device), "physical", None)
    if not isinstance(physical, Physical):
        raise LabError(f"rail_swap: {device} has no cabled ports in the lab")
    return physical


def swap_cables(states: Mapping[str, Any], device: str, params: Mapping[str, Any]) -> Moved:
    """Swap the cables of ports ``a`` and ``b`` of ``device`` (default: its first two cabled ports) at both ends;
    returns what moved, for :func:`restore`."""
    local = _physical(states, device)
    cabled = sorted(name for name, p in local.ports.items() if p.neighbor is not None)
    a, b = str(params.get("a", cabled[0] if cabled else "")), str(params.get("b", cabled[1] if len(cabled) > 1 else ""))
    if a == b or a not in local.ports or b not in local.ports:
        raise LabError(f"rail_swap: {device} needs two different cabled ports a= and b= (cabled: {', '.join(cabled)})")
    na, nb = local.ports[a].neighbor, local.ports[b].neighbor
    if na is None or nb is None:
        raise LabError(f"rail_swap: {device} ports {a} and {b} must both be cabled")
    moved: Moved = [(device, a, na), (device, b, nb)]
    far_a, far_b = _physical(states, na[0]).ports.get(na[1]), _physical(states, nb[0]).ports.get(nb[1])
    if far_a is None or far_b is None:
        raise LabError(f"rail_swap: the far ends {na[0]}:{na[1]} / {nb[0]}:{nb[1]} are not lab ports")
    moved += [(na[0], na[1], far_a.neighbor), (nb[0], nb[1], far_b.neighbor)]
    local.ports[a].neighbor, local.ports[b].neighbor = nb, na
    far_a.neighbor, far_b.neighbor = (device, b), (device, a)
    return moved


def restore(states: Mapping[str, Any], moved: Moved) -> None:
    """Put every end :func:`swap_cables` moved back (in reverse order)."""
    for device, port, neighbor in reversed(moved):
        _physical(states, device).ports[port].neighbor = neighbor


def silence(states: Mapping[str, Any], device: str, quiet: bool) -> None:
    """``device`` sends no LLDP (``quiet``) or sends it again: every lab device's ports cabled to it hear it or not,
    wherever its cables are (a later ``rail_swap`` keeps it quiet)."""
    for state in states.values():
        physical = getattr(state, "physical", None)
        if isinstance(physical, Physical):
            if quiet:
                physical.silent.add(device)
            else:
                physical.silent.discard(device)
