"""``roceops verify routing``: build the fabric's routing plane in namespaces, run FRR, check it, remove it.

Order: plan + render + translate (no I/O) -> state file -> namespaces -> veths -> addresses/routes/sysctls
-> zebra, bgpd -> convergence -> probes -> checks. Whatever happens (failure, Ctrl-C, SIGTERM), the
``finally`` stops our daemons and deletes our namespaces and run directory; a SIGKILLed run leaves its
state file for ``--cleanup``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceops.device.change import RenderedDevice
from roceops.report.result import Result
from roceops.topology.fabric import Fabric
from roceops.verify import checks, classes, frr
from roceops.verify.checks import LinkProbe, PingPair
from roceops.verify.inputs import class_inputs, planned
from roceops.verify.netns import (
    OWNER_FILE,
    RunState,
    ip_batch,
    new_run_id,
    owner_line,
    run_in_netns,
    start_time,
    sysctl_path,
    teardown,
)
from roceops.verify.plane import Intent, Plane, Session, build_plane
from roceops.verify.probe import SMALL, Probe, fib_next_hops, route_lookups, run_probes

STATE_DIR = Path(".roceops") / "verify"
POLL_S = 0.3
Progress = Callable[[str, int, int], None]


class VerifyUnavailable(RuntimeError):
    """This machine cannot build namespaces or run FRR (exit 3 with the reason)."""


@dataclass
class VerifyOptions:
    sample: int = 4  # NICs pinged per source NIC
    all_pairs: bool = False
    deadline_s: float = 60.0  # convergence deadline
    settle_s: float = 2.0  # BGP state unchanged this long with every session up = converged
    settle_down_s: float = 8.0  # ... or this long while some session is still down
    limit: set[str] | None = None  # devices whose checks are reported (the whole plane is always built)
    state_dir: Path = STATE_DIR
    progress: Progress | None = None
    workers: int = 8
    by_class: bool = False  # build a representative sub-plane and prove every other device by class


@dataclass
class VerifyResult:
    fabric: str
    run_id: str
    devices: list[str]
    findings: list[Result]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    coverage: classes.Coverage | None = None  # --by-class: what was built and what was proven by class

    def verified(self, device: str) -> str:
        """``direct`` (built and checked) or ``class`` (proven an instance of a built device)."""
        return "direct" if self.coverage is None else self.coverage.mode(device)

    @property
    def exit_code(self) -> int:
        if any(f.not_checked for f in self.findings):  # device.failed: the device could not be built
            return 2
        return 1 if self.findings else 0


def preflight() -> None:
    """VerifyUnavailable unless we are root with ``ip netns`` and FRR's daemons."""
    if os.geteuid() != 0:
        raise VerifyUnavailable("verify routing creates network namespaces: run it as root")
    if shutil.which("ip") is None:
        raise VerifyUnavailable("no 'ip' command (iproute2): apt-get install iproute2")
    # a real namespace, not just `ip netns list` (which works without CAP_SYS_ADMIN); its name does not
    # match the run pattern, so --cleanup never mistakes it for a run's
    name = f"rvcheck{os.getpid()}"
    probe = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        raise VerifyUnavailable(f"cannot create network namespaces ('ip netns add'): {probe.stderr.strip()[:200]}")
    subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
    missing = frr.frr_missing()
    if missing:
        raise VerifyUnavailable(missing)


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """SIGTERM/SIGHUP raise KeyboardInterrupt like Ctrl-C, so the ``finally`` cleanup runs."""
    def handler(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {}
    with contextlib.suppress(ValueError):  # not the main thread: leave handlers alone
        for sig in (signal.SIGTERM, signal.SIGHUP):
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class _Clock:
    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._t = time.monotonic()

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = round(now - self._t, 3)
        self._t = now


@dataclass
class RunningPlane:
    """A built, converged routing plane (alive inside :func:`running_plane`)."""

    plane: Plane
    instances: list[frr.Instance]
    states: dict[str, dict[str, str]]
    findings: list[Result]
    clock: _Clock
    counts: dict[str, int]
    coverage: classes.Coverage | None = None

    def bgpd_vty(self) -> dict[str, str]:
        """device -> its bgpd's vty socket (for readers such as ``lab up --routing``)."""
        return {i.device: str(i.vty("bgpd")) for i in self.instances}


@contextlib.contextmanager
def running_plane(fabric: Fabric, options: VerifyOptions, *, intents: Mapping[str, Intent] | None = None,
                  rendered: Mapping[str, RenderedDevice] | None = None) -> Iterator[RunningPlane]:
    """Plan, build, start FRR and converge; on exit (normal, error, Ctrl-C, SIGTERM) stop the daemons and
    remove the namespaces. ``intents``/``rendered`` replace the planned/rendered ones per device."""
    clock = _Clock()
    run_id = new_run_id()
    coverage = None
    built = fabric
    if options.by_class:  # every device planned, rendered and translated once, in forked workers
        nodes, mtus, forms = class_inputs(fabric, intents or {}, rendered or {})
        coverage = classes.cover(fabric, nodes, mtus, forms=forms)
        built = classes.sub_fabric(fabric, coverage.built)
        del nodes, mtus, forms
    # the built devices planned and their routing files rendered (the plane reads no other file)
    all_intents, all_rendered = planned(fabric, [d.name for d in built.devices()], intents or {}, rendered or {})
    plane = build_plane(run_id, built, all_intents, all_rendered)
    if coverage is not None:
        plane.absent_peers = classes.absent_peers(fabric, set(coverage.built))
    del all_intents, all_rendered  # the plane holds what it runs: free the rest before FRR starts
    gc.collect()
    clock.lap("plan")
    findings = [Result(check="device.failed", device=s.name, path="bgp", status="error", message=s.error or "")
                for s in plane.switches.values() if s.error]
    run_dir = frr.make_run_dir(run_id)
    (run_dir / OWNER_FILE).write_text(owner_line(os.getpid()))
    state = RunState(run_id=run_id, pid=os.getpid(), run_dir=str(run_dir), namespaces=plane.namespaces,
                     pid_start=start_time(os.getpid()))
    state.save(options.state_dir)
    instances: list[frr.Instance] = []
    counts: dict[str, int] = {}
    try:
        with _interruptible():
            counts["static_arp"] = int(_build(plane, options, clock) == "static")
            instances, failed = _start_frr(plane, run_dir, options, clock)
            states = _converge(plane, instances, options)
            clock.lap("convergence")
            yield RunningPlane(plane, instances, states, findings + failed, clock, counts, coverage)
    finally:
        frr.stop(instances)
        teardown(state, options.state_dir)
        clock.lap("cleanup")


def verify_routing(fabric: Fabric, options: VerifyOptions, *, intents: Mapping[str, Intent] | None = None,
                   rendered: Mapping[str, RenderedDevice] | None = None) -> VerifyResult:
    """Build, converge, check, remove."""
    start = time.monotonic()
    names = [d.name for d in fabric.devices()]
    only = set(options.limit) if options.limit is not None else set(names)
    with running_plane(fabric, options, intents=intents, rendered=rendered) as run:
        findings = run.findings + _check_all(run.plane, run.states, options, only, run.counts)
        run.clock.lap("pings")
    counts = run.counts
    if run.coverage is not None:
        counts.update(verified_direct=len(run.coverage.built), verified_by_class=len(run.coverage.representative))
    return VerifyResult(fabric=fabric.intent.name, run_id=run.plane.run_id, devices=names, findings=findings,
                        seconds=time.monotonic() - start, phases=run.clock.phases, counts=counts,
                        coverage=run.coverage)


# --------------------------------------------------------------------------- build


def _sysctl_writer(values: dict[str, str]) -> Callable[[], None]:
    def write() -> None:
        for key, value in values.items():
            sysctl_path(key).write_text(value + "\n")
    return write


def _configure(netns: str, commands: list[str], sysctls: dict[str, str]) -> Callable[[], None]:
    def job() -> None:
        ip_batch(commands, netns)
        run_in_netns(netns, _sysctl_writer(sysctls))
    return job


def _tick(options: VerifyOptions, phase: str, done: int, total: int) -> None:
    if options.progress is not None:
        options.progress(phase, done, total)


def _parallel(options: VerifyOptions, phase: str, jobs: list[Callable[[], None]]) -> None:
    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        futures = [pool.submit(job) for job in jobs]
        for i, fut in enumerate(futures, start=1):
            fut.result()
            _tick(options, phase, i, len(jobs))


def arp_mode(plane: Plane) -> str:
    """``dynamic``: hosts resolve their gateways by ARP, with the rendered ARP sysctls; ``static`` when that
    many entries would overflow the kernel's neighbour table. Linux has one ARP table for all namespaces
    and its garbage collector starts at ``gc_thresh2`` (512 by default, settable only in the initial
    namespace); permanent entries are exempt, so switch ends always get static neighbours."""
    try:
        limit = int(Path("/proc/sys/net/ipv4/neigh/default/gc_thresh2").read_text())
    except (OSError, ValueError):
        limit = 512
    needed = sum(len(h.nics) for h in plane.hosts.values())
    return "dynamic" if needed + ARP_HEADROOM <= limit else "static"


ARP_HEADROOM = 64  # neighbour entries left for everything else on the machine
NO_IPV6 = {"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"}


def _build(plane: Plane, options: VerifyOptions, clock: _Clock) -> str:
    ns = plane.namespaces
    _tick(options, "namespaces", 0, len(ns))
    ip_batch(f"netns add {n}" for n in ns)
    for n in ns:  # IPv4 underlay only: no IPv6 link-locals, RS, MLD, ND entries
        run_in_netns(n, _sysctl_writer(NO_IPV6))
    _tick(options, "namespaces", len(ns), len(ns))
    ip_batch(f"link add {c.a.ifname} netns {c.a.netns} address {c.a.mac} mtu {c.a.mtu} type veth peer name "
             f"{c.b.ifname} netns {c.b.netns} address {c.b.mac} mtu {c.b.mtu}" for c in plane.cables)
    mode = arp_mode(plane)
    per_ns: dict[str, list[str]] = {n: ["link set lo up"] for n in ns}
    for c in plane.cables:
        for end, peer in ((c.a, c.b), (c.b, c.a)):
            if end.device in plane.switches and end.address:
                per_ns[end.netns].append(f"addr add {end.address} dev {end.ifname}")
            per_ns[end.netns].append(f"link set {end.ifname} up")
            if peer.address and (end.device in plane.switches or mode == "static"):
                per_ns[end.netns].append(f"neigh replace {peer.address.split('/')[0]} lladdr {peer.mac} "
                                         f"dev {end.ifname} nud permanent")
    for sw in plane.switches.values():
        per_ns[sw.netns].append(f"addr add {sw.loopback} dev lo")
    forwarding = {"net.ipv4.ip_forward": "1", "net.ipv4.conf.all.forwarding": "1"}
    # switches first: a host's routes need its gateway's end of the cable up
    _parallel(options, "switch links", [_configure(sw.netns, per_ns[sw.netns], forwarding)
                                        for sw in plane.switches.values()])
    _parallel(options, "hosts", [_configure(h.netns, per_ns[h.netns] + h.ip_commands, h.sysctls)
                                 for h in plane.hosts.values()])
    clock.lap("namespaces")
    return mode


def _start_frr(plane: Plane, run_dir: Path, options: VerifyOptions,
               clock: _Clock) -> tuple[list[frr.Instance], list[Result]]:
    instances = [frr.prepare(run_dir, i, s.name, s.netns, s.bgpd_conf, plane.absent_peers.get(s.name, set()))
                 for i, s in enumerate(plane.switches.values()) if s.bgpd_conf is not None]
    findings: list[Result] = []
    total = 2 * len(instances)
    done = 0
    alive = list(instances)
    for daemon in frr.DAEMONS:
        for inst in alive:
            frr.start(inst, daemon)
        failed = frr.wait_ready(alive, daemon, timeout_s=30.0 + 0.1 * len(alive))  # 400 daemons on 2 busy cores
        for inst in alive:
            if inst.device in failed:
                findings.append(Result(check="device.failed", device=inst.device, path=daemon, status="error",
                                        message=f"{daemon} did not start: {frr.log_tail(inst, daemon)}"))
        alive = [i for i in alive if i.device not in failed]
        done += len(instances)
        _tick(options, "FRR start", done, total)
    clock.lap("frr_start")
    return instances, findings


# --------------------------------------------------------------------------- convergence


def _summary(inst: frr.Instance) -> dict[str, tuple[str, int]]:
    """peer ip -> (state, prefixes received) from bgpd; {} if bgpd does not answer."""
    try:
        doc = json.loads(frr.vty_command(inst.vty("bgpd"), "show bgp ipv4 unicast summary json") or "{}")
    except (OSError, frr.FrrError, ValueError):
        return {}
    peers = doc.get("peers", {}) if isinstance(doc, dict) else {}
    return {ip: (str(p.get("state", "?")), int(p.get("pfxRcd", 0) or 0)) for ip, p in peers.items()}


def _converge(plane: Plane, instances: list[frr.Instance], options: VerifyOptions) -> dict[str, dict[str, str]]:
    """Poll every bgpd until the sessions and prefix counts stop changing (or the deadline)."""
    t0 = time.monotonic()
    last: Any = None
    since = t0
    wanted = 2 * len(plane.sessions)
    states: dict[str, dict[str, str]] = {}
    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        while True:
            summaries = dict(zip((i.device for i in instances), pool.map(_summary, instances), strict=True))
            states = {d: {ip: st for ip, (st, _) in peers.items()} for d, peers in summaries.items()}
            up = sum(1 for peers in summaries.values() for st, _ in peers.values() if st == checks.ESTABLISHED)
            signature = tuple(sorted((d, ip, st == checks.ESTABLISHED, n) for d, peers in summaries.items()
                                     for ip, (st, n) in peers.items()))
            now = time.monotonic()
            if signature != last:
                last, since = signature, now
            _tick(options, "convergence", up, wanted)
            settle = options.settle_s if up >= wanted else options.settle_down_s
            if now - since >= settle or now - t0 >= options.deadline_s:
                return states
            time.sleep(POLL_S)


# --------------------------------------------------------------------------- checks


def _read_fib(plane: Plane, options: VerifyOptions) -> dict[str, dict[str, int]]:
    names = list(plane.switches)
    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        return dict(zip(names, pool.map(lambda n: fib_next_hops(plane.switches[n].netns), names), strict=True))


def _route_findings(plane: Plane, options: VerifyOptions, up: list[Session], only: set[str],
                    rounds: int = 8) -> list[Result]:
    """RIB and ECMP findings that persist: FIBs are re-read (0.5 s apart) until they come out clean or the
    same twice in a row, so routes zebra is still installing on a busy machine are not reported."""
    last: list[Result] | None = None
    for _ in range(rounds):
        fib = _read_fib(plane, options)
        found = checks.check_host_subnets(plane, fib, only) + checks.check_ecmp(plane, fib, up, only)
        if not found or found == last:
            return found
        last = found
        time.sleep(0.5)
    return last or []


def select_pairs(plane: Plane, sample: int, all_pairs: bool, only: set[str]) -> list[PingPair]:
    """Per host NIC: NICs of its own rail in other SUs and NICs of other rails (deterministic sample)."""
    nics = [(h.name, h.su, d, h.rails[d], a.split("/")[0]) for h in plane.hosts.values()
            for d, (a, _, _) in sorted(h.nics.items())]
    pairs = []
    for host, su, netdev, rail, src in nics:
        if host not in only:
            continue
        same_rail = [n for n in nics if n[0] != host and n[3] == rail and n[1] != su]
        other_rail = [n for n in nics if n[0] != host and n[3] != rail]
        if all_pairs:
            chosen = [n for n in nics if n[0] != host]
        else:
            rnd = random.Random(f"{host}/{netdev}")
            half = (sample + 1) // 2
            chosen = rnd.sample(same_rail, min(half, len(same_rail)))
            chosen += rnd.sample(other_rail, min(sample - len(chosen), len(other_rail)))
        pairs += [PingPair(host, netdev, src, n[0], n[4]) for n in chosen]
    return pairs


def _link_probes(plane: Plane) -> dict[Probe, LinkProbe]:
    out: dict[Probe, LinkProbe] = {}
    for c in plane.cables:
        for src, dst in ((c.a, c.b), (c.b, c.a)):
            if src.device in plane.hosts and dst.device in plane.hosts:
                continue
            if src.device in plane.switches and dst.device in plane.hosts:
                continue  # a leaf port larger than the host NIC is normal (see checks)
            src_ip = src.address.split("/")[0] if src.address else None
            dst_ip = dst.address.split("/")[0] if dst.address else None
            if src_ip and dst_ip:
                probe = Probe(src.netns, src_ip, dst_ip, src.mtu)
                out[probe] = LinkProbe(src.device, src.port, dst.device, dst.port, src.mtu)
    return out


def _check_all(plane: Plane, states: dict[str, dict[str, str]], options: VerifyOptions, only: set[str],
               counts: dict[str, int]) -> list[Result]:
    findings = checks.check_sessions(plane, states, only)
    up = checks.established(plane, states)
    findings += _route_findings(plane, options, up, only)
    pairs = select_pairs(plane, options.sample, options.all_pairs, only)
    routes: dict[tuple[str, str, str], dict[str, str]] = {}
    by_host: dict[str, list[PingPair]] = {}
    for p in pairs:
        by_host.setdefault(p.host, []).append(p)
    with ThreadPoolExecutor(max_workers=options.workers) as pool:
        looked = pool.map(lambda h: (h, route_lookups(plane.hosts[h].netns,
                                                      [(p.source, p.target) for p in by_host[h]])), by_host)
        for host, table in looked:
            routes.update({(host, s, d): r for (s, d), r in table.items()})
    size = plane.roce_mtu + checks.ROCE_OVERHEAD
    small = {p: Probe(plane.hosts[p.host].netns, p.source, p.target, SMALL) for p in pairs}
    large = {p: Probe(plane.hosts[p.host].netns, p.source, p.target, size) for p in pairs}
    links = _link_probes(plane)
    probes = [*small.values(), *large.values(), *links]
    results = run_probes(probes, workers=max(8, options.workers * 4))
    lost = [p for p in probes if results.get(p) is not None]
    if lost:  # once more, slower: a probe fails only if it fails twice (a busy machine drops the odd reply)
        results.update({p: r for p, r in run_probes(lost, timeout_s=4.0, workers=8).items() if r is None})
    findings += checks.check_pings(plane, pairs, routes, {p: results.get(q) for p, q in small.items()},
                                   {p: results.get(q) for p, q in large.items()})
    findings += checks.check_links({lp: results.get(p) for p, lp in links.items()}, only)
    counts.update(sessions=len(plane.sessions), established=len(up), pings=len(pairs) * 2, link_probes=len(links),
                  switches=len(plane.switches), hosts=len(plane.hosts), cables=len(plane.cables))
    _tick(options, "pings", len(pairs), len(pairs))
    return findings
