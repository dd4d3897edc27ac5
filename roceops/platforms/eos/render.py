"""Arista EOS rendering: the render context for ``templates/eos/`` and small pure helpers.

Every EOS-specific naming or unit decision lives here, not in the templates:

* Interface order is natural (``Ethernet2/1`` before ``Ethernet10/1``), like ``show running-config``.
* ``qos map dscp ... to traffic-class N``: one line per traffic class, listing *all* DSCPs of
  ``SwitchQos.dscp_to_tc`` (all 64), so EOS's built-in DSCP->TC table (DSCP/8, unconfirmed) never
  decides where a codepoint lands. ``qos map traffic-class N to tx-queue M`` only where N != M.
* Speed keywords: EOS names a speed together with its lane count. A switch whose model names a hardware
  profile (``roceops/hardware/model_catalogue/<model>.json``) takes the profile's keyword (7060X6: 400G is
  ``400g-4``, 4 of the 800G cage's 100G lanes; 7060X5: ``400g-8``); without a profile ``SPEED_KEYWORDS``
  (``400g-8``) is used. Each profile keyword cites its source in the profile.
* Scheduling per ``tx-queue``: strict -> ``priority strict``; DWRR -> ``no priority`` +
  ``bandwidth percent W`` (AVD's tx-queue schema uses exactly these two priority spellings; EOS
  queues default to strict priority, so DWRR has to say ``no priority`` explicitly).
* ECN: ``random-detect ecn minimum-threshold <min> kbytes maximum-threshold <max> kbytes
  max-mark-probability <p>``; kbytes = round-half-up(bytes / 1024), at least 1. ``kbytes`` is the
  only byte unit seen in rendered EOS configs (``bytes``/``mbytes`` are unconfirmed), so it is
  used for every value. ``random-detect ecn count`` enables the per-queue mark counters audit reads.
* PFC watchdog timers are seconds with decimals (``200`` ms -> ``0.2``); action mapping
  (``WATCHDOG_ACTIONS``): drop -> ``drop``; forward -> ``no-drop`` (keep forwarding the stuck
  queue instead of discarding it); alert -> ``no-drop`` as well, because EOS has no detect-only
  action (unconfirmed) and ``no-drop`` is the least disruptive one that still logs the event.
  Timers are rendered as the intent says; EOS reportedly wants polling-interval <= min(timeout,
  recovery-time) / 2 and substitutes its own value otherwise (third-party, unconfirmed) - a policy
  check, not something the renderer should silently change.
* Queue keyword (:func:`queue_keyword`): the hardware profile's (``uc-tx-queue`` on the XGS 7060X5/7060X6 with
  split unicast/multicast egress queues, ``tx-queue`` on the Sand/VOQ 7800R3), each with its source in the profile.
  AVD models both (eos_cli_config_gen ``ethernet-interface-tx-queues.j2`` and ``ethernet-interface-uc-tx-queues.j2``
  @ a3def43, same body, only the keyword differs) and leaves the choice to the user. No profile: ``tx-queue``.
* A profile that confirms no ECN or PFC watchdog syntax (7800R3: VOQ-based ECN, see its profile) is refused by lint
  (HW027) and by :func:`render_context` rather than rendered with a guessed spelling.
* MTU: at most ``MAX_MTU`` = 9214 (or the profile's ``mtu.max``, also 9214), the jumbo MTU public EOS configs and
  AVD's ``p2p_uplinks_mtu`` default use (EOS's exact maximum per platform is unconfirmed); a fabric's 9216 is
  rendered 9214 and audited as 9214 (lint HW024 says so).
* Interfaces say ``no shutdown``/``shutdown`` explicitly (as AVD does), so a merge also re-enables ports.
* BGP ``maximum-paths``: SwitchIntent has no ECMP width; ``MAXIMUM_PATHS`` (64) is used. EOS's
  default is 1, which would silently disable ECMP on a spine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from roceops.device.intent import QueueIntent, SwitchIntent, SwitchPort
from roceops.hardware.model_profiles import ModelProfile, find_model_profile
from roceops.util.sorting import ip_key, port_key, quad_bytes

LOOPBACK = "Loopback0"
MAX_MTU = 9214
MAXIMUM_PATHS = 64
SPEED_KEYWORDS: dict[int, str] = {
    10_000: "10gfull",
    25_000: "25gfull",
    40_000: "40gfull",
    50_000: "50gfull",
    100_000: "100gfull",
    200_000: "200g-4",
    400_000: "400g-8",
    800_000: "800g-8",
}
WATCHDOG_ACTIONS: dict[str, str] = {"drop": "drop", "forward": "no-drop", "alert": "no-drop"}
TRUST: dict[str, str] = {"dscp": "dscp"}
ECN_UNIT = "kbytes"


_DIGITS = re.compile(r"(\d+)")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}")  # canonical dotted quad: no leading zeros


def seconds(ms: int) -> str:
    """Milliseconds as EOS watchdog seconds, always with a decimal point.

    >>> [seconds(v) for v in (200, 50, 1000, 1220, 10001, 5)]
    ['0.2', '0.05', '1.0', '1.22', '10.001', '0.005']
    """
    frac = f"{ms % 1000:03d}".rstrip("0") or "0"
    return f"{ms // 1000}.{frac}"


def kbytes(value: int) -> int:
    """Bytes to EOS ``kbytes`` (1024), rounded half up, never 0.

    >>> kbytes(153600), kbytes(1536000), kbytes(1000), kbytes(100)
    (150, 1500, 1, 1)
    """
    return max(1, (value + 512) // 1024)


def eos_mtu(mtu: int) -> int:
    """The MTU EOS is given: the intent's, capped at :data:`MAX_MTU`.

    >>> eos_mtu(9216), eos_mtu(9100), eos_mtu(1500)
    (9214, 9100, 1500)
    """
    return min(mtu, MAX_MTU)


def eos_profile(hwsku: str | None) -> ModelProfile | None:
    """The EOS hardware profile a switch model names (``hwsku``), None without one."""
    profile = find_model_profile(hwsku)
    return profile if profile is not None and profile.platform == "eos" else None


def queue_keyword(hwsku: str | None) -> str:
    """The hardware profile's egress queue keyword, ``tx-queue`` without a profile.

    >>> queue_keyword("DCS-7060X6-64PE"), queue_keyword("7800R3-48CQ-LC"), queue_keyword("DCS-7280CR3-32P4")
    ('uc-tx-queue', 'tx-queue', 'tx-queue')
    """
    profile = eos_profile(hwsku)
    return profile.queues.keyword if profile else "tx-queue"


def speed_keyword(mbps: int, profile: ModelProfile | None = None) -> str:
    """The ``speed`` keyword: the profile's for that speed, else ``SPEED_KEYWORDS``'s.

    >>> speed_keyword(400_000), speed_keyword(400_000, eos_profile("DCS-7060X6-64PE"))
    ('400g-8', '400g-4')
    """
    if profile is not None:
        if (keyword := profile.speed_keyword(mbps)) is None:
            raise ValueError(f"{profile.name}'s hardware profile confirms no speed keyword for {mbps} Mb/s "
                             "(lint HW022)")
        return keyword
    try:
        return SPEED_KEYWORDS[mbps]
    except KeyError:
        raise ValueError(f"no EOS speed keyword for {mbps} Mb/s; add it to SPEED_KEYWORDS") from None


def _refuse_unconfirmed(device: SwitchIntent, profile: ModelProfile | None) -> None:
    """Raise for ECN or PFC watchdog on a profile that confirms no syntax for them (lint HW027 says it first)."""
    if profile is None:
        return
    if not profile.ecn.supported and any(q.ecn is not None for q in device.qos.queues.values()):
        raise ValueError(f"{device.name}: {profile.name} has no confirmed ECN syntax ({profile.ecn.source})")
    if not profile.pfc_watchdog.supported and device.qos.pfc_watchdog.enabled:
        raise ValueError(f"{device.name}: {profile.name} has no confirmed PFC watchdog ({profile.pfc_watchdog.source})")


def _tx_queue(qid: int, q: QueueIntent) -> dict[str, Any]:
    ecn = None
    if q.ecn is not None:
        ecn = {"min": kbytes(q.ecn.min_bytes), "max": kbytes(q.ecn.max_bytes), "unit": ECN_UNIT,
               "probability": q.ecn.probability}
    return {
        "id": qid,
        "name": q.traffic_class,
        "priority": "priority strict" if q.scheduler == "strict" else "no priority",
        "bandwidth_percent": q.weight if q.scheduler == "dwrr" else None,
        "ecn": ecn,
    }


@dataclass(frozen=True, slots=True)
class PortShape:
    """What an interface prints besides its name, description and address; few per switch, so the templates
    print each shape's lines once and every interface of that shape reuses them."""

    shutdown: bool
    mtu: int
    speed: str
    trust: str
    pfc_priorities: list[int]
    pfc_watchdog: bool


