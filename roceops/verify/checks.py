"""Checks of a built routing plane: observations in, findings (device, expected, observed) out. Pure.

* ``bgp.session``: every planned session (one per switch-to-switch cable) Established at both ends.
* ``route.host_subnet``: every host subnet of the fabric in every switch's FIB (its own are connected).
* ``ecmp.width``: for each remote host subnet, a switch installs one next hop per session on a shortest
  path toward the subnet's leaf (:func:`expected_widths`): at a leaf all its uplinks, at a spine its
  parallel links to that leaf or its uplinks to cores. Counted over the sessions that are Established,
  so a session that is down is reported once, by ``bgp.session``, not again as missing width.
* ``ping.route`` / ``ping.reach`` / ``mtu.path``: from each host NIC's address, the kernel picks that NIC,
  its gateway and its table (the netplan ``routing-policy`` rule ``from <address>`` precedes ``main``);
  a small echo and a RoCE-MTU-sized echo with DF set are answered.
* ``mtu.link``: on every cable, a DF frame of the sender's planned MTU reaches the other end (switch ends
  both ways; a host end toward its leaf only: a leaf port larger than the host NIC is normal).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from roceops.report.result import Result
from roceops.verify.plane import Plane, Session

ESTABLISHED = "Established"
SAMPLE_SHOWN = 4


@dataclass(frozen=True)
class PingPair:
    host: str
    netdev: str
    source: str
    target_host: str
    target: str


def _shown(items: list[str]) -> str:
    more = f" (+{len(items) - SAMPLE_SHOWN} more)" if len(items) > SAMPLE_SHOWN else ""
    return ", ".join(items[:SAMPLE_SHOWN]) + more


def session_state(states: Mapping[str, Mapping[str, str]], device: str, peer_ip: str) -> str:
    return states.get(device, {}).get(peer_ip, "not configured")


def established(plane: Plane, states: Mapping[str, Mapping[str, str]]) -> list[Session]:
    return [s for s in plane.sessions
            if session_state(states, s.a, s.b_ip) == ESTABLISHED and session_state(states, s.b, s.a_ip) == ESTABLISHED]


def check_sessions(plane: Plane, states: Mapping[str, Mapping[str, str]], only: set[str]) -> list[Result]:
    out = []
    for s in plane.sessions:
        a_state, b_state = session_state(states, s.a, s.b_ip), session_state(states, s.b, s.a_ip)
        if (a_state, b_state) == (ESTABLISHED, ESTABLISHED) or not ({s.a, s.b} & only):
            continue
        out.append(Result(check="bgp.session", device=s.a, path=f"bgp[{s.b_ip}]", expected=ESTABLISHED,
                           observed=f"{s.a}: {a_state}; {s.b}: {b_state}",
                           message=f"session {s.a} {s.a_ip} <-> {s.b} {s.b_ip} not Established",
                           hint="compare both ends' ASN, addresses and MTU (the FRR logs are in the run dir)"))
    return out


def check_host_subnets(plane: Plane, fib: Mapping[str, Mapping[str, int]], only: set[str]) -> list[Result]:
    out = []
    for name in plane.switches:
        if name not in only or name not in fib:
            continue
        missing = [p for p in plane.host_subnets if p not in fib[name]]
        if missing:
            out.append(Result(check="route.host_subnet", device=name, path="rib.host_subnets",
                               expected=len(plane.host_subnets),
                               observed=len(plane.host_subnets) - len(missing),
                               message=f"{len(missing)} host subnets not installed: {_shown(missing)}",
                               hint="the leaves that own them do not announce them (BGP network statements)"))
    return out


def expected_widths(plane: Plane, sessions: Iterable[Session]) -> dict[tuple[str, str], int]:
    """{(switch, origin leaf): next hops on shortest paths} over the given sessions."""
    links: dict[str, list[str]] = defaultdict(list)  # one entry per session (parallel links count twice)
    for s in sessions:
        links[s.a].append(s.b)
        links[s.b].append(s.a)
    out: dict[tuple[str, str], int] = {}
    for origin in set(plane.host_subnets.values()):
        dist = {origin: 0}
        queue = deque([origin])
        while queue:
            node = queue.popleft()
            for peer in links[node]:
                if peer not in dist:
                    dist[peer] = dist[node] + 1
                    queue.append(peer)
        for node, d in dist.items():
            if node != origin:
                out[(node, origin)] = sum(1 for peer in links[node] if dist.get(peer) == d - 1)
    return out


def check_ecmp(plane: Plane, fib: Mapping[str, Mapping[str, int]], sessions: list[Session],
               only: set[str]) -> list[Result]:
    widths = expected_widths(plane, sessions)
    out = []
    for name in plane.switches:
        if name not in only or name not in fib:
            continue
        short: list[str] = []
        want: set[int] = set()
        for prefix, origin in plane.host_subnets.items():
            exp = widths.get((name, origin))
            got = fib[name].get(prefix)
            if origin == name or exp is None or got is None or got == exp:
                continue
            short.append(f"{prefix} {got}/{exp}")
            want.add(exp)
        if short:
            out.append(Result(check="ecmp.width", device=name, path="ecmp.host_subnets",
                               expected=f"{'/'.join(map(str, sorted(want)))} next hops",
                               observed=f"{len(short)} subnets with fewer", message=f"next hops: {_shown(short)}",
                               hint="maximum-paths (and multipath-relax where ASNs differ) on this switch"))
    return out


def check_pings(plane: Plane, pairs: list[PingPair], routes: Mapping[tuple[str, str, str], dict[str, str]],
                small: Mapping[PingPair, str | None], large: Mapping[PingPair, str | None]) -> list[Result]:
    """``routes`` is keyed (host, source, target)."""
    wrong_route: dict[tuple[str, str], list[str]] = defaultdict(list)
    unreached: dict[tuple[str, str], list[str]] = defaultdict(list)
    too_big: dict[tuple[str, str], list[str]] = defaultdict(list)
    tried: dict[tuple[str, str], int] = defaultdict(int)
    for p in pairs:
        key = (p.host, p.netdev)
        tried[key] += 1
        node = plane.hosts[p.host]
        _, gateway, _ = node.nics[p.netdev]
        table = str(node.tables[p.netdev])  # the NIC's source rule sits above main: its table answers first
        got = routes.get((p.host, p.source, p.target))
        if got is None or (got["dev"], got["gateway"], got["table"]) != (p.netdev, gateway, table):
            seen = "no route" if got is None else f"{got['dev']} via {got['gateway'] or '-'} table {got['table']}"
            wrong_route[key].append(f"{p.target}: {seen} (want {p.netdev} via {gateway} table {table})")
        if small.get(p) is not None:
            unreached[key].append(f"{p.target_host} {p.target}")
        elif large.get(p) is not None:
            too_big[key].append(f"{p.target_host} {p.target}")
    out = []
    size = plane.roce_mtu + ROCE_OVERHEAD
    for (host, netdev), items in sorted(wrong_route.items()):
        out.append(Result(check="ping.route", device=host, path=f"nics[{netdev}].route",
                           expected="own NIC, gateway, table",
                           observed=f"{len(items)} of {tried[(host, netdev)]} lookups differ",
                           message=_shown(items), hint="netplan routes/routing-policy of this NIC"))
    for (host, netdev), items in sorted(unreached.items()):
        out.append(Result(check="ping.reach", device=host, path=f"nics[{netdev}].reach",
                           expected=f"{tried[(host, netdev)]} NICs answer", observed=f"{len(items)} do not",
                           message=f"no echo reply from {_shown(items)}", hint="routes toward these NICs' subnets"))
    for (host, netdev), items in sorted(too_big.items()):
        out.append(Result(check="mtu.path", device=host, path=f"nics[{netdev}].mtu",
                           expected=f"{size}-byte DF packets pass", observed=f"{len(items)} paths drop them",
                           message=f"RoCE-MTU-sized echo lost toward {_shown(items)}",
                           hint="an MTU on the path is below the RoCE MTU plus headers"))
    return out


# RoCEv2 packet of a full RoCE MTU payload: IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 (IBTA RoCEv2 annex)
ROCE_OVERHEAD = 60


@dataclass(frozen=True)
class LinkProbe:
    device: str
    port: str
    peer: str
    peer_port: str
    size: int


def check_links(results: Mapping[LinkProbe, str | None], only: set[str]) -> list[Result]:
    out = []
    for p, reason in results.items():
        if reason is None or p.device not in only:
            continue
        out.append(Result(check="mtu.link", device=p.device, path=f"ports[{p.port}].mtu",
                           expected=f"{p.size}-byte DF frames reach {p.peer}:{p.peer_port}", observed=reason,
                           message=f"{p.peer}:{p.peer_port} takes less than this port's MTU {p.size}",
                           hint="set the same MTU at both ends of the cable"))
    return out
