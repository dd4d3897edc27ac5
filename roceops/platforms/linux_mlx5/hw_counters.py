"""The RDMA transport counters of a ConnectX port, from the ``grep -r -H -s .`` read of its ``hw_counters``
directory (``/sys/class/infiniband/<rdma_dev>/ports/<port>/hw_counters/<name>``, one integer per file).

Names are mlx5's own (Linux ``drivers/infiniband/hw/mlx5/counters.c``: ``out_of_buffer``, ``out_of_sequence``,
``packet_seq_err``, ``local_ack_timeout_err``, ``rnr_nak_retry_err``; the same names in a real ConnectX listing,
oracle-japan/ocitutorials ``tutorials/_hpc/tech-knowhow/howto-get-cnrelated-statistics.md`` @ e59f02cb, copy in
tests/platforms/linux_mlx5/captures/). A counter the read did not give is reported as unread with the file it
should have come from: health calls that unknown, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping

# DCQCN's loop (health's cc.loop): neutral name -> hw_counters file. np_*: the notification point (receiver),
# rp_*: the reaction point (sender); upstream "IB/mlx5: Support congestion related counters"
CC_COUNTERS = (("cnp_sent", "np_cnp_sent"), ("ecn_marked", "np_ecn_marked_roce_packets"),
               ("cnp_handled", "rp_cnp_handled"), ("cnp_ignored", "rp_cnp_ignored"))
# the counters health's nic.transport check judges (roceops.model.health.TransportBounds)
TRANSPORT_COUNTERS = ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
                      "out_of_buffer")


def transport_counters(sysfs: Mapping[str, str], hw_dir: str) -> tuple[dict[str, int], dict[str, str]]:
    """(counter -> value, counter -> why it is unread) of :data:`TRANSPORT_COUNTERS` under ``hw_dir``.

    >>> transport_counters({"/d/out_of_sequence": "7", "/d/packet_seq_err": "x"}, "/d")[0]
    {'out_of_sequence': 7}
    >>> sorted(transport_counters({"/d/out_of_sequence": "7", "/d/packet_seq_err": "x"}, "/d")[1])
    ['local_ack_timeout_err', 'out_of_buffer', 'packet_seq_err', 'rnr_nak_retry_err']
    """
    counts: dict[str, int] = {}
    unread: dict[str, str] = {}
    for name in TRANSPORT_COUNTERS:
        text = sysfs.get(f"{hw_dir}/{name}")
        if text is not None and text.strip().isdigit():
            counts[name] = int(text)
        else:
            unread[name] = f"{hw_dir}/{name} {'not readable' if text is None else f'reads {text[:20]!r}'}"
    return counts, unread
