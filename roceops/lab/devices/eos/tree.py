"""Arista EOS configuration as the lab simulator holds it: an ordered tree, the CLI grammar per mode, and the
running-config text in EOS layout.

Only what ``show running-config`` would print is stored. EOS hides defaults, and so does the lab. The driver's
``display_form`` (:mod:`roceops.platforms.eos.parsers`) applies the same rules to the intended config before it
diffs, so a second deploy finds nothing to change:

* interface ``no shutdown`` and ``switchport`` are defaults (not stored); ``shutdown``/``no switchport`` are;
* ``tx-queue N`` ``priority strict`` is the default (EOS queues start strict); ``no priority`` is stored, and a
  ``tx-queue`` section left without lines disappears;
* ``qos map dscp ... to traffic-class N``: one line per traffic class listing every DSCP set explicitly
  (DSCPs ascending, classes ascending), whatever the lines typed were.

Lines are stored interned (``sys.intern``): every interface of every simulated switch shares one copy of
``bandwidth percent 40``. Display order is canonical (a rank per keyword, then natural order), so a config that
is torn down and replayed prints byte-identically.
"""

from __future__ import annotations

import ipaddress
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from roceops.util.sorting import natural_key

INDENT = "   "
EOS_VERSION = "4.32.2F"
MTU_MIN, MTU_MAX = 68, 9216  # 9214 on many EOS platforms; the lab accepts the 9216 roceops renders


class Node:
    """A config section: its header line and its children (key -> line text, or key -> sub-section)."""

    __slots__ = ("children", "text")

    def __init__(self, text: str, children: dict[str, str | Node] | None = None) -> None:
        self.text = text
        self.children: dict[str, str | Node] = {} if children is None else children

    def copy(self) -> Node:
        return Node(self.text, {k: v if isinstance(v, str) else v.copy() for k, v in self.children.items()})


# --------------------------------------------------------------------------- interface names

_IFNAMES = (
    (re.compile(r"(?i)^(?:et|eth|ethernet)(\d+(?:/\d+)*)$"), "Ethernet"),
    (re.compile(r"(?i)^(?:lo|loopback)(\d+)$"), "Loopback"),
    (re.compile(r"(?i)^(?:ma|management)(\d+(?:/\d+)*)$"), "Management"),
    (re.compile(r"(?i)^(?:po|port-channel)(\d+)$"), "Port-Channel"),
    (re.compile(r"(?i)^(?:vl|vlan)(\d+)$"), "Vlan"),
)
SHORT = {"Ethernet": "Et", "Loopback": "Lo", "Management": "Ma", "Port-Channel": "Po", "Vlan": "Vl"}


def normalize_ifname(token: str) -> str | None:
    """``et1/1`` -> ``Ethernet1/1``; None when it is no interface name EOS knows.

    >>> normalize_ifname("Et1/1"), normalize_ifname("lo0"), normalize_ifname("Bogus1")
    ('Ethernet1/1', 'Loopback0', None)
    """
    for pattern, full in _IFNAMES:
        m = pattern.match(token)
        if m:
            return f"{full}{m.group(1)}"
    return None


def short_ifname(name: str) -> str:
    """``Ethernet1/1`` -> ``Et1/1`` (the form ``show interfaces status`` and prompts use)."""
    for full, short in SHORT.items():
        if name.startswith(full):
            return short + name[len(full):]
    return name


# --------------------------------------------------------------------------- grammar


@dataclass(frozen=True, slots=True)
class Rule:
    """One command of a mode: keyword ``words``, an argument regex (None: no arguments) and its semantics.

    ``key``: how many leading tokens name the setting a new line replaces (0: the keyword words; -1: the whole
    line, i.e. a list entry). ``stored_negative``: ``no <words>`` is itself a line EOS prints (``no switchport``);
    ``positive_default``: the positive form is the default and removes that line. ``enter``: the mode the
    command enters (a section). ``special``: a handler in :func:`apply` (``qos_dscp``, ``bgp``).
    """

    words: tuple[str, ...]
    args: re.Pattern[str] | None = None
    key: int = 0
    enter: str | None = None
    stored_negative: bool = False
    positive_default: bool = False
    special: str | None = None
    check: Callable[[Sequence[str]], str | None] | None = None


