"""``cabling.host``: each host NIC against the leaf port the cabling plan gives it, from both ends' LLDP (the
host's ``lldpcli`` and the leaves' LLDP tables, carried in :class:`EndFacts.neighbor`) and, on leaf ports that hear
no LLDP (hosts without lldpd), the NIC MACs in the leaf port's IPv6 neighbour table against each NIC's own MAC
(:class:`EndFacts.macs`). One finding per NIC that sits elsewhere, on the node, naming the NIC, its planned and
its observed leaf:port. A NIC no view places is not judged.
"""

from __future__ import annotations

from roceops.audit.checks import EndFacts
from roceops.report.result import Result
from roceops.topology.fabric import Fabric


def cabling_findings(fabric: Fabric, facts: dict[str, dict[str, EndFacts]]) -> list[Result]:
    out: list[Result] = []
    for host in fabric.hosts:
        heard: dict[str, tuple[str, str]] = {}  # netdev -> the leaf port whose LLDP hears it
        own = facts.get(host.name) or {}
        mac_of = {mac: netdev for netdev, end in own.items() for mac in end.macs}
        for leaf in sorted({n.leaf for n in host.nics}):
            for port, end in (facts.get(leaf) or {}).items():
                if end.neighbor is not None and end.neighbor[0] == host.name:
                    heard[end.neighbor[1]] = (leaf, port)
                elif end.neighbor is None:  # no LLDP on the port: the NIC whose MAC it learned
                    for mac in end.macs:
                        if mac in mac_of:
                            heard.setdefault(mac_of[mac], (leaf, port))
        for nic in host.nics:
            planned = (nic.leaf, nic.leaf_port)
            host_end = own.get(nic.netdev)
            seen = host_end.neighbor if host_end is not None else None
            observed = seen if seen is not None and seen != planned else heard.get(nic.netdev)
            if observed is None or observed == planned:
                continue
            out.append(Result(
                check="cabling.host", device=host.name, path=f"nics[{nic.netdev}].leaf_port",
                expected=f"{planned[0]}:{planned[1]}", observed=f"{observed[0]}:{observed[1]}",
                message=f"{host.name} {nic.netdev} ({nic.rdma_dev}, rail {nic.rail}) is cabled to "
                        f"{observed[0]}:{observed[1]}, planned {planned[0]}:{planned[1]}",
                hint="swap the NIC cables back to the plan (roceops cabling lists every cable); NCCL assumes NIC i "
                     "on rail i"))
    return out
