"""``nic.transport``: the RDMA transport errors a job only feels, from each rail NIC's ``hw_counters`` over the
health window (out-of-sequence packets, PSN errors, local ACK timeouts, exhausted RNR retries, receive drops for
want of WQEs; NVIDIA/nccl#394). Bounds: the fabric's ``health.transport`` (:mod:`roceops.model.health`).

A counter missing from either sample is unknown, naming why (the driver's ``unread``), never taken as 0.
"""

from __future__ import annotations

from roceops.device.intent import HostIntent
from roceops.health.catalog import Sample
from roceops.model.health import TransportBounds
from roceops.report.result import Result

CHECK = "nic.transport"
# counter -> TransportBounds field
BOUNDS = {"out_of_sequence": "out_of_sequence_per_s", "packet_seq_err": "packet_seq_err_per_s",
          "local_ack_timeout_err": "local_ack_timeout_err_per_s", "rnr_nak_retry_err": "rnr_nak_retry_err_per_s",
          "out_of_buffer": "out_of_buffer_per_s"}


def transport_results(node: str, host: HostIntent, sample: Sample, bounds: TransportBounds) -> list[Result]:
    """One result per rail NIC: fail when a counter's rate passes its bound, unknown when one could not be read."""
    out = []
    for nic in sorted(host.nics.values(), key=lambda n: n.rail):
        item = f"{node}:{nic.netdev}"
        expected = {c: f"<= {getattr(bounds, f):g}/s" for c, f in BOUNDS.items()}
        a = sample.first.ports.get(nic.netdev) if sample.first else None
        b = sample.second.ports.get(nic.netdev) if sample.second else None
        if a is None or b is None or sample.window_s <= 0:
            out.append(Result(device=node, check=CHECK, path=item, status="unknown", expected=expected,
                                   message=sample.error or "hw_counters not sampled twice"))
            continue
        rates: dict[str, float] = {}
        unread: list[str] = []
        for counter in BOUNDS:
            if counter in a.counters and counter in b.counters:
                rates[counter] = max(0, b.counters[counter] - a.counters[counter]) / sample.window_s
            else:
                unread.append(b.unread.get(counter) or a.unread.get(counter) or f"{counter} not read")
        over = {c: r for c, r in rates.items() if r > getattr(bounds, BOUNDS[c])}
        observed = {c: f"{r:.3g}/s" for c, r in rates.items()}
        if over:
            what = ", ".join(f"{c} {r:.3g}/s (limit {getattr(bounds, BOUNDS[c]):g})" for c, r in over.items())
            out.append(Result(device=node, check=CHECK, path=item, status="fail", expected=expected,
                                   observed=observed, message=f"{nic.rdma_dev} RDMA transport errors: {what}"))
        elif unread:
            out.append(Result(device=node, check=CHECK, path=item, status="unknown", expected=expected,
                                   observed=observed, message="; ".join(unread)[:300]))
        else:
            out.append(Result(device=node, check=CHECK, path=item, status="ok", expected=expected,
                                   observed=observed))
    return out