def _r(words: str, args: str | None = None, **kw: object) -> Rule:
    return Rule(tuple(words.split()), re.compile(args) if args is not None else None, **kw)  # type: ignore[arg-type]


_IP = r"\d{1,3}(?:\.\d{1,3}){3}"
_PREFIX = _IP + r"/\d{1,2}"
_SECONDS = r"\d+(?:\.\d+)?"
_UNIT = r"(?:bytes|kbytes|mbytes|segments|milliseconds|microseconds)"
_SPEED = r"auto|auto \S+|forced \S+|\d+[gm]full|\d+g-\d+"


def _check_ip(body: Sequence[str]) -> str | None:
    for tok in body:
        value = tok.split("/")[0]
        if re.fullmatch(_IP, value):
            try:
                ipaddress.ip_address(value)
            except ValueError:
                return "% Invalid input"
    return None


def _check_mtu(body: Sequence[str]) -> str | None:
    value = int(body[-1])
    return None if MTU_MIN <= value <= MTU_MAX else f"% Invalid input (MTU must be between {MTU_MIN} and {MTU_MAX})"


def _check_percent(body: Sequence[str]) -> str | None:
    return None if 1 <= int(body[-1]) <= 100 else "% Invalid input"


def _check_ecn(body: Sequence[str]) -> str | None:
    nums = [int(t) for t in body if t.isdigit()]
    if len(nums) >= 2 and nums[0] > nums[1]:
        return "% Minimum threshold must not be greater than maximum threshold"
    return None


GRAMMAR: dict[str, list[Rule]] = {
    "config": [
        _r("hostname", r"[A-Za-z0-9][A-Za-z0-9._-]*"),
        _r("service routing protocols model", r"multi-agent|ribd"),
        _r("ip routing", stored_negative=True),
        _r("aaa root", r".+", stored_negative=True),
        _r("username", r"\S+(?: .+)?", key=2),
        _r("spanning-tree mode", r"mstp|rstp|rapid-pvst|none"),
        _r("transceiver qsfp default-mode", r"\S+"),
        _r("ip route", r".+", key=-1),
        _r("ip name-server", r".+", key=-1),
        _r("dns domain", r"\S+"),
        _r("ntp server", r".+", key=3),
        _r("clock timezone", r"\S+"),
        _r("qos map dscp", r"(?:\d+ )+to traffic-class [0-7](?: drop-precedence [0-2])?", special="qos_dscp"),
        _r("qos map traffic-class", r"[0-7] to tx-queue [0-7]", key=4),
        _r("qos map cos", r"(?:[0-7] )+to traffic-class [0-7]", key=-1),
        _r("priority-flow-control pause watchdog default timeout", _SECONDS),
        _r("priority-flow-control pause watchdog default recovery-time", _SECONDS),
        _r("priority-flow-control pause watchdog default polling-interval", _SECONDS),
        _r("priority-flow-control pause watchdog action", r"drop|no-drop"),
        _r("priority-flow-control pause watchdog override action", r"drop"),
        _r("priority-flow-control all off"),
        _r("interface", r"\S+", key=2, enter="if"),
        _r("router bgp", r"\d+(?:\.\d+)?", key=2, enter="bgp", special="bgp"),
    ],
    "if": [
        _r("description", r".+"),
        _r("shutdown"),
        _r("load-interval", r"\d+"),
        _r("mtu", r"\d+", check=_check_mtu),
        _r("speed", _SPEED),
        _r("switchport", stored_negative=True, positive_default=True),
        _r("vrf", r"\S+"),
        _r("ip address", _PREFIX, check=_check_ip),
        _r("qos trust", r"dscp|cos"),
        _r("priority-flow-control on"),
        _r("priority-flow-control priority", r"[0-7] (?:no-drop|drop)", key=3),
        _r("priority-flow-control pause watchdog"),
        _r("priority-flow-control pause watchdog port action", r"drop|no-drop"),
        _r("priority-flow-control pause watchdog port timer", r".+"),
        _r("tx-queue", r"[0-7]", key=2, enter="txq"),
        _r("uc-tx-queue", r"[0-7]", key=2, enter="txq"),  # unicast queue on split uc/mc platforms
    ],
    "txq": [
        _r("priority", r"strict", stored_negative=True, positive_default=True),
        _r("bandwidth percent", r"\d+", check=_check_percent),
        _r("bandwidth guaranteed percent", r"\d+", check=_check_percent),
        _r("shape rate", r".+"),
        _r("random-detect ecn count"),
        _r("random-detect ecn minimum-threshold",
          rf"\d+ {_UNIT} maximum-threshold \d+ {_UNIT}(?: max-mark-probability \d+)?(?: weight \d+)?",
          check=_check_ecn),
    ],
    "bgp": [
        _r("router-id", _IP, check=_check_ip),
        _r("maximum-paths", r"\d+(?: ecmp \d+)?"),
        _r("neighbor", _IP + r" (?:remote-as \d+(?:\.\d+)?|description .+|shutdown|peer group \S+|update-source \S+"
          r"|send-community(?: \S+)?|maximum-routes .+|bfd|ebgp-multihop(?: \d+)?)", key=3, check=_check_ip),
        _r("network", _PREFIX + r"(?: route-map \S+)?", key=2, check=_check_ip),
        _r("bgp", r".+", key=-1),
    ],
}
for _rules in GRAMMAR.values():
    _rules.sort(key=lambda r: -len(r.words))
