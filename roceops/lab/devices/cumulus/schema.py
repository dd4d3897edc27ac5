"""NVUE configuration as the lab holds it: a small command schema and a flat path -> value tree.

The lab's Cumulus personality keeps every revision (applied, pending, history) as a *flat* dict
``{path tuple: value}``; three kinds of entries exist:

* a scalar leaf: ``("interface", "swp1", "link", "mtu") -> "9216"``
* a member of a set-valued collection: ``("qos", "pfc", "default-global", "switch-priority", "3") -> MEMBER``
  (``nv set qos pfc default-global switch-priority 3`` adds a member instead of replacing a value)
* an object created without any leaf (``nv set qos roce``): ``("qos", "roce") -> OBJECT``

:func:`resolve` splits an ``nv set``/``nv unset`` argument list into path and value using
:data:`SCHEMA` (what the templates render plus the obvious neighbours), validating keys and values
like NVUE does. Top-level keywords NVUE has but the lab does not model (``acl``, ``bridge``,
``service``...) are accepted loosely (last token = value); unknown keywords are an NVUE-style error.
:func:`commands_text` prints a tree as ``nv set`` lines in a deterministic (natural) order: the
format of ``nv config show -o commands`` and of the deploy backup.

Path tuples and short values are interned, so a thousand simulated switches share them.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from roceops.util.sorting import natural_key

MEMBER = "\x00member"
OBJECT = "\x00object"

Path = tuple[str, ...]
Tree = dict[Path, str]

# --------------------------------------------------------------------------- value / key types


@dataclass(frozen=True)
class VType:
    """A value or key type: ``check`` returns the canonical spelling or None when invalid."""

    help: str
    check: Callable[[str], str | None]


def _int(lo: int, hi: int) -> VType:
    def check(text: str) -> str | None:
        if not re.fullmatch(r"\d{1,12}", text):
            return None
        number = int(text)
        return str(number) if lo <= number <= hi else None
    return VType(f"<arg> (integer:{lo} - {hi})", check)


def _enum(*values: str) -> VType:
    allowed = frozenset(values)
    return VType(f"<arg> (enum:{', '.join(values)})", lambda t: t if t in allowed else None)


def _regex(help_text: str, pattern: str) -> VType:
    rx = re.compile(pattern)
    return VType(help_text, lambda t: t if rx.fullmatch(t) else None)


def _ipv4(text: str) -> str | None:
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        return None


def _ip(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def _prefix(text: str) -> str | None:
    if "/" not in text:
        return None
    try:
        return str(ipaddress.ip_interface(text))
    except ValueError:
        return None


def _network(text: str) -> str | None:
    try:
        return str(ipaddress.ip_network(text, strict=True)) if "/" in text else None
    except ValueError:
        return None


def _asn(text: str) -> str | None:
    if text in ("none", "auto"):
        return text
    return _int(1, 4294967295).check(text)


def _remote_as(text: str) -> str | None:
    return text if text in ("external", "internal") else _int(1, 4294967295).check(text)


def _neighbor(text: str) -> str | None:
    return _ip(text) or (text if re.fullmatch(r"[A-Za-z][\w.-]{0,14}", text) else None)


SPEEDS = ("10M", "100M", "1G", "10G", "25G", "40G", "50G", "100G", "200G", "400G", "800G", "auto")

ON_OFF = _enum("on", "off")
ENABLE = _enum("enable", "disable")
BYTES = _int(0, 4294967295)
TEXT = VType("<arg> (string)", lambda t: t if t and len(t) <= 256 and "\n" not in t else None)
NAME = _regex("<arg> (string)", r"[A-Za-z][\w.-]{0,63}")
IFNAME = _regex("<interface-id>", r"[A-Za-z][\w.-]{0,14}")
HOSTNAME = _regex("<arg> (idn-hostname)", r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
PRIO = _int(0, 7)
KEY_TYPES: dict[str, VType] = {
    "<if>": IFNAME, "<profile>": NAME, "<pool>": NAME, "<vrf>": NAME,
    "<dscp>": _int(0, 63), "<pcp>": PRIO, "<sp>": PRIO, "<tc>": PRIO,
    "<afi>": _enum("ipv4-unicast", "ipv6-unicast", "l2vpn-evpn"),
    "<nbr>": VType("<neighbor-id> (ip-address | interface-name)", _neighbor),
    # the ecmp-hash keys `nv show system forwarding` lists (NVUE reference, Show-Commands/System-Forwarding)
    "<ecmp-field>": _enum("destination-ip", "destination-port", "gtp-teid", "ingress-interface",
                          "inner-destination-ip", "inner-destination-port", "inner-ip-protocol", "inner-ipv6-label",
                          "inner-source-ip", "inner-source-port", "ip-protocol", "ipv6-label", "source-ip",
                          "source-port"),
}

# --------------------------------------------------------------------------- schema


@dataclass(frozen=True)
class Leaf:
    vtype: VType
    is_set: bool = False  # set-valued collection: each `nv set` adds a member


@dataclass
class _Node:
    lit: dict[str, _Node] = field(default_factory=dict)
    wild: tuple[VType, _Node] | None = None
    leaf: Leaf | None = None


IF = "interface <if>"
QOS_PFC = ("tx", "rx")
SCHEMA_LEAVES: dict[str, Leaf] = {
    "system hostname": Leaf(HOSTNAME),
    "system forwarding ecmp-hash <ecmp-field>": Leaf(ON_OFF),
    # NVUE reference Set-and-Unset-Commands/System-Forwarding (5.2.0+): "a hash seed value between 0 and 4294967295"
    "system forwarding hash-seed": Leaf(_int(0, 4294967295)),
    "router adaptive-routing enable": Leaf(ON_OFF),
    # NVUE reference Set-and-Unset-Commands/Adaptive-Routing (5.1.0+): per-interface enable (default off) and the
    # link utilization threshold (1-100, default 70)
    f"{IF} router adaptive-routing enable": Leaf(ON_OFF),
    f"{IF} router adaptive-routing link-utilization-threshold": Leaf(_int(1, 100)),
    f"{IF} type": Leaf(_enum("swp", "loopback", "eth", "bond", "svi", "sub", "bridge", "vrf", "tunnel")),
    f"{IF} description": Leaf(TEXT),
    f"{IF} link state": Leaf(_enum("up", "down")),
    f"{IF} link speed": Leaf(_enum(*SPEEDS)),
    # NVUE reference `nv set interface <interface-id> link breakout <mode-id>`: 1x, 2x, 4x, 8x, disabled, loopback
    f"{IF} link breakout": Leaf(_enum("1x", "2x", "4x", "8x", "disabled", "loopback")),
    f"{IF} link mtu": Leaf(_int(552, 9216)),
    f"{IF} link fec": Leaf(_enum("auto", "baser", "off", "rs", "driver-auto")),
    f"{IF} link auto-negotiate": Leaf(ON_OFF),
    f"{IF} link duplex": Leaf(_enum("full", "half")),
    f"{IF} ip address": Leaf(VType("<ip-prefix-id> (ip-prefix | dhcp)", lambda t: t if t == "dhcp" else _prefix(t)),
                             is_set=True),
    f"{IF} ip vrf": Leaf(NAME),
    f"{IF} ip gateway": Leaf(VType("<ip-address>", _ip), is_set=True),
    f"{IF} qos pfc-watchdog state": Leaf(ENABLE),
    f"{IF} qos pfc profile": Leaf(NAME),
    f"{IF} qos link-pause profile": Leaf(NAME),
    f"{IF} qos congestion-control profile": Leaf(NAME),
    f"{IF} qos egress-scheduler profile": Leaf(NAME),
    f"{IF} qos egress-queue-mapping profile": Leaf(NAME),
    f"{IF} qos mapping profile": Leaf(NAME),
    f"{IF} lldp dcbx-pfc-tlv": Leaf(ON_OFF),
    f"{IF} lldp dcbx-ets-config-tlv": Leaf(ON_OFF),
    f"{IF} lldp dcbx-ets-recomm-tlv": Leaf(ON_OFF),
    "qos roce enable": Leaf(ON_OFF),
    "qos roce mode": Leaf(_enum("lossless", "lossy", "lossless-single-ipool")),
    "qos roce cable-length": Leaf(_int(1, 100000)),
    "qos mapping <profile> trust": Leaf(_enum("l2", "l3", "both", "port")),
    "qos mapping <profile> port-default-sp": Leaf(PRIO),
    "qos mapping <profile> dscp <dscp> switch-priority": Leaf(PRIO),
    "qos mapping <profile> pcp <pcp> switch-priority": Leaf(PRIO),
    "qos egress-queue-mapping <profile> switch-priority <sp> traffic-class": Leaf(PRIO),
    "qos pfc <profile> switch-priority": Leaf(PRIO, is_set=True),
    "qos pfc <profile> cable-length": Leaf(_int(1, 100000)),
    "qos pfc <profile> port-buffer": Leaf(BYTES),
    "qos pfc <profile> xoff-threshold": Leaf(BYTES),
    "qos pfc <profile> xon-threshold": Leaf(BYTES),
    **{f"qos pfc <profile> {d}": Leaf(ENABLE) for d in QOS_PFC},
    "qos link-pause <profile> cable-length": Leaf(_int(1, 100000)),
    "qos link-pause <profile> port-buffer": Leaf(BYTES),
    "qos link-pause <profile> xoff-threshold": Leaf(BYTES),
    "qos link-pause <profile> xon-threshold": Leaf(BYTES),
    **{f"qos link-pause <profile> {d}": Leaf(ENABLE) for d in QOS_PFC},
    "qos congestion-control <profile> traffic-class <tc> ecn": Leaf(ENABLE),
    "qos congestion-control <profile> traffic-class <tc> red": Leaf(ENABLE),
    "qos congestion-control <profile> traffic-class <tc> min-threshold": Leaf(BYTES),
    "qos congestion-control <profile> traffic-class <tc> max-threshold": Leaf(BYTES),
    "qos congestion-control <profile> traffic-class <tc> probability": Leaf(_int(1, 100)),
    "qos egress-scheduler <profile> traffic-class <tc> mode": Leaf(_enum("dwrr", "strict")),
    "qos egress-scheduler <profile> traffic-class <tc> bw-percent": Leaf(_int(1, 100)),
    "qos pfc-watchdog polling-interval": Leaf(_int(10, 10000)),
    "qos pfc-watchdog robustness": Leaf(_int(1, 1000)),
    "qos traffic-pool <pool> memory-percent": Leaf(_int(0, 100)),
    "qos traffic-pool <pool> switch-priority": Leaf(PRIO, is_set=True),
    "router bgp enable": Leaf(ON_OFF),
    "router bgp autonomous-system": Leaf(VType("<arg> (integer:1 - 4294967295 | none | auto)", _asn)),
    "router bgp router-id": Leaf(VType("<arg> (ipv4 | none)", _ipv4)),
    "vrf <vrf> router bgp enable": Leaf(ON_OFF),
    "vrf <vrf> router bgp autonomous-system": Leaf(VType("<arg> (integer:1 - 4294967295 | none | auto)", _asn)),
    "vrf <vrf> router bgp router-id": Leaf(VType("<arg> (ipv4 | none)", _ipv4)),
    "vrf <vrf> router bgp path-selection multipath aspath-ignore": Leaf(ON_OFF),
    "vrf <vrf> router bgp address-family <afi> enable": Leaf(ON_OFF),
    "vrf <vrf> router bgp address-family <afi> multipaths ebgp": Leaf(_int(1, 128)),
    "vrf <vrf> router bgp address-family <afi> multipaths ibgp": Leaf(_int(1, 128)),
    "vrf <vrf> router bgp address-family <afi> network": Leaf(VType("<static-network-id> (ip-prefix)", _network),
                                                             is_set=True),
    "vrf <vrf> router bgp address-family <afi> redistribute connected enable": Leaf(ON_OFF),
    "vrf <vrf> router bgp neighbor <nbr> remote-as": Leaf(VType("<arg> (integer | external | internal)",
                                                                _remote_as)),
    "vrf <vrf> router bgp neighbor <nbr> type": Leaf(_enum("numbered", "unnumbered")),
    "vrf <vrf> router bgp neighbor <nbr> description": Leaf(TEXT),
    "vrf <vrf> router bgp neighbor <nbr> peer-group": Leaf(NAME),
    "vrf <vrf> router bgp neighbor <nbr> enable": Leaf(ON_OFF),
}
STRICT_ROOTS = frozenset({"interface", "qos", "router", "vrf"})
LOOSE_ROOTS = frozenset({"acl", "bridge", "evpn", "mlag", "nve", "platform", "service", "system"})


def _build(leaves: dict[str, Leaf]) -> _Node:
    root = _Node()
    for pattern, leaf in leaves.items():
        node = root
        for tok in pattern.split():
            if tok.startswith("<"):
                if node.wild is None:
                    node.wild = (KEY_TYPES[tok], _Node())
                node = node.wild[1]
            else:
                node = node.lit.setdefault(tok, _Node())
        node.leaf = leaf
    return root


SCHEMA = _build(SCHEMA_LEAVES)

# Cumulus Linux 5.15 renamed these leaves (CumulusNetworks/docs content/cumulus-linux-515/Whats-New/
# New-and-Changed-NVUE-Commands.md @ 07d58d4b2ae2bd3864171785ca7a10c1f5dfd950; 5.16 keeps them): old -> new pattern;
# a renamed `enable`/on|off leaf takes enabled|disabled. A 5.15+ switch accepts only the new words, an older only
# the old ones; stored revisions are read with both (REVISIONS).
ENABLED = _enum("enabled", "disabled")
RENAMED_515: dict[str, str] = {
    "qos roce enable": "qos roce state",
    "router bgp enable": "router bgp state",
    "vrf <vrf> router bgp enable": "vrf <vrf> router bgp state",
    "vrf <vrf> router bgp address-family <afi> enable": "vrf <vrf> router bgp address-family <afi> state",
    "vrf <vrf> router bgp address-family <afi> redistribute connected enable":
        "vrf <vrf> router bgp address-family <afi> redistribute connected state",
    "vrf <vrf> router bgp path-selection multipath aspath-ignore":
        "vrf <vrf> router bgp path-selection multipath aspath-ignore",
    "system forwarding ecmp-hash <ecmp-field>": "system forwarding ecmp-hash <ecmp-field>",
    "router adaptive-routing enable": "router adaptive-routing state",
    f"{IF} router adaptive-routing enable": f"{IF} router adaptive-routing state",
    f"{IF} ip address": f"{IF} ipv4 address",
}


def _renamed(leaves: dict[str, Leaf]) -> dict[str, Leaf]:
    out = {k: v for k, v in leaves.items() if k not in RENAMED_515}
    for old, new in RENAMED_515.items():
        leaf = leaves[old]
        out[new] = Leaf(ENABLED) if leaf.vtype is ON_OFF else leaf
    return out


SCHEMA_515 = _build(_renamed(SCHEMA_LEAVES))
BOTH = _enum("on", "off", "enabled", "disabled")
REVISIONS = _build({**SCHEMA_LEAVES, **{k: Leaf(BOTH) if v.vtype is ENABLED else v
                                        for k, v in _renamed(SCHEMA_LEAVES).items()}})


def schema_for(release: str) -> _Node:
    """The schema a switch of ``release`` (``5.16.0``) accepts commands in."""
    major_minor = tuple(int(n) for n in release.split(".")[:2] if n.isdigit())
    return SCHEMA_515 if major_minor >= (5, 15) else SCHEMA

# --------------------------------------------------------------------------- interning

_INTERNED: dict[Path, Path] = {}


def intern_path(path: Iterable[str]) -> Path:
    key = tuple(path)
    hit = _INTERNED.get(key)
    if hit is not None:
        return hit
    key = tuple(sys.intern(t) if len(t) <= 40 else t for t in key)
    return _INTERNED.setdefault(key, key)


def intern_value(value: str) -> str:
    return sys.intern(value) if len(value) <= 40 else value


# --------------------------------------------------------------------------- resolving commands


class NvError(Exception):
    """An ``nv set``/``nv unset`` the switch refuses; ``str()`` is the text NVUE prints."""


@dataclass(frozen=True)
class Resolved:
    """``kind``: ``leaf`` (path=leaf, value), ``member`` (path=collection, value=member), ``object`` (path only)."""

    kind: str
    path: Path
    value: str | None = None
    loose: bool = False  # outside the schema: a leaf here may replace a whole subtree


def _invalid(verb: str, tokens: list[str], hint: str = "") -> NvError:
    line = f"Error: Invalid Command: {verb} {' '.join(shlex.quote(t) for t in tokens)}"
    return NvError(f"{line}\n  {hint}" if hint else line)


def resolve(verb: str, tokens: list[str], schema: _Node | None = None) -> Resolved:
    """Split ``nv <verb> <tokens>`` into path and value; NvError for what NVUE would refuse (``schema``: the
    release's, :func:`schema_for`; default the <= 5.14 one)."""
    if not tokens:
        raise NvError(f"Error: Incomplete Command: {verb}")
    root = tokens[0]
    if root not in STRICT_ROOTS and root not in LOOSE_ROOTS:
        raise _invalid(verb, tokens)
    node = SCHEMA if schema is None else schema
    path: list[str] = []
    for i, tok in enumerate(tokens):
        if node.leaf is not None:
            if i != len(tokens) - 1:
                raise _invalid(verb, tokens)
            return _leaf_value(verb, tokens, tuple(path), node.leaf, tok)
        child = node.lit.get(tok)
        if child is None and node.wild is not None:
            canonical = node.wild[0].check(tok)
            if canonical is None:
                raise _invalid(verb, tokens, f"{tok}: {node.wild[0].help}")
            child, tok = node.wild[1], canonical
        if child is None:
            return _loose(verb, tokens)
        node = child
        path.append(tok)
    if node.leaf is not None:
        if verb == "set":
            raise _invalid(verb, tokens, node.leaf.vtype.help)
        return Resolved("leaf", intern_path(path))
    if len(path) < 2 and verb == "set":
        raise NvError(f"Error: Incomplete Command: {verb} {' '.join(tokens)}")
    return Resolved("object", intern_path(path))


def _leaf_value(verb: str, tokens: list[str], path: Path, leaf: Leaf, value: str) -> Resolved:
    canonical = leaf.vtype.check(value)
    if canonical is None:
        if verb == "unset" and not leaf.is_set:  # `nv unset ... mtu 9216`: the value is informational
            return Resolved("leaf", intern_path(path))
        raise _invalid(verb, tokens, f"{path[-1]}: {leaf.vtype.help}")
    kind = "member" if leaf.is_set else "leaf"
    if verb == "unset" and not leaf.is_set:
        return Resolved("leaf", intern_path(path))
    return Resolved(kind, intern_path(path), intern_value(canonical))


def _loose(verb: str, tokens: list[str]) -> Resolved:
    if tokens[0] in STRICT_ROOTS or len(tokens) < 2:
        raise _invalid(verb, tokens)
    if verb == "unset":
        return Resolved("object", intern_path(tokens), loose=True)
    return Resolved("leaf", intern_path(tokens[:-1]), intern_value(tokens[-1]), loose=True)


# --------------------------------------------------------------------------- editing a tree


def _has_prefix(key: Path, prefix: Path) -> bool:
    return key[: len(prefix)] == prefix


def apply_set(tree: Tree, res: Resolved) -> None:
    for i in range(1, len(res.path) + (res.kind == "member")):
        if tree.get(res.path[:i]) == OBJECT:
            del tree[res.path[:i]]
    if res.kind == "leaf":
        assert res.value is not None
        if res.loose:  # schema leaves never have children; a loose one may replace an object
            for key in [k for k in tree if len(k) > len(res.path) and _has_prefix(k, res.path)]:
                del tree[key]
        tree[res.path] = res.value
    elif res.kind == "member":
        assert res.value is not None
        if tree.get(res.path) not in (None, OBJECT):
            del tree[res.path]
        tree[intern_path((*res.path, res.value))] = MEMBER
    elif not any(_has_prefix(k, res.path) for k in tree):
        tree[res.path] = OBJECT


def apply_unset(tree: Tree, res: Resolved) -> None:
    target = (*res.path, res.value) if res.kind == "member" and res.value is not None else res.path
    for key in [k for k in tree if _has_prefix(k, target)]:
        del tree[key]


token_key = lru_cache(maxsize=65536)(natural_key)  # path tokens (names, numbers, addresses) repeat across devices


def sort_key(path: Path) -> tuple[tuple[Any, ...], ...]:
    return tuple(token_key(t) for t in path)


_SAFE = re.compile(r"[\w@%+=:,./-]+", re.ASCII)


def _q(token: str) -> str:
    return token if _SAFE.fullmatch(token) else shlex.quote(token)


def command_lines(tree: Tree) -> Iterator[str]:
    for path in sorted(tree, key=sort_key):
        value = tree[path]
        words = " ".join(_q(t) for t in path)
        if value in (MEMBER, OBJECT):
            yield f"nv set {words}"
        else:
            yield f"nv set {words} {_q(value)}"


def commands_text(tree: Tree) -> str:
    """``nv config show -o commands``: one ``nv set`` per line, natural order, trailing newline."""
    return "".join(line + "\n" for line in command_lines(tree))


def parse_commands(text: str) -> Tree:
    """The inverse of :func:`commands_text` (used to load revisions and preloaded files)."""
    tree: Tree = {}
    for line in text.splitlines():
        tokens = shlex.split(line)
        if tokens[:2] != ["nv", "set"]:
            continue
        apply_set(tree, resolve("set", tokens[2:], REVISIONS))  # a stored revision: either release's words
    return tree


# --------------------------------------------------------------------------- YAML views


def nested(tree: Tree) -> dict[str, Any]:
    """The flat tree as nested dicts (members and objects become ``{}``), for YAML/JSON output."""
    out: dict[str, Any] = {}
    for path in sorted(tree, key=sort_key):
        value = tree[path]
        node = out
        for tok in path[:-1]:
            nxt = node.get(tok)
            if not isinstance(nxt, dict):
                nxt = node[tok] = {}
            node = nxt
        node[path[-1]] = {} if value in (MEMBER, OBJECT) else _scalar(value)
    return out


def _scalar(value: str) -> Any:
    return int(value) if re.fullmatch(r"-?\d{1,18}", value) else value


def yaml_lines(data: dict[str, Any], indent: int) -> Iterator[str]:
    pad = " " * indent
    for key, value in data.items():
        k = f"'{key}'" if re.fullmatch(r"[\d.:/]+", key) else key
        if isinstance(value, dict):
            if value:
                yield f"{pad}{k}:"
                yield from yaml_lines(value, indent + 2)
            else:
                yield f"{pad}{k}: {{}}"
        elif value is None:
            yield f"{pad}{k}: null"
        else:
            text = str(value)
            if isinstance(value, str) and (not text or re.search(r"[:#{}\[\],&*!|>'\"%@`]|^\s|\s$", text)
                                           or re.fullmatch(r"[\d.]+", text)):
                text = "'" + text.replace("'", "''") + "'"
            yield f"{pad}{k}: {text}"


def diff_trees(base: Tree, target: Tree) -> tuple[Tree, Tree]:
    """(entries to set, entries to unset) taking ``base`` to ``target``."""
    to_set = {k: v for k, v in target.items() if base.get(k) != v}
    to_unset = {k: v for k, v in base.items() if k not in target}
    return to_set, to_unset


def diff_yaml(base: Tree, target: Tree) -> str:
    """``nv config diff``: the change as NVUE's YAML patch list (``- set:`` / ``- unset:``)."""
    to_set, to_unset = diff_trees(base, target)
    lines: list[str] = []
    if to_set:
        lines.append("- set:")
        lines.extend(yaml_lines(nested(to_set), 4))
    if to_unset:
        lines.append("- unset:")
        data = nested({k: (v if v in (MEMBER, OBJECT) else "\x00null") for k, v in to_unset.items()})
        lines.extend(line.replace("'\x00null'", "null").replace("\x00null", "null") for line in yaml_lines(data, 4))
    return "\n".join(lines)


def diff_commands(base: Tree, target: Tree) -> str:
    """The same change as ``nv unset`` / ``nv set`` lines."""
    to_set, to_unset = diff_trees(base, target)
    lines = [f"nv unset {' '.join(_q(t) for t in k)}" for k in sorted(to_unset, key=sort_key)]
    lines += list(command_lines(to_set))
    return "\n".join(lines)
