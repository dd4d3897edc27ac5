"""``nic.rail``: is NIC *i* of the node cabled to its planned leaf port? NCCL assumes NIC *i* of every node sits on
rail *i*; a swapped host cable silently sends traffic across rails and hangs jobs on rail-only fabrics
(NVIDIA/nccl#1933, #2345, #1591).

Three views, any one enough: the host's own LLDP (``lldpcli``, where hosts run lldpd), the leaves' LLDP tables
(what each host-facing port hears from the host) and, where a leaf port hears no LLDP, the NIC MAC in its IPv6
neighbour table (the host's MACs from its own ``ip -j addr show``). The observed place of a NIC is the leaf port
that names it (by LLDP, else by MAC), or the port the host's LLDP names. No view at all (no lldpd on the host and
no neighbour entry): the check is skipped with that reason, not unknown: the node's other checks decide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from roceops.device.intent import HostIntent
from roceops.health.catalog import Sample
from roceops.report.result import Result

CHECK = "nic.rail"


@dataclass(frozen=True)
class LeafViews:
    """What the sampled leaves show of every host, indexed once per run: (node, netdev) -> (leaf, port) whose LLDP
    hears it, and MAC -> (leaf, port) whose IPv6 neighbour table holds it on a port with no LLDP neighbour."""

    lldp: dict[tuple[str, str], tuple[str, str]]
    macs: dict[str, tuple[str, str]]

    @classmethod
    def of(cls, samples: dict[str, Sample], leaves: Iterable[str]) -> LeafViews:
        lldp: dict[tuple[str, str], tuple[str, str]] = {}
        macs: dict[str, tuple[str, str]] = {}
        for leaf in sorted(set(leaves)):
            sample = samples.get(leaf)
            state = sample.first if sample is not None else None
            if state is None:
                continue
            for port, n in state.lldp.items():
                lldp[(n.device, n.port)] = (leaf, port)
            for port, learned in state.neighbor_macs.items():
                if port not in state.lldp:  # LLDP names what is there: the MAC view is for ports without it
                    for mac in learned:
                        macs.setdefault(mac, (leaf, port))
        return cls(lldp, macs)


def rail_results(node: str, host: HostIntent, samples: dict[str, Sample],
                 views: LeafViews | None = None) -> list[Result]:
    """One result per rail NIC: ok where the views agree with the plan, fail naming planned and observed ports.
    ``views``: the leaves' views of every node (built once for many nodes), else those of this node's leaves."""
    views = views or LeafViews.of(samples, {n.leaf for n in host.nics.values()})
    first = samples[node].first
    own = first.lldp if first is not None else {}
    mine = {name: p.mac for name, p in (first.ports.items() if first is not None else ())}
    out = []
    for nic in sorted(host.nics.values(), key=lambda n: n.rail):
        planned = (nic.leaf, nic.leaf_port)
        expected = f"{planned[0]}:{planned[1]}"
        item = f"{node}:{nic.netdev}"
        seen = own.get(nic.netdev)
        at = views.lldp.get((node, nic.netdev))
        mac = mine.get(nic.netdev)
        by_mac = views.macs.get(mac) if at is None and mac else None
        leaf_state = samples[nic.leaf].first
        there = leaf_state.lldp.get(nic.leaf_port) if leaf_state is not None else None
        problems = []
        if seen is not None and (seen.device, seen.port) != planned:
            problems.append(f"its LLDP hears {seen.device}:{seen.port}")
        if at is not None and at != planned:
            problems.append(f"{at[0]}:{at[1]} hears it")
        if by_mac is not None and by_mac != planned:
            problems.append(f"{by_mac[0]}:{by_mac[1]} has its MAC in the neighbour table")
        if there is not None and (there.device, there.port) != (node, nic.netdev):
            problems.append(f"{expected} hears {there.device}:{there.port}")
        at = at or by_mac
        if seen is None and at is None and there is None:
            why = samples[node].error or (f"no LLDP from {nic.netdev} on either end (lldpd not running on {node}?) and "
                                          "its MAC in no leaf's neighbour table")
            out.append(Result(device=node, check=CHECK, path=item, status="skipped", expected=expected,
                                   message=why))
            continue
        where = (f"{seen.device}:{seen.port}" if seen is not None else f"{at[0]}:{at[1]}" if at is not None
                 else f"not {expected}" if problems else expected)
        if problems:
            out.append(Result(device=node, check=CHECK, path=item, status="fail", expected=expected,
                                   observed=where, message=f"{nic.netdev} ({nic.rdma_dev}, rail {nic.rail}) is "
                                                           f"cabled to {where}, planned {expected} "
                                                           f"({'; '.join(problems)}): traffic would cross rails"))
        else:
            out.append(Result(device=node, check=CHECK, path=item, status="ok", expected=expected,
                                   observed=where))
    return out