_BY_WORD: dict[str, dict[str, list[Rule]]] = {
    mode: {w: [r for r in rules if r.words[0] == w] for w in {r.words[0] for r in rules}}
    for mode, rules in GRAMMAR.items()
}

SECTION_MODES = {"interface": "if", "tx-queue": "txq", "uc-tx-queue": "txq", "router": "bgp"}


def section_mode(key: str) -> str:
    return SECTION_MODES.get(key.split(" ", 1)[0], "config")


@dataclass(frozen=True, slots=True)
class Matched:
    rule: Rule
    body: tuple[str, ...]  # tokens without the no/default prefix
    negate: str | None  # "no", "default" or None
    full: bool  # arguments complete and valid
    key: str = ""  # the setting the line replaces (see :func:`key_of`), interned
    text: str = ""  # the line as stored (positive form), interned

    @classmethod
    def of(cls, rule: Rule, body: tuple[str, ...], negate: str | None, full: bool) -> Matched:
        return cls(rule, body, negate, full, line(key_of(rule, body)), line(" ".join(body)))


@dataclass(frozen=True, slots=True)
class Failed:
    error: str  # EOS error text; "" means "% Invalid input" at ``token``
    token: int = 0


_MATCHES: dict[tuple[str, str], Matched | Failed] = {}
_MATCHES_MAX = 4096  # repeated lines stay hot; unique ones (addresses, descriptions) churn


def match(mode: str, tokens: list[str]) -> Matched | Failed:
    """Find the command ``tokens`` are in ``mode`` (no abbreviations except interface names).

    Results are memoized: most lines (``no priority``, ``bandwidth percent 40``...) repeat on every interface of
    every simulated switch, and a preload or a push feeds thousands of them.
    """
    key = (mode, " ".join(tokens))
    found = _MATCHES.get(key)
    if found is None:
        if len(_MATCHES) >= _MATCHES_MAX:
            _MATCHES.clear()
        found = _MATCHES[key] = _match(mode, tokens)
    return found


