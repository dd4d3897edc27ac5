"""``verify routing --by-class``: which devices to build, and the proof that every other device is an
instance of a built one. Pure (no I/O).

A device's *canonical form* is its routing as the plane would build it (a switch: the FRR translation of its
rendered config; a host: the ``ip`` commands and sysctls of its rendered netplan/sysctl files) plus its
interfaces (port, MTU, address, peer role and peer MTU), with every fabric-specific value renamed by its
structural meaning, taken from the fabric's *planned* truth: its own name, ASN, loopback and port addresses;
per own port the peer's name, address, ASN, loopback and the cable's subnet (``{peer-asn@Ethernet256}``).
A value with several meanings is renamed to the set of all of them; a value with no meaning (a wrong ASN, an
address of no cable of this device) stays as it is. Two devices of one class (same role, platform, model,
rail/group/node position) whose canonical forms are equal have the same routing up to that renaming, so the
representative's run proves the other. A device that differs, or has no representative, is built itself with
what it needs (:func:`needs`).

The sub-plane: the first and the last SU (leaves and hosts), every switch above their leaves (their spines and
those spines' cores), and every device that is not covered. A built device's session to a peer that is not built
is not run: the peer's end is covered by the peer's class, and this end by the same device's stanza toward a
built peer of the same class (:func:`_uncovered_ends`); when no such stanza is equal, the peer is built too.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from roceops.topology.fabric import Fabric, Host, Link, Switch
from roceops.verify.plane import HostNode, SwitchNode

RANK = {"leaf": 0, "spine": 1, "core": 2}
_BLOCK_END = {"exit", "!", "exit-address-family"}


@dataclass
class Coverage:
    """The result of the class argument."""

    built: list[str]  # devices of the sub-plane (fabric order)
    representative: dict[str, str]  # device not built -> the built device it is proven an instance of
    reasons: dict[str, str] = field(default_factory=dict)  # built device -> why it is built

    def mode(self, device: str) -> str:
        return "class" if device in self.representative else "direct"


# --------------------------------------------------------------------------- canonical form


def _meanings(fabric: Fabric, name: str) -> dict[str, set[str]]:
    """value -> its structural meanings for device ``name`` (from the planned fabric)."""
    out: dict[str, set[str]] = defaultdict(set)
    dev = fabric.device(name)
    out[name].add("self")
    if isinstance(dev, Switch):
        out[str(dev.asn)].add("asn:self")
        out[dev.loopback].add("lo:self")
        out[dev.loopback.split("/")[0]].add("lo:self")
    for link in fabric.links_of(name):
        mine, ip, other, other_ip = ((link.a, link.a_ip, link.b, link.b_ip) if link.a.device == name
                                     else (link.b, link.b_ip, link.a, link.a_ip))
        p = mine.port
        out[other.device].add(f"peer@{p}")
        for value, meaning in ((ip, "ip"), (other_ip, "peer-ip")):
            if value:
                out[value].add(f"{meaning}@{p}")
                out[value.split("/")[0]].add(f"{meaning}@{p}")
                out[_network(value)].add(f"net@{p}")
        peer = fabric.device(other.device)
        if isinstance(peer, Switch):
            out[str(peer.asn)].add(f"peer-asn@{p}")
            out[peer.loopback].add(f"peer-lo@{p}")
            out[peer.loopback.split("/")[0]].add(f"peer-lo@{p}")
    return out


@functools.lru_cache(maxsize=1 << 17)
def _network(address: str) -> str:
    return str(ipaddress.ip_interface(address).network)


def _rename(line: str, meanings: Mapping[str, set[str]]) -> str:
    return " ".join("{" + ",".join(sorted(meanings[w])) + "}" if w in meanings else w for w in line.split())


def _ordered(lines: list[str]) -> list[str]:
    """Runs of lines with the same first word (``neighbor``, ``network``) are grouped by their second word,
    each group keeping its order, and the groups sorted: FRR does not care in which order different
    neighbours or networks come, and the translation sorts them by address, which differs per device."""
    out: list[str] = []
    split = [line.split() for line in lines]  # once per line
    i = 0
    while i < len(lines):
        words = split[i]
        j = i
        groups: dict[str, list[str]] = defaultdict(list)
        while j < len(lines) and len(split[j]) > 1 and words and split[j][0] == words[0]:
            groups[split[j][1]].append(lines[j])
            j += 1
        if j > i + 1:
            for key in sorted(groups):
                out.extend(groups[key])
            i = j
        else:
            out.append(lines[i])
            i += 1
    return out


def routing_lines(node: SwitchNode | HostNode) -> list[str]:
    """What the plane runs for this device, as lines."""
    if isinstance(node, SwitchNode):
        return (node.bgpd_conf or f"! not translated: {node.error}").splitlines()
    return [*node.ip_commands, *(f"sysctl {k}={v}" for k, v in sorted(node.sysctls.items())),
            *(f"nic {d} {a} via {g} mtu {m} rail {node.rails.get(d)} table {node.tables.get(d)}"
              for d, (a, g, m) in sorted(node.nics.items()))]


def interface_lines(fabric: Fabric, name: str, mtus: Mapping[tuple[str, str], int]) -> list[str]:
    """Own port (``port=`` keeps its name out of the renaming), its MTU and address, the peer's role and
    MTU: the cabling pattern (the peer's port is in the peer's own form)."""
    out = []
    for link in fabric.links_of(name):
        mine, ip, other = (link.a, link.a_ip, link.b) if link.a.device == name else (link.b, link.b_ip, link.a)
        out.append(f"port={mine.port} {link.tier} mtu {mtus.get((name, mine.port))} addr {ip} peer "
                   f"{fabric.device(other.device).role} mtu {mtus.get((other.device, other.port))}")
    return sorted(out)


def canonical(fabric: Fabric, name: str, node: SwitchNode | HostNode,
              mtus: Mapping[tuple[str, str], int]) -> tuple[str, ...]:
    meanings = _meanings(fabric, name)
    lines = [_rename(ln, meanings) for ln in routing_lines(node)]
    lines += [_rename(ln, meanings) for ln in interface_lines(fabric, name, mtus)]
    return tuple(_ordered(lines))


# --------------------------------------------------------------------------- classes and the sub-plane


def class_keys(fabric: Fabric) -> dict[str, tuple[object, ...]]:
    """Where each device sits, without which SU/pod: the candidates for one representative."""
    first: dict[int, int] = {}
    for h in fabric.hosts:
        first[h.su] = min(first.get(h.su, h.node), h.node)
    return {d.name: (("host", d.platform, d.model, d.node - first[d.su]) if isinstance(d, Host)
                     else _switch_key(d)) for d in fabric.devices()}


def _switch_key(dev: Switch) -> tuple[object, ...]:
    position = {"leaf": dev.rail, "spine": dev.group}.get(dev.role, dev.index)
    return (dev.role, dev.platform, dev.model, dev.hwsku, dev.plane, position)


def _neighbours(fabric: Fabric, name: str) -> list[str]:
    return [lk.b.device if lk.a.device == name else lk.a.device for lk in fabric.links_of(name)]


def _rank(fabric: Fabric, name: str) -> int:
    dev = fabric.by_name[name]
    return -1 if isinstance(dev, Host) else RANK.get(dev.role, 3)


def close(fabric: Fabric, devices: Iterable[str]) -> set[str]:
    """Add what routing needs: every switch above a built switch (a leaf's spines, a spine's cores), so
    ECMP widths are the fabric's, and every switch of a built host (its NICs need their cables)."""
    out: set[str] = set()
    todo = list(devices)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        rank = _rank(fabric, name)
        todo.extend(n for n in _neighbours(fabric, name) if _rank(fabric, n) > rank)
    return out


