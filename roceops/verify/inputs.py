"""What ``verify routing`` needs of each device, made without I/O: its plan and its rendered *routing* files
(a switch's ``Platform.routing_source``, a host's netplan and sysctl files: the only files the plane reads),
and for the class argument its node (what the plane would run), its cable ends' MTUs and its canonical form.
The per-device planning, rendering and translation of the class argument is spread over the cores (forked
workers, :func:`fork_map`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from roceops.device.change import RenderedDevice
from roceops.device.intent import HostIntent
from roceops.parallel import fork_map
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.templating import render_device
from roceops.topology.fabric import Fabric
from roceops.verify import classes
from roceops.verify.plane import HOST_FILES, HostNode, Intent, SwitchNode, node_of, port_mtu

PARALLEL_THRESHOLD = 256  # below this many devices, starting worker processes costs more than it saves


def routing_outputs(intent: Intent) -> frozenset[str]:
    """The rendered files the plane reads for this device."""
    if isinstance(intent, HostIntent):
        return frozenset(HOST_FILES)
    source = get_platform(intent.platform).routing_source
    return frozenset({source} if source else ())


def planned(fabric: Fabric, names: Iterable[str], intents: Mapping[str, Intent],
            rendered: Mapping[str, RenderedDevice]) -> tuple[dict[str, Intent], dict[str, RenderedDevice]]:
    """Plan and render (routing files only) ``names``; ``intents``/``rendered`` replace a device's own."""
    out_intents: dict[str, Intent] = {}
    out_rendered: dict[str, RenderedDevice] = {}
    for name in names:
        intent = out_intents[name] = intents.get(name) or plan(fabric, name)
        out_rendered[name] = rendered.get(name) or render_device(intent, only=routing_outputs(intent))
    return out_intents, out_rendered


def _one(fabric: Fabric, name: str, intents: Mapping[str, Intent], rendered: Mapping[str, RenderedDevice]
         ) -> tuple[SwitchNode | HostNode, dict[tuple[str, str], int]]:
    """One device's node and the MTU of each of its cable ends."""
    planned_intents, planned_rendered = planned(fabric, [name], intents, rendered)
    intent = planned_intents[name]
    node = node_of(name, "", intent, planned_rendered[name])
    ends: dict[tuple[str, str], int] = {}
    for link in fabric.links_of(name):
        port = link.a.port if link.a.device == name else link.b.port
        ends[(name, port)] = port_mtu(fabric, intent, port)
    return node, ends


def class_inputs(fabric: Fabric, intents: Mapping[str, Intent], rendered: Mapping[str, RenderedDevice], *,
                 min_items: int = PARALLEL_THRESHOLD
                 ) -> tuple[dict[str, SwitchNode | HostNode], dict[tuple[str, str], int], dict[str, tuple[str, ...]]]:
    """(every device's node, every cable end's MTU, every device's canonical form): what
    :func:`roceops.verify.plane.device_nodes` and :func:`roceops.verify.classes.canonical` give; nodes and MTUs
    per device in forked workers (only they travel back)."""
    names = [d.name for d in fabric.devices()]
    nodes: dict[str, SwitchNode | HostNode] = {}
    mtus: dict[tuple[str, str], int] = {}
    for name, (node, ends) in zip(names, fork_map(lambda n: _one(fabric, n, intents, rendered), names,
                                                  min_items=min_items), strict=True):
        nodes[name] = node
        mtus.update(ends)
    # the forms in this process: forking a process that holds every node costs more than the forms (measured)
    return nodes, mtus, {n: classes.canonical(fabric, n, nodes[n], mtus) for n in names}
