"""Health-check bounds a fabric sets for itself (``health:`` in fabric.yaml).

The RDMA transport bounds judge the ConnectX ``hw_counters`` (``/sys/class/infiniband/<dev>/ports/<p>/
hw_counters/<name>``) over health's sampling window. Sources: NVIDIA NVSentinel's NIC health monitor defaults
(NVIDIA/NVSentinel ``docs/configuration/nic-health-monitor.md`` @ 07b82dc2: ``rnr_nak_retry_err`` delta 0 =
fatal, ``local_ack_timeout_err`` velocity 1/s). NVSentinel allows ``out_of_sequence`` and ``packet_seq_err`` but
enables no default for them, and does not list ``out_of_buffer``: no published bound exists for those three, so
roceops uses the same 1/s as for ACK timeouts (on a lossless fabric each one means a dropped or reordered
packet and a go-back-N retransmission; a steady trickle is already a fault).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from roceops.model.types import StrictModel

Rate = Annotated[float, Field(ge=0)]


class TransportBounds(StrictModel):
    """Per NIC, over the health window: a rate (per second) above its bound fails ``nic.transport``."""

    out_of_sequence_per_s: Rate = Field(
        default=1.0, description="out-of-sequence packets received/s (no published bound: roceops choice)")
    packet_seq_err_per_s: Rate = Field(
        default=1.0, description="PSN sequence-error NAKs received/s (no published bound: roceops choice)")
    local_ack_timeout_err_per_s: Rate = Field(
        default=1.0, description="local ACK timeouts/s (NVSentinel default velocity 1/s)")
    rnr_nak_retry_err_per_s: Rate = Field(
        default=0.0, description="RNR NAK retries exhausted/s: any is fatal to its QP (NVSentinel delta 0)")
    out_of_buffer_per_s: Rate = Field(
        default=1.0, description="packets dropped for want of receive WQEs/s (no published bound: roceops choice)")


class CcLoopBounds(StrictModel):
    """DCQCN's loop over the window (health ``cc.loop``): below ``min_events`` marks or CNPs a side is idle and
    not judged (roceops choice; no published bound: it keeps a mark that lands at the window's edge, before its
    CNP is counted, from failing a healthy NIC)."""

    min_events: Annotated[int, Field(ge=1)] = Field(
        default=10, description="ECN marks / CNPs in the window below which the loop is not judged")


class HealthPolicy(StrictModel):
    transport: TransportBounds = Field(default_factory=TransportBounds)
    cc_loop: CcLoopBounds = Field(default_factory=CcLoopBounds)