class Interface(NamedTuple):
    """One front-panel interface as the templates print it. A tuple: the templates unpack it in their ``for``
    (no attribute lookup per field, which is most of Jinja's cost); the shape's fields read as attributes."""

    name: str
    description: str
    address: str | None
    shape: int  # index into the context's ``port_shapes``
    settings: PortShape

    @property
    def shutdown(self) -> bool:
        return self.settings.shutdown

    @property
    def mtu(self) -> int:
        return self.settings.mtu

    @property
    def speed(self) -> str:
        return self.settings.speed

    @property
    def trust(self) -> str:
        return self.settings.trust

    @property
    def pfc_priorities(self) -> list[int]:
        return self.settings.pfc_priorities

    @property
    def pfc_watchdog(self) -> bool:
        return self.settings.pfc_watchdog


class Neighbor(NamedTuple):
    """One BGP neighbour as ``router_bgp.j2`` prints it (unpacked in its ``for``)."""

    ip: str
    remote_as: int
    description: str


# (speed, mtu, PFC priorities, watchdog on, profile name) -> the interface's (mtu, speed keyword, priorities,
# watchdog): the same few combinations repeat on every port of every switch, so each is worked out once
_PORT_SETTINGS: dict[tuple[Any, ...], tuple[int, str, list[int], bool]] = {}


