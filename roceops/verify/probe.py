"""ICMP echo probes from inside a namespace: raw sockets bound to a source address, DF set on request.

A socket is created in its namespace by :func:`run_in_netns` and keeps it, so one thread per source
namespace sends all its probes and collects the replies (no ``ping`` process per pair). Sizes are IP
total lengths: a probe of ``size`` with DF either arrives whole or not at all.
"""

from __future__ import annotations

import os
import selectors
import socket
import struct
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from roceops.verify.netns import ip_json_lines, run_in_netns

IP_MTU_DISCOVER = 10
IP_PMTUDISC_DO = 2  # set DF, never fragment locally
IP_HEADER = 20
ICMP_HEADER = 8
SMALL = 84  # IP total length of a default ping (56 data bytes)
SO_RCVBUFFORCE = 33
RCVBUF = 8 << 20


@dataclass(frozen=True)
class Probe:
    netns: str
    source: str  # address to bind
    target: str
    size: int  # IP total length
    df: bool = True


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


def _echo(ident: int, seq: int, size: int) -> bytes:
    payload = bytes((seq + i) & 0xFF for i in range(max(0, size - IP_HEADER - ICMP_HEADER)))
    header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    return struct.pack("!BBHHH", 8, 0, _checksum(header + payload), ident, seq) + payload


def _open(source: str, df: bool) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.bind((source, 0))
    if df:
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
    # replies of every probe from this address queue here while the rest are sent (root may exceed rmem_max)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    return s  # blocking sends; receives use MSG_DONTWAIT


def _drain(s: socket.socket, ident: int, waiting: dict[tuple[str, int], Probe],
           result: dict[Probe, str | None]) -> None:
    """Read every queued echo reply of ours off ``s`` (never blocks)."""
    while True:
        try:
            packet, (addr, _) = s.recvfrom(65535, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        ihl = (packet[0] & 0x0F) * 4
        icmp_type, _, _, rid, rseq = struct.unpack("!BBHHH", packet[ihl:ihl + 8])
        if icmp_type == 0 and rid == ident:
            found = waiting.pop((addr, rseq), None)
            if found is not None:
                result[found] = None


def _run_namespace(netns: str, probes: list[Probe], timeout_s: float) -> dict[Probe, str | None]:
    """Send every probe of one namespace; None = answered, else the reason it failed."""
    by_source: dict[tuple[str, bool], list[tuple[int, Probe]]] = {}
    for seq, p in enumerate(probes, start=1):
        by_source.setdefault((p.source, p.df), []).append((seq, p))
    sockets = run_in_netns(netns, lambda: {k: _open(k[0], k[1]) for k in by_source})
    ident = os.getpid() & 0xFFFF
    result: dict[Probe, str | None] = {}
    waiting: dict[tuple[str, int], Probe] = {}
    selector = selectors.DefaultSelector()  # epoll: no FD_SETSIZE limit with many namespaces at once
    try:
        for source_key, items in by_source.items():
            s = sockets[source_key]
            selector.register(s, selectors.EVENT_READ)
            for seq, p in items:
                try:
                    s.sendto(_echo(ident, seq & 0xFFFF, p.size), (p.target, 0))
                    waiting[(p.target, seq & 0xFFFF)] = p
                except OSError as exc:
                    result[p] = f"not sent: {exc.strerror or exc}"
                _drain(s, ident, waiting, result)
        deadline = time.monotonic() + timeout_s
        while waiting and time.monotonic() < deadline:
            for ready, _ in selector.select(max(0.0, deadline - time.monotonic())):
                _drain(ready.fileobj, ident, waiting, result)  # type: ignore[arg-type]
    finally:
        selector.close()
        for s in sockets.values():
            s.close()
    for p in waiting.values():
        result[p] = f"no reply within {timeout_s:.0f}s"
    return result


def run_probes(probes: Iterable[Probe], timeout_s: float = 2.0, workers: int = 32) -> dict[Probe, str | None]:
    """All probes, one thread per source namespace (bounded by ``workers``)."""
    by_ns: dict[str, list[Probe]] = {}
    for p in probes:
        by_ns.setdefault(p.netns, []).append(p)
    out: dict[Probe, str | None] = {}
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(by_ns)))) as pool:
        for part in pool.map(lambda item: _run_namespace(item[0], item[1], timeout_s), by_ns.items()):
            out.update(part)
    return out


def route_lookups(netns: str, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    """``ip route get DST from SRC`` for each (src, dst) in one ``ip -batch``: {(src, dst): {dev, gateway,
    table}}; pairs the kernel cannot route are absent."""
    pairs = list(pairs)
    out: dict[tuple[str, str], dict[str, str]] = {}
    for doc in ip_json_lines([f"route get {dst} from {src}" for src, dst in pairs], netns):
        for r in doc if isinstance(doc, list) else []:
            if isinstance(r, dict) and "dst" in r:
                out[(str(r.get("from", r.get("prefsrc", ""))), str(r["dst"]))] = {
                    "dev": str(r.get("dev", "")), "gateway": str(r.get("gateway", "")),
                    "table": str(r.get("table", "main"))}
    return out


def fib_next_hops(netns: str) -> dict[str, int]:
    """Kernel FIB of the main table: prefix -> number of next hops (multipath counted per hop)."""
    out: dict[str, int] = {}
    for doc in ip_json_lines(["route show table main"], netns):
        for r in doc if isinstance(doc, list) else []:
            if not isinstance(r, dict):
                continue
            dst = str(r.get("dst", ""))
            if dst == "default":
                dst = "0.0.0.0/0"
            elif "/" not in dst:
                dst += "/32"
            hops = r.get("nexthops")
            out[dst] = len(hops) if isinstance(hops, list) else 1
    return out
