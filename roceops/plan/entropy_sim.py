"""A seeded simulation of the worst leaf's uplink hash, to cross-check the ideal-hash model of
:mod:`roceops.plan.entropy` with real-looking headers.

Each QP of a connection gets random 24-bit local and remote QP numbers; its RoCEv2 UDP source port is
the Linux kernel's rule (include/rdma/ib_verbs.h ``rdma_get_udp_sport``: a flow label from the two QPNs,
folded into 0xC000-0xFFFF). The switch hash is a stand-in (CRC32 of seed, addresses, protocol, ports and,
when hashed, the destination QP): the real ASIC functions are not public. Pure, no I/O.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections import Counter
from dataclasses import dataclass

from roceops.model.load_balancing import HashField
from roceops.plan.entropy import LeafTraffic

ROCE_PORT = 4791  # RoCEv2 UDP destination port (IANA)
UDP = 17
_SPORT_MIN = 0xC000  # IB_ROCE_UDP_ENCAP_VALID_PORT_MIN
_FLOWLABEL_MASK = 0xFFFFF


def flow_label(lqpn: int, rqpn: int) -> int:
    """``rdma_calc_flow_label``: a 20-bit flow label from the local and remote QP numbers.

    >>> flow_label(0x1234, 0x5678)
    393218
    """
    v = lqpn * rqpn
    v ^= v >> 20
    v ^= v >> 40
    return v & _FLOWLABEL_MASK


def udp_sport(label: int) -> int:
    """``rdma_flow_label_to_udp_sport``: fold 20 bits into 14 and set the top two.

    >>> hex(udp_sport(flow_label(0x1234, 0x5678)))
    '0xc01a'
    """
    low, high = label & 0x03FFF, label & 0xFC000
    return (low ^ (high >> 14)) | _SPORT_MIN


def _uplink(seed: int, src: int, dst: int, sport: int, dqpn: int, fields: tuple[HashField, ...], n: int) -> int:
    parts = {"src_ip": src, "dst_ip": dst, "ip_protocol": UDP, "l4_src_port": sport, "l4_dst_port": ROCE_PORT,
             "roce_dest_qp": dqpn}
    key = struct.pack(">I", seed) + b"".join(struct.pack(">I", parts[f]) for f in fields)
    return zlib.crc32(key) % n


@dataclass(frozen=True)
class SimResult:
    trials: int
    p_collision: float  # share of trials where some uplink carried >= 2 connections' worth
    mean_worst: float  # mean fullest uplink, in connections' worth


def simulate(worst: LeafTraffic, qps: int, fields: tuple[HashField, ...], *, trials: int = 1000,
             seed: int = 1) -> SimResult:
    """``trials`` independent draws of QP numbers (and hence UDP source ports) for the leaf's connections."""
    rng = random.Random(seed)
    hits, worst_sum = 0, 0.0
    for _ in range(trials):
        counts: Counter[int] = Counter()
        for conn in range(worst.connections):
            src, dst = 0x0A800000 + 2 * conn, 0x0A810000 + 2 * conn  # distinct NIC addresses per connection
            for _q in range(qps):
                lqpn, rqpn = rng.getrandbits(24), rng.getrandbits(24)
                sport = udp_sport(flow_label(lqpn, rqpn))
                counts[_uplink(seed, src, dst, sport, rqpn, fields, worst.uplinks)] += 1
        fullest = max(counts.values(), default=0)
        hits += fullest >= 2 * qps
        worst_sum += fullest / qps
    return SimResult(trials=trials, p_collision=hits / trials, mean_worst=worst_sum / trials)
