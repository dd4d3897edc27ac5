"""Cumulus Linux NVUE rendering: the render context for ``templates/cumulus/`` and a command checker.

Target syntax is Cumulus Linux 5.x by ``nos_version`` (:mod:`roceops.platforms.cumulus.releases`, with its
source): up to 5.14 ``qos roce enable on``, ``router bgp enable on``, ``interface ... ip address``, ``on|off``;
5.15 and 5.16 ``state enabled``, ``ipv4 address``, ``enabled|disabled`` (the context's ``nv`` spelling).
``ecn enable``, ``pfc tx enable`` and ``pfc-watchdog state enable`` are the same in both.

Naming and mapping decisions (all here, none in the templates):

* NVUE "switch priority" is our traffic class (``dscp_to_tc``, PFC priorities) and NVUE
  "traffic-class" is our egress queue (``tc_to_queue``, ``queues``).
* ``nv set qos roce mode lossless`` turns the RoCE preset on; the explicit overrides that follow make
  the switch match the intent rather than the preset: trust ``l3``; **all 64** DSCP->switch-priority
  rows (the preset's default DSCP/8 blocks would put DSCP 24-31 into lossless SP3 and 49-55 into
  SP6, unlike the intent); all 8 switch-priority->traffic-class rows (the preset maps every SP other
  than 3 and 6 to TC0); PFC priorities with rx/tx on; ECN per queue (``ecn disable`` on intent queues
  without ECN, because the preset also marks TC0); scheduler mode and ``bw-percent`` per queue.
* ``nv set qos pfc default-global cable-length``: NVUE's global PFC profile has one cable length
  (the switch derives headroom from it). It is the most common cable length among PFC ports; a tie
  goes to the longest one (more headroom is the safe side). Ports with other lengths keep that
  headroom; a per-length PFC profile bound per interface would be exact (not rendered yet).
* PFC watchdog: NVUE has no detect/restore/action knobs, only global ``polling-interval`` (ms) and
  ``robustness`` (polling intervals before mitigation): polling-interval = ``poll_ms``,
  robustness = ceil(``detect_ms`` / ``poll_ms``). ``restore_ms`` and ``action`` cannot be expressed.
* Speeds are ``400G``-style (Mb/s / 1000 + ``G``); descriptions are shell-quoted when needed.
* Load balancing (NVUE reference, Set-and-Unset-Commands/System-Forwarding and /Adaptive-Routing; sources in
  docs/platforms.md): when the intent lists hash fields, each of the five ``system forwarding ecmp-hash`` fields
  of :data:`ECMP_HASH_FIELD` is set ``on`` or ``off`` (others keep the switch default); a seed renders
  ``system forwarding hash-seed <n>`` (its apply restarts switchd: lint LB006 says so, the diff's summary counts
  it as ``restarts_switchd``); ``mode: adaptive`` renders the global ``router adaptive-routing enable on`` (5.15+:
  ``state enabled``) and ``interface <port> router adaptive-routing enable on`` on every fabric port (the ports of
  the ECMP routes: "on all the ports that are part of the same ECMP route"); host ports keep the default (off).
  DLB and QP hashing are refused by lint (the room's ``PLATFORM.lb_support``), never dropped here.
"""

from __future__ import annotations

import shlex
from collections import Counter
from typing import Any

from roceops.device.intent import QueueIntent, SwitchIntent, SwitchPort
from roceops.platforms.cumulus.releases import spelling
from roceops.util.sorting import ip_key, port_key

# vendor-neutral hash field -> NVUE `system forwarding ecmp-hash` key (nv show system forwarding lists them)
ECMP_HASH_FIELD: dict[str, str] = {
    "src_ip": "source-ip", "dst_ip": "destination-ip", "ip_protocol": "ip-protocol",
    "l4_src_port": "source-port", "l4_dst_port": "destination-port",
}
PROFILE = "default-global"
LOOPBACK = "lo"
ROCE_MODE = "lossless"
TRUST: dict[str, str] = {"dscp": "l3"}
EBGP_MULTIPATHS = 64

# NVUE collections where ``nv set <path> <member>`` adds a member instead of replacing a value.
# ``*`` matches any one token. A line matches when its tokens minus the last one equal a pattern.
SET_LEAVES: tuple[tuple[str, ...], ...] = (
    ("qos", "pfc", "*", "switch-priority"),
    ("qos", "traffic-pool", "*", "switch-priority"),
    ("qos", "link-pause", "*", "switch-priority"),
    ("interface", "*", "ip", "address"),
    ("interface", "*", "ipv4", "address"),  # 5.15+ spelling
    ("interface", "*", "ipv4", "address"),
    ("interface", "*", "ipv6", "address"),
    ("vrf", "*", "router", "bgp", "address-family", "*", "network"),
)


def speed(mbps: int) -> str:
    """NVUE ``link speed`` value for a speed in Mb/s.

    >>> speed(400000), speed(25000), speed(2500)
    ('400G', '25G', '2500M')
    """
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"