def _port_settings(port: SwitchPort, watchdog: bool, profile: ModelProfile | None) -> tuple[int, str, list[int], bool]:
    key = (port.speed, port.mtu, tuple(port.pfc_priorities), watchdog and port.pfc_watchdog,
           profile.name if profile else None)
    if (known := _PORT_SETTINGS.get(key)) is None:
        if len(_PORT_SETTINGS) > 4096:  # bounded; a fabric has a handful of combinations
            _PORT_SETTINGS.clear()
        known = _PORT_SETTINGS[key] = (
            min(eos_mtu(port.mtu), profile.mtu.max) if profile else eos_mtu(port.mtu),
            speed_keyword(port.speed, profile),
            sorted(port.pfc_priorities),
            watchdog and port.pfc_watchdog and bool(port.pfc_priorities),
        )
    return known


def _interfaces(ports: list[SwitchPort], trust: str, watchdog: bool,
                profile: ModelProfile | None) -> tuple[list[Interface], list[PortShape]]:
    """The interfaces, and the distinct shapes they index."""
    shapes: dict[tuple[Any, ...], tuple[int, PortShape]] = {}
    out = []
    for port in ports:
        key = (port.admin_up, port.speed, port.mtu, tuple(port.pfc_priorities), port.pfc_watchdog)
        if (known := shapes.get(key)) is None:
            mtu, speed, priorities, port_watchdog = _port_settings(port, watchdog, profile)
            known = shapes[key] = (len(shapes), PortShape(not port.admin_up, mtu, speed, trust, priorities,
                                                          port_watchdog))
        out.append(Interface(port.name, port.description, port.address, *known))
    return out, [shape for _, shape in shapes.values()]


# port names in a switch's order -> their natural order (indices): every switch of a model repeats its names
_PORT_ORDER: dict[tuple[str, ...], list[int]] = {}


def _sorted_ports(ports: dict[str, SwitchPort]) -> list[SwitchPort]:
    """The ports in natural name order (:func:`port_key`, stable), the order worked out once per name list."""
    values = list(ports.values())
    names = tuple([p.name for p in values])
    if (order := _PORT_ORDER.get(names)) is None:
        if len(_PORT_ORDER) > 256:  # bounded; a fabric has a few port name lists
            _PORT_ORDER.clear()
        order = _PORT_ORDER[names] = sorted(range(len(names)), key=lambda i: port_key(names[i]))
    return [values[i] for i in order]


def _neighbor_key(ip: str) -> tuple[int, Any]:
    """:func:`ip_key`'s order: a canonical dotted quad (one ``inet_ntoa`` gives back) as its four bytes, the same
    order as its integer value, IPv4 still before IPv6; anything else through :func:`ip_key`."""
    packed = quad_bytes(ip)
    return (4, packed) if packed is not None else ip_key(ip)


