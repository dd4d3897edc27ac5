"""The metric names and labels ``roceops telemetry`` exports; the rules and the dashboard are written against them.

Every series carries ``device`` and the device's place in the fabric: ``tier`` (leaf, spine, core, host), ``su``
and ``rail`` (empty where the device has none, e.g. a spine's rail), so an alert names SU, rail and tier.
"""

from __future__ import annotations

PREFIX = "roceops_"
PLACE_LABELS = ("device", "tier", "su", "rail")

# name (without PREFIX) -> (help text, labels beside PLACE_LABELS)
COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pfc_pause_frames_total": ("PFC pause frames per priority and direction", ("port", "priority", "direction")),
    "ecn_marked_packets_total": ("packets ECN-marked (CE) on an egress queue", ("port", "queue")),
    "pfcwd_storms_total": ("PFC watchdog storm detections on a queue", ("port", "queue")),
    "queue_drops_total": ("packets dropped on an egress queue", ("port", "queue", "lossless")),
    "link_flaps_total": ("carrier changes of a port (link up/down transitions)", ("port",)),
    "port_rx_errors_total": ("frames a switch port received with errors (CRC/FCS; the RX_ERR of show commands)",
                             ("port",)),
    "nic_ecn_marked_packets_total": ("ECN-marked RoCE packets a NIC received (notification point)", ("port",)),
    "nic_cnp_sent_total": ("CNPs a NIC sent for ECN-marked packets it received", ("port",)),
    "nic_cnp_handled_total": ("CNPs a NIC handled as a sender (reaction point)", ("port",)),
    "nic_transport_errors_total": ("RoCE transport errors of a NIC by hw counter", ("port", "counter")),
}
GAUGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "target_up": ("1 when the collector's last sample of the device arrived in time, else 0", ("platform",)),
}


def name(metric: str) -> str:
    """``pfc_pause_frames_total`` -> ``roceops_pfc_pause_frames_total``.

    >>> name("target_up")
    'roceops_target_up'
    """
    return PREFIX + metric
