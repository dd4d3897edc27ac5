"""NVUE spelling by release: Cumulus Linux 5.15 renamed the leaves roceops writes, 5.16 kept 5.15's.

Source: CumulusNetworks/docs ``content/cumulus-linux-515/Whats-New/New-and-Changed-NVUE-Commands.md`` @
07d58d4b2ae2bd3864171785ca7a10c1f5dfd950, "Changes to Command Syntax" ("CL5.14.0 and Earlier" -> "CL5.15 and
Later"): ``nv set qos roce enable on|off`` -> ``qos roce state enabled|disabled``; ``router bgp enable``,
``vrf <vrf> router bgp enable``, ``... address-family ipv4-unicast enable``, ``... redistribute connected enable``,
``router adaptive-routing enable`` and ``interface <id> router adaptive-routing enable`` likewise -> ``state
enabled|disabled``; ``path-selection multipath aspath-ignore`` and ``system forwarding ecmp-hash <field>`` take
``enabled|disabled`` for ``on|off``; ``interface <id> ip address`` -> ``interface <id> ipv4 address``. Cumulus
Linux 5.16 changes none of these (``content/cumulus-linux-516/Whats-New/New-and-Removed-NVUE-Commands.md`` @
0da900a55a8e06ad94ce02b8d0b9c3d0359a863f lists only new and removed commands). Unchanged in 5.15 (not in that
table): ``qos pfc <profile> tx|rx enable``, ``qos congestion-control ... ecn enable|disable`` and ``interface
<id> qos pfc-watchdog state enable``.

:func:`spelling` gives the render its words; :func:`canonical_paths` turns an applied config read from a 5.15+
switch into the <= 5.14 paths the observers read, so one observer reads both shapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STATE_RELEASE = (5, 15)  # the first release with `state enabled|disabled`


@dataclass(frozen=True, slots=True)
class Spelling:
    """The words one release uses: ``enable_on`` (a feature's switch), ``on``/``off`` (a boolean), ``ip``."""

    enable_on: str
    on: str
    off: str
    ip: str


LEGACY = Spelling(enable_on="enable on", on="on", off="off", ip="ip")
STATE = Spelling(enable_on="state enabled", on="enabled", off="disabled", ip="ipv4")


def uses_state(nos_version: str | None) -> bool:
    """Whether release ``nos_version`` spells switches ``state enabled`` (5.15 and later).

    >>> uses_state("5.14"), uses_state("5.15"), uses_state("5.16.1"), uses_state(None), uses_state("6.0")
    (False, True, True, False, True)
    """
    if nos_version is None:
        return False
    parts = tuple(int(n) for n in re.findall(r"\d+", nos_version)[:2])
    return parts >= STATE_RELEASE


def spelling(nos_version: str | None) -> Spelling:
    return STATE if uses_state(nos_version) else LEGACY


# parents of a switch leaf renamed `enable` -> `state` ("*" is any one token)
_STATE_PARENTS: tuple[tuple[str, ...], ...] = (
    ("qos", "roce"), ("router", "bgp"), ("vrf", "*", "router", "bgp"),
    ("vrf", "*", "router", "bgp", "address-family", "*"),
    ("vrf", "*", "router", "bgp", "address-family", "*", "redistribute", "connected"),
    ("router", "adaptive-routing"), ("interface", "*", "router", "adaptive-routing"),
)
# leaves whose on|off values became enabled|disabled (path unchanged)
_BOOLEAN_LEAVES: tuple[tuple[str, ...], ...] = (
    ("vrf", "*", "router", "bgp", "path-selection", "multipath", "aspath-ignore"),
    ("system", "forwarding", "ecmp-hash", "*"),
)
_VALUES = {"enabled": "on", "disabled": "off"}


def _matches(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(p in ("*", t) for t, p in zip(path, pattern, strict=True))


def canonical_path(path: tuple[str, ...], values: set[str]) -> tuple[tuple[str, ...], set[str]]:
    """One applied-config path and its values in the <= 5.14 spelling (unchanged when already so).

    >>> canonical_path(("qos", "roce", "state"), {"enabled"})
    (('qos', 'roce', 'enable'), {'on'})
    >>> canonical_path(("interface", "swp1", "ipv4", "address"), {"10.1.0.0/31"})
    (('interface', 'swp1', 'ip', 'address'), {'10.1.0.0/31'})
    >>> canonical_path(("system", "forwarding", "ecmp-hash", "source-ip"), {"disabled"})
    (('system', 'forwarding', 'ecmp-hash', 'source-ip'), {'off'})
    """
    if path and path[-1] == "state" and any(_matches(path[:-1], p) for p in _STATE_PARENTS):
        return (*path[:-1], "enable"), {_VALUES.get(v, v) for v in values}
    if any(_matches(path, p) for p in _BOOLEAN_LEAVES):
        return path, {_VALUES.get(v, v) for v in values}
    if len(path) == 4 and path[0] == "interface" and path[2:] == ("ipv4", "address"):
        return (path[0], path[1], "ip", "address"), values
    return path, values


def canonical_paths(paths: dict[tuple[str, ...], set[str]]) -> dict[tuple[str, ...], set[str]]:
    """:func:`canonical_path` of every path of an applied config (``parsers.config_paths``); a config with no
    5.15 word (no ``enabled``/``disabled`` value, no ``ipv4`` address) is returned as it is."""
    if not any(not values.isdisjoint(_VALUES) or (len(path) == 4 and path[2] == "ipv4")
               for path, values in paths.items()):
        return paths
    out: dict[tuple[str, ...], set[str]] = {}
    for path, values in paths.items():
        key, vals = canonical_path(path, values)
        out.setdefault(key, set()).update(vals)
    return out
