"""The simulated switch's ``ip -j [-6] neigh show`` (bash's iproute2 on Cumulus Linux): the IPv6 link-local
neighbour at the far end of every cabled, up port, with the lab's MACs (lab/physical.py), STALE as an entry learned
from the neighbour's own packets is. iproute2's JSON: one compact array of ``{"dst", "dev", "lladdr", "state"}``
(vyos/vyos-1x src/op_mode/neighbor.py @ ec23c669 shows the keys). The lab keeps no IPv4 neighbours: ``-4`` is empty.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from roceops.lab.physical import link_local, port_mac
from roceops.util.sorting import natsorted

if TYPE_CHECKING:
    from roceops.lab.devices.cumulus.state import CumulusStateCore


def ip_command(state: CumulusStateCore, args: list[str]) -> tuple[str, int]:
    """``ip [-j|-json] [-4|-6] neigh[bour] show``; other objects as iproute2 refuses an unknown one."""
    opts = [a for a in args if a.startswith("-")]
    words = [a for a in args if not a.startswith("-")]
    if words[:1] not in (["neigh"], ["neighbour"], ["neighbor"]) or words[1:] not in ([], ["show"], ["list"]):
        return f'Object "{words[0] if words else ""}" is unknown, try "ip help".', 255
    as_json = bool({"-j", "-json", "--json"} & set(opts))
    rows = [] if "-4" in opts else _entries(state)
    if as_json:
        return json.dumps(rows, separators=(",", ":")), 0
    return "\n".join(f"{r['dst']} dev {r['dev']} lladdr {r['lladdr']} STALE" for r in rows), 0


def _entries(state: CumulusStateCore) -> list[dict[str, object]]:
    view = state.view()
    out: list[dict[str, object]] = []
    for name in natsorted(state.physical.ports):
        neighbor = state.physical.ports[name].neighbor
        pv = view.ports.get(name)
        if neighbor is not None and state.physical.oper_up(name, pv.admin_up if pv else True):
            mac = port_mac(*neighbor)
            out.append({"dst": link_local(mac), "dev": name, "lladdr": mac, "state": ["STALE"]})
    return out