def _match(mode: str, tokens: list[str]) -> Matched | Failed:
    negate = tokens[0] if tokens[0] in ("no", "default") and len(tokens) > 1 else None
    offset = 1 if negate else 0
    words = list(tokens[offset:])
    if len(words) > 1 and words[0] == "interface":
        words[1] = normalize_ifname(words[1]) or words[1]
    body = tuple(sys.intern(w) for w in words)
    for rule in _BY_WORD[mode].get(body[0], ()):
        n = len(rule.words)
        if tuple(body[:n]) != rule.words:
            continue
        rest = " ".join(body[n:])
        valid = (not rest) if rule.args is None else bool(rest) and rule.args.fullmatch(rest) is not None
        if negate:
            return Matched.of(rule, body, negate, valid)
        if rule.args is None and rest:
            return Failed("", offset + n)
        if rule.args is not None and not rest:
            return Failed("% Incomplete command")
        if not valid:
            return Failed("", offset + n)
        if rule.check is not None and (err := rule.check(body)):
            return Failed(err)
        return Matched.of(rule, body, None, True)
    return Failed("", offset + max(_common(body, rule.words) for rule in GRAMMAR[mode]))


def _common(body: tuple[str, ...], words: tuple[str, ...]) -> int:
    n = 0
    for a, b in zip(body, words, strict=False):
        if a != b:
            break
        n += 1
    return n


def key_of(rule: Rule, body: tuple[str, ...]) -> str:
    if rule.stored_negative:
        return " ".join(rule.words)
    if rule.key == -1:
        return " ".join(body)
    return " ".join(body[: rule.key or len(rule.words)])


def line(text: str) -> str:
    return sys.intern(text)


# --------------------------------------------------------------------------- applying


class ConfigError(Exception):
    """A command EOS would refuse; ``str(exc)`` is the EOS error line."""


def apply(node: Node, m: Matched, ports: frozenset[str]) -> Node | None:
    """Apply a matched command to section ``node``; return the section entered (if the command enters one)."""
    rule, body, key = m.rule, m.body, m.key
    if rule.special == "qos_dscp":
        _qos_dscp(node, body, m.negate is not None)
        return None
    if rule.enter:
        return _section(node, rule, body, key, m.negate, ports)
    if m.negate:
        if rule.stored_negative and m.negate == "no" and len(body) == len(rule.words):
            node.children[key] = line("no " + key)
        elif m.full:
            node.children.pop(key, None)
        else:
            prefix = " ".join(body)
            for k, v in list(node.children.items()):
                text = v if isinstance(v, str) else v.text
                if text == prefix or text.startswith(prefix + " "):
                    del node.children[k]
        return None
    if rule.positive_default:
        node.children.pop(key, None)
    else:
        node.children[key] = m.text
    return None


def _section(node: Node, rule: Rule, body: tuple[str, ...], key: str, negate: str | None,
             ports: frozenset[str]) -> Node | None:
    name = " ".join(body)
    if len(body) == len(rule.words):  # `no interface` / `no router bgp` without the instance
        if rule.special != "bgp":
            raise ConfigError("% Incomplete command")
        node.children.pop(key, None)
        return None
    if rule.words == ("interface",) and (
            normalize_ifname(body[1]) is None or (body[1].startswith("Ethernet") and body[1] not in ports)):
        raise ConfigError("% Invalid input")
    if rule.special == "bgp":
        existing = node.children.get(key)
        if isinstance(existing, Node) and existing.text != name:
            if negate:
                raise ConfigError(f"% BGP is running with AS number {existing.text.split()[-1]}")
            raise ConfigError(f"% BGP is already running with AS number {existing.text.split()[-1]}")
    if negate:
        if key.startswith(("interface Ethernet", "interface Management")) and key in node.children:
            node.children[key] = Node(line(name))  # physical ports stay, back to defaults
        else:
            node.children.pop(key, None)
        return None
    sub = node.children.get(key)
    if not isinstance(sub, Node):
        sub = Node(line(name))
        node.children[key] = sub
    return sub


