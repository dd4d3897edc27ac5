"""``health --traffic``: a short ``ib_write_bw`` between the job's nodes on each rail, over the SSH sessions
health already opened, inside its deadline.

Pairing is a ring over the node list as given: node i's rail-r NIC sends to node i+1's rail-r NIC (the last
node's to the first's). Same rail, because in a rail-optimised fabric the two NICs share that rail's leaf
(within a scalable unit: one leaf hop, so a slow result points at the two NICs and their leaf ports, not the
spine). A ring rather than disjoint pairs so every node sends once and receives once per rail: each
(node, rail) gets its own result, naming its peer, and an odd node count needs no special case.
All rails and all nodes run at once (a port per rail), as a training job's traffic does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roceops.device.intent import HostIntent, NicIntent
from roceops.device.observed import ObservedHost
from roceops.device.oper import RdmaBandwidth, RdmaEnd
from roceops.health.catalog import Sample
from roceops.health.model import ResultStatus, Thresholds
from roceops.platforms.base import get_platform
from roceops.platforms.driver import TrafficDriver
from roceops.redact import reason, redact
from roceops.report.result import Result
from roceops.util.rdma import ipv4_gid

CHECK = "traffic.rdma"
DURATION_S = 2  # seconds of ib_write_bw per rail (-D)
BASE_PORT = 18515  # perftest DEF_PORT (src/perftest_parameters.h @ 00b55b6); rail r uses BASE_PORT + r
TOOL = "ib_write_bw"


@dataclass(frozen=True)
class RailRun:
    """One client run: ``node``'s NIC on a rail writes to ``peer``'s NIC on the same rail."""

    node: str
    nic: NicIntent
    peer: str
    peer_nic: NicIntent

    @property
    def item(self) -> str:
        return f"{self.node}:{self.nic.rdma_dev}"

    @property
    def peer_ip(self) -> str:
        return self.peer_nic.address.split("/")[0]

    @property
    def path(self) -> str:
        return (f"{self.node} {self.nic.rdma_dev} (rail {self.nic.rail}) -> {self.peer} {self.peer_nic.rdma_dev} "
                f"({self.peer_ip})")


def _result(node: str, item: str, status: ResultStatus, observed: Any, message: str,
            expected: Any = "ib_write_bw on each rail") -> Result:
    return Result(device=node, check=CHECK, path=item, status=status, expected=expected, observed=observed,
                       message=message)


def pair_rails(names: list[str], intents: Mapping[str, HostIntent]) -> tuple[list[RailRun], list[Result]]:
    """The ring's runs, and a result for every (node, rail) that cannot have one (one node; no same-rail peer)."""
    if len(names) < 2:
        return [], [_result(n, n, "skipped", None, f"skipped: the traffic test needs at least 2 nodes "
                                                  f"(got {len(names)})") for n in names]
    runs: list[RailRun] = []
    results: list[Result] = []
    for i, node in enumerate(names):
        peer = names[(i + 1) % len(names)]
        peer_by_rail = {n.rail: n for n in intents[peer].nics.values()}
        for nic in sorted(intents[node].nics.values(), key=lambda n: n.rail):
            peer_nic = peer_by_rail.get(nic.rail)
            if peer_nic is None:
                results.append(_result(node, f"{node}:{nic.rdma_dev}", "skipped", None,
                                       f"skipped: {peer} has no NIC on rail {nic.rail} to send to"))
            else:
                runs.append(RailRun(node, nic, peer, peer_nic))
    return runs, results


def rail_end(nic: NicIntent, intent: HostIntent, sample: Sample) -> RdmaEnd | tuple[ResultStatus, str]:
    """The NIC's perftest options (GID index of its rail address's RoCEv2 GID, NCCL's ToS), or (status, why)."""
    observed = sample.observed
    if not isinstance(observed, ObservedHost):
        return "unknown", sample.error or "the host was not read"
    if not (observed.tools or {}).get(TOOL):
        return "skipped", f"{TOOL} not installed (perftest)"
    ip = nic.address.split("/")[0]
    gid = ipv4_gid(ip)
    rows = [r for r in observed.gids or [] if r.dev == nic.rdma_dev and r.gid == gid and r.version == "v2"]
    if not rows or rows[0].index is None:
        return "unknown", f"{nic.rdma_dev} has no RoCE v2 GID for {ip}"
    return RdmaEnd(nic.rdma_dev, rows[0].index, BASE_PORT + nic.rail, intent.nccl.ib_tc)


def judge(run: RailRun, report: RdmaBandwidth, thresholds: Thresholds) -> Result:
    speed_gbps = run.nic.speed / 1000  # NicIntent.speed is Mb/s
    floor = speed_gbps * thresholds.traffic_min_fraction
    ok = report.average_gbps >= floor
    message = "" if ok else (f"{run.path}: ib_write_bw {report.average_gbps:.2f} Gb/s, below {floor:g} Gb/s "
                             f"({thresholds.traffic_min_fraction:.0%} of the {speed_gbps:g} Gb/s link)")
    return _result(run.node, run.item, "ok" if ok else "fail", f"{report.average_gbps:.2f} Gb/s", message,
                   expected=f">= {floor:g} Gb/s to {run.peer}")