_DSCP_MAPS: dict[tuple[tuple[int, int], ...], list[tuple[int, list[int]]]] = {}


def _cached_dscp_maps(dscp_to_tc: dict[int, int]) -> list[tuple[int, list[int]]]:
    """:func:`dscp_maps`, worked out once per mapping (a fabric's switches share one)."""
    key = tuple(dscp_to_tc.items())
    if (maps := _DSCP_MAPS.get(key)) is None:
        if len(_DSCP_MAPS) > 64:
            _DSCP_MAPS.clear()
        maps = _DSCP_MAPS[key] = dscp_maps(dscp_to_tc)
    return maps


def dscp_maps(dscp_to_tc: dict[int, int]) -> list[tuple[int, list[int]]]:
    """``[(tc, [dscp, ...]), ...]`` sorted by TC, DSCPs ascending.

    >>> dscp_maps({0: 0, 26: 3, 1: 0, 48: 6})
    [(0, [0, 1]), (3, [26]), (6, [48])]
    """
    by_tc: dict[int, list[int]] = {}
    for dscp, tc in sorted(dscp_to_tc.items()):
        by_tc.setdefault(tc, []).append(dscp)
    return sorted(by_tc.items())


def render_context(device: Any) -> dict[str, Any]:
    """Template variables for one EOS switch (see the module docstring for every naming decision)."""
    if not isinstance(device, SwitchIntent):
        raise TypeError(f"EOS renders switches only, got {type(device).__name__}")
    profile = eos_profile(device.hwsku)
    _refuse_unconfirmed(device, profile)
    qos = device.qos
    trust = TRUST[qos.trust]
    wd = qos.pfc_watchdog
    watchdog = None
    if wd.enabled:
        watchdog = {"timeout": seconds(wd.detect_ms), "recovery_time": seconds(wd.restore_ms),
                    "polling_interval": seconds(wd.poll_ms), "action": WATCHDOG_ACTIONS[wd.action]}
    ports = _sorted_ports(device.ports)
    bgp = device.bgp
    interfaces, shapes = _interfaces(ports, trust, wd.enabled, profile)
    return {
        "hostname": device.name,
        "nos_version": device.nos_version,  # the fabric's release (None: not pinned)
        "tx_queue_keyword": profile.queues.keyword if profile else "tx-queue",
        "dscp_maps": _cached_dscp_maps(qos.dscp_to_tc),
        "tc_queue_maps": [(tc, q) for tc, q in sorted(qos.tc_to_queue.items()) if tc != q],
        "watchdog": watchdog,
        "interfaces": interfaces,
        "port_shapes": shapes,
        "tx_queues": [_tx_queue(qid, q) for qid, q in sorted(qos.queues.items())],  # the same on every interface
        "loopback": {"name": LOOPBACK, "address": device.loopback},
        "bgp": {
            "asn": bgp.asn,
            "router_id": bgp.router_id,
            "maximum_paths": MAXIMUM_PATHS,
            "neighbors": [Neighbor(n.ip, n.remote_asn, n.description)
                          for n in sorted(bgp.neighbors, key=lambda n: _neighbor_key(n.ip))],
            "networks": list(dict.fromkeys(bgp.networks)),
        },
    }


def config_lines(text: str, *, with_exits: bool = True) -> list[str]:
    """The rendered config as the ordered command list a configuration session is fed.

    Comment/separator lines (``!``) and blank lines are dropped and indentation is stripped.
    With ``with_exits`` an ``exit`` is inserted each time the indentation goes back up a level, so
    the list replays correctly even where a sub-mode would accept the next command itself.

    >>> config_lines("hostname a\\n!\\ninterface Et1\\n   tx-queue 3\\n      priority strict\\n!\\nip routing\\n")
    ['hostname a', 'interface Et1', 'tx-queue 3', 'priority strict', 'exit', 'exit', 'ip routing']
    >>> config_lines("interface Et1\\n   mtu 9214\\nip routing\\n", with_exits=False)
    ['interface Et1', 'mtu 9214', 'ip routing']
    """
    out: list[str] = []
    stack: list[int] = []  # indentation of the current line and its open parent sections
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        popped = 0
        while stack and stack[-1] >= indent:
            stack.pop()
            popped += 1
        if with_exits and popped > 1:
            # the first popped entry is the previous line (a leaf); every other one is a section being left
            out.extend(["exit"] * (popped - 1))
        stack.append(indent)
        out.append(stripped)
    return out