def _qos_dscp(root: Node, body: tuple[str, ...], negate: bool) -> None:
    """``qos map dscp D... to traffic-class N``: EOS keeps one DSCP->TC table and prints it grouped per TC."""
    table: dict[int, int] = {}
    for k in [k for k in root.children if k.startswith("qos map dscp")]:
        text = root.children.pop(k)
        assert isinstance(text, str)
        dscps, tc = _dscp_line(text.split())
        table.update(dict.fromkeys(dscps, tc))
    dscps, tc = _dscp_line(body)
    for d in dscps:
        if d > 63:
            raise ConfigError("% Invalid input")
    for d in dscps:
        if negate:
            table.pop(d, None)
        else:
            table[d] = tc
    for tc_value in sorted(set(table.values())):
        members = " ".join(str(d) for d in sorted(d for d, t in table.items() if t == tc_value))
        root.children[line(f"qos map dscp tc {tc_value}")] = line(f"qos map dscp {members} to traffic-class {tc_value}")


def _dscp_line(tokens: list[str] | tuple[str, ...]) -> tuple[list[int], int]:
    """``qos map dscp 1 2 to traffic-class 3`` (or a ``no`` prefix of it) -> ([1, 2], 3); -1 when no class given.

    >>> _dscp_line("qos map dscp 1 2 to traffic-class 3".split()), _dscp_line(["26"])
    (([1, 2], 3), ([26], -1))
    """
    words = list(tokens[3:] if tuple(tokens[:3]) == ("qos", "map", "dscp") else tokens)
    dscps: list[int] = []
    for i, tok in enumerate(words):
        if tok == "to":
            return dscps, int(words[i + 2]) if i + 2 < len(words) else -1
        if tok.isdigit():
            dscps.append(int(tok))
    return dscps, -1


# --------------------------------------------------------------------------- display order and text

_TOP_RANKS = (
    ("aaa root", 10), ("username ", 20), ("service routing", 30), ("transceiver", 40), ("hostname", 45),
    ("ip name-server", 46), ("dns domain", 47), ("spanning-tree", 50), ("clock", 55),
    ("interface Port-Channel", 80), ("interface Ethernet", 81), ("interface Loopback", 82),
    ("interface Management", 83), ("interface Vlan", 84), ("interface ", 85), ("ip routing", 90),
    ("ip route ", 95), ("ntp", 100), ("qos map dscp", 110), ("qos ", 111), ("priority-flow-control", 120),
    ("router bgp", 130),
)
_IF_RANKS = (
    ("description", 10), ("shutdown", 20), ("load-interval", 25), ("mtu", 30), ("speed", 40), ("switchport", 50),
    ("vrf", 55), ("ip address", 60), ("qos trust", 70), ("priority-flow-control on", 80),
    ("priority-flow-control priority", 81), ("priority-flow-control pause", 85), ("tx-queue", 100),
    ("uc-tx-queue", 100),
)
# ECN thresholds before `random-detect ecn count`, as pyavd 6.4.0's eos_cli_config_gen prints a tx-queue
_TXQ_RANKS = (("priority", 10), ("bandwidth", 20), ("shape", 25), ("random-detect ecn count", 31),
              ("random-detect", 30))
_BGP_RANKS = (("router-id", 10), ("bgp", 15), ("maximum-paths", 20), ("neighbor", 30), ("network", 40))
_NEIGHBOR_ATTRS = {"peer": 0, "remote-as": 1, "update-source": 2, "description": 3}
_RANKS = {"config": _TOP_RANKS, "if": _IF_RANKS, "txq": _TXQ_RANKS, "bgp": _BGP_RANKS}


@lru_cache(maxsize=1 << 15)  # a pure function of its arguments; keys repeat across sections and devices
def order(mode: str, key: str) -> tuple[object, ...]:
    rank = 500
    for prefix, value in _RANKS[mode]:
        if key.startswith(prefix):
            rank = value
            break
    if mode == "bgp" and key.startswith("neighbor "):
        _, ip, attr = [*key.split(" ", 2), "", ""][:3]
        return rank, _address_key(ip), _NEIGHBOR_ATTRS.get(attr, 9), attr
    return rank, natural_key(key)