def _in_threads(work: Mapping[str, Any], deadline: float) -> dict[str, Any]:
    """Run each node's callable on its own thread; what has not answered by ``deadline`` is a TimeoutError."""
    out: dict[str, Any] = {}

    def call(node: str) -> None:
        try:
            out[node] = work[node]()
        except Exception as exc:
            out[node] = exc

    threads = {n: threading.Thread(target=call, args=(n,), daemon=True, name=f"traffic-{n}") for n in work}
    for t in threads.values():
        t.start()
    for t in threads.values():
        t.join(max(0.0, deadline - time.monotonic()))
    return {n: out.get(n, TimeoutError("no answer before the health deadline")) for n in work}


def _traffic_driver(intent: HostIntent) -> TrafficDriver:
    driver = get_platform(intent.platform).code.traffic
    if driver is None:
        raise RuntimeError(f"platform {intent.platform} cannot run an RDMA traffic test")
    return driver


def _bounded(conn: Any, deadline: float) -> Any:
    conn.read_timeout_override = max(0.5, deadline - time.monotonic())  # the read never outlives the deadline
    return conn


def run_traffic(runs: list[RailRun], conns: Mapping[str, Any], intents: Mapping[str, HostIntent],
                samples: Mapping[str, Sample], thresholds: Thresholds, deadline: float) -> list[Result]:
    """Start every rail's server, then every rail's client; one result per run."""
    results: list[Result] = []
    ready: list[tuple[RailRun, RdmaEnd, RdmaEnd]] = []
    for run in runs:
        client, server = (rail_end(nic, intents[n], samples[n])
                          for n, nic in ((run.node, run.nic), (run.peer, run.peer_nic)))
        missing = [n for n in (run.node, run.peer) if n not in conns]
        if isinstance(client, RdmaEnd) and isinstance(server, RdmaEnd) and not missing:
            ready.append((run, client, server))
            continue
        whys = [(n, e) for n, e in ((run.node, client), (run.peer, server)) if not isinstance(e, RdmaEnd)]
        status: ResultStatus = "skipped" if whys and all(e[0] == "skipped" for _, e in whys) else "unknown"
        why = "; ".join(f"{n}: {e[1]}" for n, e in whys) or f"no session to {', '.join(missing)}"
        results.append(_result(run.node, run.item, status, None,
                               f"{'skipped: ' if status == 'skipped' else ''}{run.path}: {why}"))
    if not ready:
        return results
    overhead = max(_traffic_driver(intents[r.node]).traffic_overhead_s for r, _, _ in ready)
    if deadline - time.monotonic() < DURATION_S + overhead:
        late = "no time left before the health deadline for the traffic test"
        return results + [_result(r.node, r.item, "unknown", None, f"{r.path}: {late}") for r, _, _ in ready]
    servers: dict[str, list[RdmaEnd]] = {}
    for run, _, server in ready:
        servers.setdefault(run.peer, []).append(server)

    def serve(node: str, ends: list[RdmaEnd]) -> Any:
        return lambda: _traffic_driver(intents[node]).traffic_serve(_bounded(conns[node], deadline), ends, DURATION_S)

    started = _in_threads({n: serve(n, e) for n, e in servers.items()}, deadline)
    live = [(r, c) for r, c, _ in ready if not isinstance(started[r.peer], Exception)]
    results += [_result(r.node, r.item, "unknown", None, f"{r.path}: the server did not start on {r.peer}: "
                                                        f"{redact(reason(exc))[:200]}")
                for r, _, _ in ready if isinstance(exc := started[r.peer], Exception)]
    by_client: dict[str, list[tuple[RdmaEnd, str]]] = {}
    for run, client in live:
        by_client.setdefault(run.node, []).append((client, run.peer_ip))

    def send(node: str, runs: list[tuple[RdmaEnd, str]]) -> Any:
        return lambda: _traffic_driver(intents[node]).traffic_send(_bounded(conns[node], deadline), runs, DURATION_S)

    answers = _in_threads({n: send(n, c) for n, c in by_client.items()}, deadline)
    for run, _ in live:
        answer = answers[run.node]
        if isinstance(answer, Exception):
            results.append(_result(run.node, run.item, "unknown", None,
                                   f"{run.path}: no result: {redact(reason(answer))[:200]}"))
            continue
        measured = answer.get(run.nic.rdma_dev, "no result for this rail")
        results.append(judge(run, measured, thresholds) if isinstance(measured, RdmaBandwidth)
                       else _result(run.node, run.item, "unknown", None, f"{run.path}: {redact(measured)[:200]}"))
    return results