def cable_length(ports: list[SwitchPort]) -> int | None:
    """Most common cable length among ``ports``; ties go to the longest.

    >>> from types import SimpleNamespace as P
    >>> cable_length([P(cable_length=5)] * 4 + [P(cable_length=30)] * 4), cable_length([])
    (30, None)
    """
    counts = Counter(p.cable_length for p in ports)
    if not counts:
        return None
    return max(counts, key=lambda length: (counts[length], length))


def robustness(detect_ms: int, poll_ms: int) -> int:
    """Polling intervals needed to cover ``detect_ms`` (at least 1).

    >>> robustness(200, 200), robustness(200, 100), robustness(250, 100)
    (1, 2, 3)
    """
    return max(1, -(-detect_ms // max(1, poll_ms)))


def quote(text: str) -> str:
    """Shell-quote a free-text value only when NVUE's parser needs it.

    >>> quote("gpu005:eth0"), quote("to spine 1")
    ('gpu005:eth0', "'to spine 1'")
    """
    return shlex.quote(text)


def _ecn(qid: int, q: QueueIntent) -> dict[str, Any]:
    if q.ecn is None:
        return {"tc": qid, "enabled": False}
    return {"tc": qid, "enabled": True, "min": q.ecn.min_bytes, "max": q.ecn.max_bytes,
            "probability": q.ecn.probability}


def adaptive_routing_ports(device: SwitchIntent) -> list[str]:
    """The ports ``interface <port> router adaptive-routing enable on`` goes to: every fabric port (the members of
    the switch's ECMP routes) when the mode is adaptive, none otherwise."""
    if device.load_balancing.mode != "adaptive":
        return []
    return sorted((p.name for p in device.ports.values() if p.role == "fabric"), key=port_key)


def _load_balancing(device: SwitchIntent) -> dict[str, Any]:
    lb = device.load_balancing
    fields = lb.hash_fields
    nv = spelling(device.nos_version)
    return {
        "ecmp_hash": ([(key, nv.on if name in fields else nv.off) for name, key in ECMP_HASH_FIELD.items()]
                      if fields is not None else []),
        "hash_seed": lb.hash_seed,
        "adaptive_routing": lb.mode == "adaptive",
        "adaptive_ports": adaptive_routing_ports(device),
    }


def global_pfc_priorities(device: SwitchIntent) -> list[int]:
    """The switch priorities of NVUE's one global PFC profile: every port's PFC priorities and the lossless ones."""
    return sorted({prio for p in device.ports.values() for prio in p.pfc_priorities}
                  | set(device.qos.lossless_priorities))


def render_context(device: Any) -> dict[str, Any]:
    """Template variables for one Cumulus switch (see the module docstring for every decision)."""
    if not isinstance(device, SwitchIntent):
        raise TypeError(f"Cumulus renders switches only, got {type(device).__name__}")
    qos = device.qos
    ports = sorted(device.ports.values(), key=lambda p: port_key(p.name))
    pfc_ports = [p for p in ports if p.pfc_priorities]
    pfc_priorities = global_pfc_priorities(device)
    wd = qos.pfc_watchdog
    bgp = device.bgp
    return {
        "hostname": device.name,
        "nos_version": device.nos_version,  # the fabric's release (None: not pinned); deploy checks the device's
        "profile": PROFILE,
        "interfaces": [
            {"name": p.name, "description": quote(p.description) if p.description else "",
             "state": "up" if p.admin_up else "down", "mtu": p.mtu, "speed": speed(p.speed),
             "address": p.address, "pfc_watchdog": wd.enabled and p.pfc_watchdog and bool(p.pfc_priorities)}
            for p in ports
        ],
        # cages the SKU splits (SN5600: 800G swp1 -> swp1s0/swp1s1); CumulusNetworks/docs Switch-Port-Attributes.md
        # @ 2d5756cced24e376c6247eab19847384125165b6: `nv set interface swp1 link breakout 2x` names swp1s0, swp1s1
        "breakouts": [{"cage": cage, "mode": f"{n}x"} for cage, n in sorted(device.breakouts.items(),
                                                                              key=lambda kv: port_key(kv[0]))],
        "loopback": {"name": LOOPBACK, "address": device.loopback},
        "load_balancing": _load_balancing(device),
        "nv": spelling(device.nos_version),  # the release's words (releases.py): enable_on, on, off, ip
        "qos": {
            "roce_mode": ROCE_MODE,
            "trust": TRUST[qos.trust],
            "dscp_map": sorted(qos.dscp_to_tc.items()),
            "egress_queue_map": sorted(qos.tc_to_queue.items()),
            "pfc_priorities": pfc_priorities,
            "cable_length": cable_length(pfc_ports),
            "ecn": [_ecn(qid, q) for qid, q in sorted(qos.queues.items())],
            "scheduler": [{"tc": qid, "mode": q.scheduler, "bw_percent": q.weight if q.scheduler == "dwrr" else None}
                          for qid, q in sorted(qos.queues.items())],
            "watchdog": ({"polling_interval": wd.poll_ms, "robustness": robustness(wd.detect_ms, wd.poll_ms)}
                         if wd.enabled else None),
        },
        "bgp": {
            "asn": bgp.asn,
            "router_id": bgp.router_id,
            "multipaths": EBGP_MULTIPATHS,
            "neighbors": sorted(({"ip": n.ip, "remote_as": n.remote_asn,
                                  "description": quote(n.description) if n.description else ""}
                                 for n in bgp.neighbors), key=lambda n: ip_key(n["ip"])),
            "networks": list(dict.fromkeys(bgp.networks)),
        },
    }


# --- reading a command list back ---------------------------------------------------------------

def _matches(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(p == "*" or p == t for t, p in zip(path, pattern, strict=True))


def is_set_leaf(path: tuple[str, ...]) -> bool:
    """True when ``path`` (a command minus its last token) names a set-valued NVUE collection.

    >>> is_set_leaf(("qos", "pfc", "default-global", "switch-priority"))
    True
    >>> is_set_leaf(("qos", "mapping", "default-global", "dscp", "26", "switch-priority"))
    False
    """
    return any(_matches(path, pattern) for pattern in SET_LEAVES)


def expand_lists(tokens: list[str]) -> list[tuple[str, ...]]:
    """Expand comma lists (``traffic-class 4,5,7``) in identifier positions into one command each.

    The last token of a scalar leaf is a value and is left alone; numeric or interface *ranges*
    (``swp1-4``) are not expanded, so compare commands written the same way (the templates never
    use lists or ranges).
    """
    out: list[tuple[str, ...]] = [()]
    last = len(tokens) - 1
    for i, tok in enumerate(tokens):
        choices = tok.split(",") if "," in tok and (i < last or is_set_leaf(tuple(tokens[:-1]))) else [tok]
        out = [(*prefix, c) for prefix in out for c in choices]
    return out


def nv_set_commands(lines: list[str]) -> list[tuple[str, ...]]:
    """The ``nv set`` commands of ``lines`` as token tuples without ``nv set`` (comma lists expanded).

    Blank lines and ``#`` comments are skipped; anything else that is not ``nv set`` is an error.

    >>> nv_set_commands(["nv set system hostname leaf1", "", "# x", "nv set interface swp1 description 'a b'"])
    [('system', 'hostname', 'leaf1'), ('interface', 'swp1', 'description', 'a b')]
    """
    out: list[tuple[str, ...]] = []
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        tokens = shlex.split(stripped)
        if tokens[:2] != ["nv", "set"] or len(tokens) < 3:
            raise ValueError(f"line {number}: not an 'nv set' command: {line!r}")
        out.extend(expand_lists(tokens[2:]))
    return out


def nv_set_paths(lines: list[str]) -> dict[tuple[str, ...], set[str]]:
    """Path -> values: a scalar leaf maps to its value(s), a set-valued collection to its members.

    A command that is a strict prefix of another command (``nv set qos roce`` next to
    ``nv set qos roce mode lossless``) only creates an object and is left out.

    >>> paths = nv_set_paths(["nv set qos pfc default-global switch-priority 3",
    ...                       "nv set qos pfc default-global switch-priority 4", "nv set qos roce",
    ...                       "nv set qos roce mode lossless"])
    >>> sorted((" ".join(k), sorted(v)) for k, v in paths.items())
    [('qos pfc default-global switch-priority', ['3', '4']), ('qos roce mode', ['lossless'])]
    """
    commands = nv_set_commands(lines)
    prefixes = {cmd[:i] for cmd in commands for i in range(1, len(cmd))}
    paths: dict[tuple[str, ...], set[str]] = {}
    for cmd in commands:
        if cmd in prefixes:
            continue
        paths.setdefault(cmd[:-1], set()).add(cmd[-1])
    return paths


def nv_set_conflicts(lines: list[str]) -> list[str]:
    """Problems in an ``nv set`` command list, as sorted messages; empty means clean.

    Rule: a command's *path* is the command minus its last token, the last token is the value.
    * **duplicate** - the same command (after comma-list expansion) appears twice;
    * **conflict** - the same path is given two different values, unless the path is a set-valued
      NVUE collection (``SET_LEAVES``: PFC ``switch-priority``, interface ``ip address``, BGP
      ``network``, ...), where several members are legitimate. A command that is a strict prefix of
      another one only creates an object and cannot conflict.

    >>> nv_set_conflicts(["nv set qos pfc default-global switch-priority 3",
    ...                   "nv set qos pfc default-global switch-priority 4"])
    []
    >>> nv_set_conflicts(["nv set interface swp1 link mtu 9216", "nv set interface swp1 link mtu 1500",
    ...                   "nv set system hostname a", "nv set system hostname a"])
    ["conflict: 'interface swp1 link mtu' set to '1500', '9216'", "duplicate: 'system hostname a' (2x)"]
    """
    commands = nv_set_commands(lines)
    problems = [f"duplicate: {' '.join(cmd)!r} ({n}x)" for cmd, n in Counter(commands).items() if n > 1]
    for path, values in nv_set_paths(lines).items():
        if len(values) > 1 and not is_set_leaf(path):
            problems.append(f"conflict: {' '.join(path)!r} set to {', '.join(repr(v) for v in sorted(values))}")
    return sorted(problems)