def _address_key(ip: str) -> tuple[object, ...]:
    """``natural_key(ip)``, worked out directly for a dotted IPv4 address (every neighbour key is one)."""
    parts = ip.split(".")
    if len(parts) == 4 and ip.isascii() and "".join(parts).isdigit() and all(parts):
        return "", int(parts[0]), ".", int(parts[1]), ".", int(parts[2]), ".", int(parts[3]), ""
    return natural_key(ip)


def _sorted(node: Node, mode: str) -> list[tuple[str, str | Node]]:
    children = node.children
    return [(k, children[k]) for k in _display_order(mode, tuple(children))]


@lru_cache(maxsize=1024)
def _display_order(mode: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    """``keys`` (in insertion order) sorted for display: every interface of a fabric has the same keys, so one
    sort serves them all."""
    return tuple(sorted(keys, key=partial(order, mode)))


def render_body(root: Node) -> list[str]:
    """The config lines of ``root`` in EOS layout (``!`` between blocks, 3-space indentation), no header."""
    out: list[str] = []
    prev: object = None
    for key, value in _sorted(root, "config"):
        rank = order("config", key)[0]
        if isinstance(value, Node):
            if out and out[-1] != "!":
                out.append("!")
            out.append(value.text)
            _render_section(value, section_mode(key), 1, out)
            out.append("!")
        else:
            if out and prev != rank and out[-1] != "!":
                out.append("!")
            out.append(value)
        prev = rank
    if out and out[-1] != "!":
        out.append("!")
    return out


def _render_section(node: Node, mode: str, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    children = node.children
    for key in _display_order(mode, tuple(children)):
        value = children[key]
        if not isinstance(value, Node):
            out.append(pad + value)
        elif value.children or not key.startswith(("tx-queue", "uc-tx-queue")):  # a default-only queue: not printed
            out.append(pad + "!")
            out.append(pad + value.text)
            _render_section(value, section_mode(key), depth + 1, out)


def running_config_text(root: Node, hostname: str, model: str, command: str = "show running-config") -> str:
    header = [f"! Command: {command}", f"! device: {hostname} ({model}, EOS-{EOS_VERSION})", "!",
              "! boot system flash:/EOS.swi", "!"]
    return "\n".join([*header, *render_body(root), "end"]) + "\n"


def hostname_of(root: Node) -> str:
    value = root.children.get("hostname")
    return value.split(" ", 1)[1] if isinstance(value, str) else "localhost"


def factory_config(ports: Iterable[str], hostname: str | None = None, mgmt_ip: str | None = None) -> Node:
    """A new switch: EOS defaults, the admin user (no password: the lab logs in with SSH keys), bare ports.

    With ``hostname``/``mgmt_ip`` it is the config a switch has after zero-touch bootstrap; without them it is
    ``rollback clean-config``'s factory default.
    """
    root = Node("")
    ch = root.children
    ch["aaa root"] = line("no aaa root")
    ch["username admin"] = line("username admin privilege 15 role network-admin nopassword")
    if hostname:
        ch["hostname"] = line(f"hostname {hostname}")
    ch["spanning-tree mode"] = line("spanning-tree mode mstp")
    for port in ports:
        ch[line(f"interface {port}")] = Node(line(f"interface {port}"))
    mgmt = Node("interface Management1")
    if mgmt_ip:
        mgmt.children["ip address"] = line(f"ip address {mgmt_ip if '/' in mgmt_ip else mgmt_ip + '/24'}")
    ch["interface Management1"] = mgmt
    ch["ip routing"] = line("no ip routing")
    return root


def walk(node: Node, path: tuple[str, ...]) -> Node | None:
    """The section at ``path`` (keys from ``node``), or None if it no longer exists."""
    for key in path:
        nxt = node.children.get(key)
        if not isinstance(nxt, Node):
            return None
        node = nxt
    return node
