"""``cc.loop``: DCQCN's congestion loop, end to end over the health window, per rail NIC and its leaf port.

The leaf marks CE on the RoCE queue of the port toward the NIC; the NIC (notification point) counts the marked
packets (``np_ecn_marked_roce_packets``) and answers with CNPs (``np_cnp_sent``); a sending NIC (reaction point)
acts on the CNPs it receives (``rp_cnp_handled``, else ``rp_cnp_ignored``). Failures:

- marks arrive (leaf marks on the port, or the NIC counts marked packets) but the NIC sends no CNP: the NIC's
  notification point is off or broken (Meta saw firmware that broke CNP counting): the node fails;
- CNPs arrive at the NIC but none is handled (all ignored): its reaction point is off: the node fails;
- the NIC sends CNPs but the leaf port's RoCE queue marked nothing: marking sits on another queue (or another
  hop): the leaf port fails (the node's verdict carries it).

A side below ``health.cc_loop.min_events`` is idle and not judged. Counters missing from a sample: unknown. The
RoCE-queue marks need per-queue counters (``ecn_marked_q<n>``: SONiC, EOS); a leaf with a port total only
(Cumulus) is judged on the total.
"""

from __future__ import annotations

from roceops.device.intent import NicIntent, SwitchIntent
from roceops.health.catalog import Sample
from roceops.model.health import CcLoopBounds
from roceops.report.result import Result

CHECK = "cc.loop"


def _delta(sample: Sample, port: str, counter: str) -> int | None:
    a = sample.first.ports.get(port) if sample.first else None
    b = sample.second.ports.get(port) if sample.second else None
    if a is None or b is None or counter not in a.counters or counter not in b.counters or sample.window_s <= 0:
        return None
    return max(0, b.counters[counter] - a.counters[counter])


def roce_queue(nic: NicIntent, leaf: SwitchIntent) -> int:
    """The leaf queue the NIC's RoCE traffic (its RDMA-CM ToS) is sent on."""
    tc = leaf.qos.dscp_to_tc.get(nic.roce_tos >> 2, 0)
    return leaf.qos.tc_to_queue.get(tc, tc)


def loop_results(node: str, nic: NicIntent, host: Sample, leaf: SwitchIntent, switch: Sample,
                 bounds: CcLoopBounds) -> list[Result]:
    """The NIC's result (notification and reaction point) and, when marking is misplaced, its leaf port's."""
    item, port_item = f"{node}:{nic.netdev}", f"{leaf.name}:{nic.leaf_port}"
    d = {c: _delta(host, nic.netdev, c) for c in ("ecn_marked", "cnp_sent", "cnp_handled", "cnp_ignored")}
    queue = roce_queue(nic, leaf)
    leaf_marks = _delta(switch, nic.leaf_port, f"ecn_marked_q{queue}")
    where = f"queue {queue}"
    if leaf_marks is None:
        leaf_marks, where = _delta(switch, nic.leaf_port, "ecn_marked"), "all queues"
    floor = bounds.min_events
    missing = sorted(c for c, v in d.items() if v is None)
    if missing:
        ports = [host.second.ports.get(nic.netdev) if host.second else None]
        why = "; ".join(sorted({p.unread[c] for p in ports if p is not None for c in missing if c in p.unread}))
        return [Result(device=node, check=CHECK, path=item, status="unknown",
                            message=host.error or why or f"{', '.join(missing)} not sampled")]
    marks, sent, handled, ignored = (d["ecn_marked"] or 0, d["cnp_sent"] or 0, d["cnp_handled"] or 0,
                                     d["cnp_ignored"] or 0)
    observed = {"leaf_marks": leaf_marks, "np_ecn_marked": marks, "np_cnp_sent": sent, "rp_cnp_handled": handled,
                "rp_cnp_ignored": ignored}
    out = []
    problems = []
    seen_marks = max(marks, leaf_marks or 0)
    if seen_marks >= floor and sent == 0:
        problems.append(f"{seen_marks} ECN-marked packets reached {nic.rdma_dev} in {host.window_s:.3g}s "
                        f"({port_item} {where} marked {leaf_marks if leaf_marks is not None else '?'}, the NIC counted "
                        f"{marks}) but it sent no CNP: its notification point is off")
    if ignored >= floor and handled == 0:
        problems.append(f"{ignored} CNPs reached {nic.rdma_dev} and none was handled: its reaction point is off")
    out.append(Result(device=node, check=CHECK, path=item, status="fail" if problems else "ok",
                           expected="marks -> CNPs -> handled", observed=observed, message="; ".join(problems)))
    if sent >= floor and leaf_marks == 0:
        out.append(Result(
            device=node, check=CHECK, path=port_item, status="fail", expected=f"ECN marks on {where}",
            observed=observed, message=f"{nic.rdma_dev} sent {sent} CNPs but {port_item} marked nothing on "
                                       f"{where}: ECN marking sits on another queue (or another hop)"))
    return out
