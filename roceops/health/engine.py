"""Pre-job health: nodes -> their NICs and leaf ports -> read each device, then its counters again -> verdicts.

The answer comes by the deadline whatever the devices do: each device is worked on by a
daemon thread with per-command timeouts inside the remaining time, and whatever has not
arrived at the deadline is reported as unknown, naming the device that did not answer.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nornir.core.configuration import Config
from nornir.core.inventory import Host as NornirHost

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.oper import for_intent
from roceops.health.balance import UplinkBalance, balance_results, uplink_balance, uplinks
from roceops.health.cabling import LeafViews, rail_results
from roceops.health.catalog import LINK_CHECKS, LinkContext, Sample
from roceops.health.cc_loop import loop_results
from roceops.health.gpudirect import acs_results
from roceops.health.host_checks import NodeContext, node_checks
from roceops.health.model import Thresholds, Verdict
from roceops.health.prometheus_source import leaf_samples
from roceops.health.traffic import pair_rails, run_traffic
from roceops.health.transport import transport_results
from roceops.nornir_glue.inventory import build_inventory
from roceops.nornir_glue.runner import connect_host, skip_logout
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.driver import RoomDriver
from roceops.platforms.login import AUTH_FAILED, is_auth_failure
from roceops.redact import reason, redact
from roceops.report.result import Result
from roceops.topology.fabric import Fabric, Host

CONNECT_TIMEOUT_S = 5.0
ANSWER_RESERVE_S = 1.0  # collection stops this long before the deadline, leaving time to check and answer


@dataclass(frozen=True)
class HealthOptions:
    window_s: float = 5.0
    deadline_s: float = 30.0
    thresholds: Thresholds = field(default_factory=Thresholds)
    lab_dir: Path | None = None
    max_parallel: int = 64
    traffic: bool = False  # also ib_write_bw between the nodes on each rail (roceops.health.traffic)
    counters_from: str | None = None  # Prometheus base URL: leaf counters from there, no leaf logins


@dataclass
class HealthReport:
    nodes: list[str]
    results: list[Result]
    verdicts: list[Verdict]
    seconds: float
    devices: int
    phases: dict[str, float] = field(default_factory=dict)  # wall s: plan, sample+parse (+ checks meanwhile), checks
    fabric: str = ""  # the fabric's name (reports)

    @property
    def exit_code(self) -> int:
        statuses = {v.status for v in self.verdicts}
        if "unknown" in statuses:
            return 2
        return 1 if "drain" in statuses else 0


def _parse_into(sample: Sample, name: str, intent: SwitchIntent | HostIntent, outputs: dict[str, str],
                first: bool) -> bool:
    """Parse one sample's outputs into ``sample`` (on the device's thread: the first while its window runs).

    False when the output could not be parsed; the sample then holds the error and nothing else.
    """
    driver = get_driver(intent.platform)
    try:
        if first:
            sample.observed = driver.observe(outputs)
            sample.first = for_intent(driver.operational(outputs), intent)
        else:
            sample.second = for_intent(driver.operational(outputs), intent)
    except Exception as exc:
        sample.error = redact(f"{name}: could not parse its output: {exc}")[:300]
        sample.observed = sample.first = sample.second = None
        return False
    return True


class _Logins:
    """Counts down the devices still logging in and reading their first counters; ``done`` is set when none is.

    Until then the rest of each first sample waits (its reads and parsing would hold the CPU, the lab's and
    Python's lock, that the last logins need): every window starts sooner, and the run ends sooner."""

    def __init__(self, devices: int) -> None:
        self._left = devices
        self._lock = threading.Lock()
        self.done = threading.Event()
        if devices <= 0:
            self.done.set()

    def one_done(self) -> None:
        with self._lock:
            self._left -= 1
            if self._left <= 0:
                self.done.set()


def _sample_device(host: NornirHost, intent: SwitchIntent | HostIntent, ports: frozenset[str] | None,
                   sample: Sample, window_s: float, deadline: float, gate: threading.Semaphore,
                   keep: dict[str, object] | None = None, logins: _Logins | None = None) -> None:
    """Sample one device twice, ``window_s`` apart: everything the checks read, then its counters again.

    The window starts with a read of the counters alone (``collect_counters``, as the second sample reads them);
    the rest of the first sample (``collect_rest``) is read and parsed while the window runs, once every
    device has logged in (``logins``; at the latest when its window ends), and the second as soon as it
    arrives, so nothing is left to parse when the last device answers. A Driver that is not a room's
    (:class:`RoomDriver`) reads its first sample in one ``collect``. With ``keep`` a fully sampled device's
    session stays open, stored there (the traffic test runs over it), and the caller closes it.
    """
    driver = get_driver(intent.platform)
    split = isinstance(driver, RoomDriver)  # every room; another Driver (a test double) reads it in one collect
    phase = "connect"
    kept = False
    counted = False
    try:
        with gate:
            remaining = deadline - time.monotonic()
            if remaining <= 0.5:
                raise TimeoutError("no time left before the deadline")
            extras = host.connection_options["netmiko"].extras
            assert extras is not None
            extras.update(conn_timeout=min(CONNECT_TIMEOUT_S, remaining), auth_timeout=remaining,
                          banner_timeout=remaining, read_timeout_override=max(1.0, remaining - 0.5))
            conn = connect_host(host, Config())
            phase = "first sample"
            t0 = time.monotonic()
            first = driver.collect_counters(conn, intent, ports) if split else driver.collect(conn, intent, ports)
        if logins is not None:
            logins.one_done()
            counted = True
            logins.done.wait(max(0.0, t0 + window_s - time.monotonic()))
        if split:  # outside the gate: the logins it bounds come first
            first = driver.collect_rest(conn, intent, first, ports)
        if not _parse_into(sample, host.name, intent, first, first=True):
            return
        wait = t0 + window_s - time.monotonic()
        if time.monotonic() + max(wait, 0) >= deadline - 0.5:
            raise TimeoutError("the deadline falls inside the sampling window")
        if wait > 0:
            time.sleep(wait)
        with gate:
            phase = "second sample"
            t1 = time.monotonic()
            second = driver.collect_counters(conn, intent, ports)
        if _parse_into(sample, host.name, intent, second, first=False):
            if keep is not None:
                keep[host.name], kept = conn, True
            sample.window_s = t1 - t0  # set last: a sample with a window has both halves
    except Exception as exc:  # any failure is "unknown" for the items this device serves, never a crash
        why = AUTH_FAILED if is_auth_failure(exc) else reason(exc)
        sample.error = redact(f"{host.name} {phase} failed: {why}")[:300]
    finally:
        if logins is not None and not counted:
            logins.one_done()
        if not kept:
            _close(host)


def _close(host: NornirHost) -> None:
    if "netmiko" in host.connections:
        skip_logout(getattr(host.connections["netmiko"], "connection", None))  # read-only: no logout needed
    try:
        host.close_connection("netmiko")
    except Exception:
        host.connections.pop("netmiko", None)


def _switches_first(threads: list[threading.Thread], names: list[str],
                    hosts: set[str]) -> list[threading.Thread]:
    """The sampling threads in the order to start them: the switches', then the hosts'.

    A leaf serves every node cabled to it and its reads are the largest (its host-facing ports and uplinks);
    started first, its second sample runs while the hosts' windows still do, and the run ends with a host's
    short one (bench/RESULTS.md, "Ninth round: issue 29 health_scale")."""
    pairs = list(zip(threads, names, strict=True))
    return [t for t, n in pairs if n not in hosts] + [t for t, n in pairs if n in hosts]


def resolve_nodes(fabric: Fabric, names: list[str]) -> list[Host]:
    hosts = {h.name: h for h in fabric.hosts}
    unknown = [n for n in names if n not in hosts]
    if unknown:
        raise KeyError(f"not GPU nodes of fabric {fabric.intent.name!r}: {', '.join(unknown[:10])}")
    return [hosts[n] for n in names]


def run_health(fabric: Fabric, node_names: list[str], opts: HealthOptions) -> HealthReport:
    start = time.monotonic()
    deadline = start + opts.deadline_s
    nodes = resolve_nodes(fabric, node_names)
    leaf_ports: dict[str, set[str]] = {}
    for h in nodes:
        for nic in h.nics:
            leaf_ports.setdefault(nic.leaf, set()).add(nic.leaf_port)
    leaves = sorted(leaf_ports)
    devices = [h.name for h in nodes] + leaves
    intents = {n: plan(fabric, n) for n in devices}
    for leaf in leaves:  # the uplinks too: their TX spread is the load-balancing check
        leaf_intent = intents[leaf]
        assert isinstance(leaf_intent, SwitchIntent)
        leaf_ports[leaf].update(uplinks(leaf_intent))
    ports = {n: frozenset(leaf_ports[n]) if n in leaf_ports else None for n in devices}  # switch ports once
    live = {n: Sample() for n in devices}
    planned = time.monotonic()
    sampled_devices = devices if opts.counters_from is None else [h.name for h in nodes]  # leaves: Prometheus
    inventory = build_inventory(fabric, None, opts.lab_dir, only=set(sampled_devices), login="quick")  # read-only
    gate = threading.Semaphore(opts.max_parallel)
    host_names = {h.name for h in nodes}
    sessions: dict[str, object] = {}  # the nodes' sessions the traffic test runs over
    logins = _Logins(len(sampled_devices))
    done: queue.SimpleQueue[str] = queue.SimpleQueue()  # the devices whose sampling is over
    threads = [threading.Thread(target=_sampled, daemon=True, name=f"health-{n}",
                                args=(done, n, inventory.hosts[n], intents[n], ports[n], live[n], opts.window_s,
                                      deadline - ANSWER_RESERVE_S, gate,
                                      sessions if opts.traffic and n in host_names else None, logins))
               for n in sampled_devices]
    for t in _switches_first(threads, sampled_devices, host_names):
        t.start()
    checked: dict[str, list[Result]] = {}
    if not opts.traffic and opts.counters_from is None:  # else results come after sampling (traffic, Prometheus)
        checked = _check_while_sampling(fabric, nodes, intents, live, done, len(threads), set(leaves),
                                        deadline - ANSWER_RESERVE_S, opts.thresholds)
    for t in threads:
        t.join(max(0.0, deadline - ANSWER_RESERVE_S - time.monotonic()))
    samples: dict[str, Sample] = {}
    if opts.counters_from is not None:
        samples.update(prometheus_leaves(fabric, opts, {n: leaf_ports[n] for n in leaves}, deadline))
    for n, t in zip(sampled_devices, threads, strict=True):
        s = live[n]
        if t.is_alive():  # still talking: take what has arrived, mark the rest unknown
            s = Sample(observed=s.observed, first=s.first, second=s.second if s.window_s else None,
                       window_s=s.window_s,
                       error=s.error or f"{n} did not answer before the {opts.deadline_s:g}s deadline")
        samples[n] = s
    sampled = time.monotonic()
    traffic: list[Result] | None = None
    if opts.traffic:
        try:
            traffic = traffic_results(nodes, intents, samples, dict(sessions), opts.thresholds,
                                      deadline - ANSWER_RESERVE_S)
        finally:
            for n in list(sessions):
                _close(inventory.hosts[n])
    tested = time.monotonic()
    results = evaluate(fabric, nodes, intents, samples, opts.thresholds, traffic, checked)
    end = time.monotonic()
    return HealthReport(nodes=[h.name for h in nodes], results=results, verdicts=verdicts(nodes, results),
                        fabric=fabric.intent.name,
                        seconds=end - start, devices=len(devices),
                        phases={"plan": planned - start, "sample+parse": sampled - planned,
                                **({"traffic": tested - sampled} if opts.traffic else {}),
                                "checks": end - tested})


def prometheus_leaves(fabric: Fabric, opts: HealthOptions, ports: dict[str, set[str]],
                      deadline: float) -> dict[str, Sample]:
    """The leaves' samples from Prometheus: the last window, and at least 3 scrapes so two samples are in it even
    when a scrape comes late."""
    assert opts.counters_from is not None
    lookback = max(opts.window_s, 3.0 * fabric.intent.monitoring.scrape_interval_s)
    timeout = max(0.5, min(5.0, deadline - ANSWER_RESERVE_S - time.monotonic()))
    return leaf_samples(opts.counters_from, ports, lookback, timeout)


def traffic_results(nodes: list[Host], intents: dict[str, SwitchIntent | HostIntent], samples: dict[str, Sample],
                    sessions: dict[str, object], thresholds: Thresholds, deadline: float) -> list[Result]:
    """The ring of same-rail ib_write_bw runs between ``nodes`` (see :mod:`roceops.health.traffic`)."""
    hosts = {h.name: hi for h in nodes if isinstance(hi := intents[h.name], HostIntent)}
    runs, results = pair_rails(list(hosts), hosts)
    return results + run_traffic(runs, sessions, hosts, samples, thresholds, deadline)


def evaluate(fabric: Fabric, nodes: list[Host], intents: dict[str, SwitchIntent | HostIntent],
             samples: dict[str, Sample], thresholds: Thresholds,
             traffic: list[Result] | None = None, checked: dict[str, list[Result]] | None = None) -> list[Result]:
    """Every check's results; ``traffic``: the traffic test's results (None: not asked for); ``checked``: nodes
    already checked over these same samples while others were sampled (:func:`_check_while_sampling`)."""
    results: list[Result] = []
    checker = NodeChecks(fabric, nodes, intents, samples, thresholds, traffic)
    for host in nodes:
        results.extend(checked[host.name] if checked and host.name in checked else checker.results(host))
    results.extend(firmware_consistency(nodes, samples))
    results.extend(uplink_results(nodes, intents, samples, thresholds))
    return results


class NodeChecks:
    """The checks of one node at a time: those of the node and of each of its NICs with its leaf port. A node's
    results read only its own sample and its leaves' (and every leaf's LLDP and neighbour views, built here)."""

    def __init__(self, fabric: Fabric, nodes: list[Host], intents: dict[str, SwitchIntent | HostIntent],
                 samples: dict[str, Sample], thresholds: Thresholds, traffic: list[Result] | None = None) -> None:
        self.fabric, self.intents, self.samples, self.thresholds, self.traffic = (fabric, intents, samples,
                                                                                 thresholds, traffic)
        self.checks = [cls() for cls in LINK_CHECKS]
        self.views = LeafViews.of(samples, {n.leaf for h in nodes for n in h.nics})  # nic.rail's index of the leaves

    def results(self, host: Host) -> list[Result]:
        fabric, intents, samples, thresholds = self.fabric, self.intents, self.samples, self.thresholds
        results: list[Result] = []
        hi = intents[host.name]
        assert isinstance(hi, HostIntent)
        leaves = {n.leaf: leaf for n in host.nics if isinstance(leaf := intents[n.leaf], SwitchIntent)}
        results.extend(node_checks(NodeContext(host.name, hi, samples[host.name], leaves)))
        results.extend(transport_results(host.name, hi, samples[host.name], fabric.intent.health.transport))
        results.extend(rail_results(host.name, hi, samples, self.views))
        results.extend(acs_results(host.name, hi, samples[host.name]))
        results.extend(r for r in self.traffic or [] if r.node == host.name)
        for nic in host.nics:
            leaf = intents[nic.leaf]
            assert isinstance(leaf, SwitchIntent)
            ctx = LinkContext(node=host.name, nic=hi.nics[nic.netdev], host=samples[host.name], leaf=leaf,
                              leaf_port=leaf.ports[nic.leaf_port], switch=samples[nic.leaf], thresholds=thresholds)
            for check in self.checks:
                results.extend(check.test(ctx))
            results.extend(loop_results(host.name, ctx.nic, ctx.host, leaf, ctx.switch, fabric.intent.health.cc_loop))
        return results


def _sampled(done: queue.SimpleQueue[str], name: str, *args: Any) -> None:
    """:func:`_sample_device` (``args``), then ``name`` into ``done``: its sample no longer changes."""
    try:
        _sample_device(*args)
    finally:
        done.put(name)


def _check_while_sampling(fabric: Fabric, nodes: list[Host], intents: dict[str, SwitchIntent | HostIntent],
                          live: dict[str, Sample], done: queue.SimpleQueue[str], devices: int, leaves: set[str],
                          stop: float, thresholds: Thresholds) -> dict[str, list[Result]]:
    """Wait until ``devices`` are sampled or ``stop``; meanwhile check each node as soon as its sample and every
    leaf's are in (the leaves start first, so the checks run while the last hosts are still sampled). The results
    are those :func:`evaluate` gives for the node afterwards: a sampled device's sample no longer changes."""
    finished: set[str] = set()
    checker: NodeChecks | None = None
    checked: dict[str, list[Result]] = {}
    while len(finished) < devices:
        try:
            finished.add(done.get(timeout=max(0.0, stop - time.monotonic())))
        except queue.Empty:
            break
        if checker is None and finished >= leaves:
            checker = NodeChecks(fabric, nodes, intents, live, thresholds)
        if checker is not None:
            for host in nodes:
                if host.name in finished and host.name not in checked:
                    checked[host.name] = checker.results(host)
    return checked


def uplink_results(nodes: list[Host], intents: dict[str, SwitchIntent | HostIntent], samples: dict[str, Sample],
                   thresholds: Thresholds) -> list[Result]:
    """One uplink-balance result per (node, leaf it is cabled to); the leaf is judged once."""
    judged: dict[str, UplinkBalance] = {}
    out = []
    for host in nodes:
        for leaf in sorted({nic.leaf for nic in host.nics}):
            if leaf not in judged:
                leaf_intent = intents[leaf]
                assert isinstance(leaf_intent, SwitchIntent)
                judged[leaf] = uplink_balance(leaf_intent, samples[leaf], thresholds)
            out.append(balance_results(host.name, judged[leaf], thresholds))
    return out


def firmware_consistency(nodes: list[Host], samples: dict[str, Sample]) -> list[Result]:
    """Every node of a job runs the same NIC firmware and driver (the majority wins)."""
    seen = {h.name: (s.first.firmware, s.first.driver) for h in nodes
            if (s := samples[h.name]).first is not None and s.first.firmware}
    if len(seen) < 2:
        return []
    majority, _ = Counter(seen.values()).most_common(1)[0]
    out = []
    for node, fw in sorted(seen.items()):
        ok = fw == majority
        out.append(Result(device=node, check="nic.firmware", path=node, status="ok" if ok else "fail",
                               expected=f"{majority[0]} / {majority[1]}", observed=f"{fw[0]} / {fw[1]}",
                               message="" if ok else f"NIC firmware {fw[0]} differs from the job's {majority[0]}"))
    return out


def verdicts(nodes: list[Host], results: list[Result]) -> list[Verdict]:
    by_node: dict[str, list[Result]] = {h.name: [] for h in nodes}
    for r in results:
        by_node[r.node].append(r)
    out = []
    for node, rs in by_node.items():
        fails = [r for r in rs if r.status == "fail"]
        unknown = [r for r in rs if r.status == "unknown"]
        warnings = sorted({f"{r.check} {r.item}: warning ({r.message})" for r in rs if r.status == "warn"})
        if fails:
            # what could not be checked stays visible (a leaf that missed the deadline), after the failures
            reasons = sorted({f"{r.check} {r.item}: {r.message}" for r in fails}) + _unknown_reasons(unknown)
            out.append(Verdict(node=node, status="drain", reasons=reasons + warnings))
        elif unknown:
            out.append(Verdict(node=node, status="unknown", reasons=_unknown_reasons(unknown) + warnings))
        else:
            out.append(Verdict(node=node, status="ok", reasons=warnings))  # warnings never drain
    return out


def _unknown_reasons(unknown: list[Result]) -> list[str]:
    """One line per (item, why): ``leaf-su1-r1:swp1: not checked (leaf.port, counters.pause): <why>``."""
    checks: dict[tuple[str, str], set[str]] = {}
    for r in unknown:
        checks.setdefault((r.item, r.message), set()).add(r.check)
    return [f"{item}: not checked ({', '.join(sorted(names))}): {why}" for (item, why), names in sorted(checks.items())]