def needs(fabric: Fabric, name: str) -> set[str]:
    """A device built directly, with what it needs: its neighbours (a leaf's hosts, so the subnets it
    announces exist) and their closure."""
    return close(fabric, [name, *_neighbours(fabric, name)])


def representative_sus(fabric: Fabric) -> list[int]:
    sus = sorted({h.su for h in fabric.hosts})
    return sorted({sus[0], sus[-1]}) if sus else []


def _generic(token_body: str, port: str) -> str:
    """The meanings of one renamed value that concern ``port`` (or no port), with the port made generic."""
    kept = [x.replace(f"@{port}", "@*") for x in token_body.split(",") if x.endswith(f"@{port}") or "@" not in x]
    return "{" + ",".join(sorted(kept)) + "}"


def _port_stanzas(lines: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """own port -> the canonical lines with a value that means something of this port only (its address,
    its peer's address...), with the port made generic."""
    out: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        ports = set()
        for body in _TOKEN.findall(line):
            owners = {m.split("@", 1)[1] for m in body.split(",") if "@" in m}
            if len(owners) == 1:
                ports |= owners
        for port in ports:
            generic = _TOKEN.sub(lambda m, p=port: _generic(m.group(1), p), line)  # type: ignore[misc]
            out[port].append(" ".join("port=*" if w == f"port={port}" else w for w in generic.split()))
    return {p: tuple(sorted(v)) for p, v in out.items()}


@functools.lru_cache(maxsize=4096)
def _stanzas_of(form: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return _port_stanzas(form)


_TOKEN = re.compile(r"\{([^}]*)\}")


def _uncovered_ends(fabric: Fabric, keys: Mapping[str, tuple[object, ...]], name: str, form: tuple[str, ...],
                    built: set[str]) -> set[str]:
    """Peers not built whose cable's end at ``name`` differs from every end toward a built peer of the
    same class."""
    stanzas = _stanzas_of(form)
    seen: dict[tuple[object, ...], set[tuple[str, ...]]] = defaultdict(set)
    absent: list[tuple[str, tuple[object, ...], tuple[str, ...]]] = []
    for link in fabric.links_of(name):
        mine, other = (link.a, link.b) if link.a.device == name else (link.b, link.a)
        key = keys[other.device]
        stanza = stanzas.get(mine.port, ())
        if other.device in built:
            seen[key].add(stanza)
        else:
            absent.append((other.device, key, stanza))
    return {peer for peer, key, stanza in absent if stanza not in seen[key]}


def cover(fabric: Fabric, nodes: Mapping[str, SwitchNode | HostNode],
          mtus: Mapping[tuple[str, str], int], sus: list[int] | None = None,
          forms: Mapping[str, tuple[str, ...]] | None = None) -> Coverage:
    """The sub-plane to build and the class proof of every device outside it. ``forms``: the devices'
    :func:`canonical` forms, when the caller has made them (roceops.verify.inputs)."""
    reps = set(sus if sus is not None else representative_sus(fabric))
    seed = [h.name for h in fabric.hosts if h.su in reps] + [s.name for s in fabric.switches if s.su in reps]
    built = close(fabric, seed)
    reasons = {n: "representative" for n in built}
    keys = class_keys(fabric)
    made: dict[str, tuple[str, ...]] = dict(forms or {})

    def form(n: str) -> tuple[str, ...]:
        if n not in made:
            made[n] = canonical(fabric, n, nodes[n], mtus)
        return made[n]

    order = [d.name for d in fabric.devices()]
    representative: dict[str, str] = {}
    changed = True
    while changed:  # building more can change which ends are covered: repeat until nothing is added
        changed = False
        by_key: dict[tuple[object, ...], list[str]] = defaultdict(list)
        for n in order:
            if n in built:
                by_key[keys[n]].append(n)
        representative = {}
        for n in order:
            if n in built:
                continue
            rep = next((r for r in by_key.get(keys[n], []) if form(r) == form(n)), None)
            if rep is not None:
                representative[n] = rep
                continue
            why = "differs from its class" if by_key.get(keys[n]) else "no built device of its class"
            for extra in needs(fabric, n) - built:
                reasons[extra] = f"needed by {n}"
            reasons[n] = why
            built |= needs(fabric, n)
            changed = True
        anchors: dict[tuple[object, ...], list[str]] = defaultdict(list)
        for n in [b for b in order if b in built]:
            if any(form(a) == form(n) for a in anchors[keys[n]]):
                continue  # built, but equal to an earlier built device: its cables are that one's
            anchors[keys[n]].append(n)
            for peer in _uncovered_ends(fabric, keys, n, form(n), built):
                for extra in needs(fabric, peer) - built:
                    reasons[extra] = f"its cable to {n} differs from {n}'s cables to built peers"
                built |= needs(fabric, peer)
                changed = True
    return Coverage(built=[n for n in order if n in built], representative=representative,
                    reasons={n: reasons[n] for n in order if n in built})


def sub_fabric(fabric: Fabric, built: Iterable[str]) -> Fabric:
    """The fabric restricted to ``built`` and the cables between them."""
    keep = set(built)
    links: list[Link] = [lk for lk in fabric.links if lk.a.device in keep and lk.b.device in keep]
    return replace(fabric, switches=[s for s in fabric.switches if s.name in keep],
                   hosts=[h for h in fabric.hosts if h.name in keep], links=links)


def absent_peers(fabric: Fabric, built: set[str]) -> dict[str, set[str]]:
    """Built switch -> the addresses of its cabled peers that are not built (their lines are left out of the
    harness: nothing answers there)."""
    out: dict[str, set[str]] = defaultdict(set)
    for lk in fabric.links:
        for mine, other, other_ip in ((lk.a, lk.b, lk.b_ip), (lk.b, lk.a, lk.a_ip)):
            if mine.device in built and other.device not in built and other_ip:
                out[mine.device].add(other_ip.split("/")[0])
    return dict(out)
