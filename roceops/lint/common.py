"""Small helpers shared by the rule modules: policies with their intent paths, names, numbers."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Sequence

from roceops.model.intent import FabricIntent, Settings
from roceops.model.qos import DcqcnPolicy, EcnPolicy, PfcWatchdog
from roceops.topology.fabric import Host, Switch

# Frame overhead on top of an L3 (netdev) MTU: Ethernet header 14 B + FCS 4 B. Fabric ports are routed and
# untagged; an 802.1Q tag would add VLAN_TAG more. Switch MTU must be >= host MTU + L2_OVERHEAD.
L2_OVERHEAD = 18
VLAN_TAG = 4
# RoCEv2 headers around one IB-MTU payload: Ethernet 14 + IPv4 20 + UDP 8 + IB BTH 12 + ICRC 4 = 58 B.
# Host MTU must be >= RoCE MTU + ROCE_OVERHEAD (4096 + 58 = 4154).
ROCE_OVERHEAD = 58


def overrides(intent: FabricIntent) -> Iterator[tuple[str, Settings]]:
    """(path, Settings) of every group and device override."""
    for name, s in intent.overrides.groups.items():
        yield f"overrides.groups.{name}", s
    for name, s in intent.overrides.devices.items():
        yield f"overrides.devices.{name}", s


def watchdogs(intent: FabricIntent) -> Iterator[tuple[str, PfcWatchdog]]:
    yield "qos.pfc_watchdog", intent.qos.pfc_watchdog
    for path, s in overrides(intent):
        if s.pfc_watchdog is not None:
            yield f"{path}.pfc_watchdog", s.pfc_watchdog


def dcqcns(intent: FabricIntent) -> Iterator[tuple[str, DcqcnPolicy]]:
    yield "qos.dcqcn", intent.qos.dcqcn
    for path, s in overrides(intent):
        if s.dcqcn is not None:
            yield f"{path}.dcqcn", s.dcqcn


def ecn_policies(intent: FabricIntent) -> Iterator[tuple[str, str, EcnPolicy]]:
    """(path, class name, policy) for every ECN profile: per class and per override."""
    for i, tc in enumerate(intent.qos.traffic_classes):
        if tc.ecn is not None:
            yield f"qos.traffic_classes[{i}].ecn", tc.name, tc.ecn
    for path, s in overrides(intent):
        for name, ecn in (s.ecn or {}).items():
            yield f"{path}.ecn.{name}", name, ecn


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """' (did you mean 'x'?)' or ''."""
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


def some(names: Sequence[str], limit: int = 3) -> str:
    """'a, b, c and 5 more'."""
    shown = ", ".join(names[:limit])
    return f"{shown} and {len(names) - limit} more" if len(names) > limit else shown


def human_bytes(n: float) -> str:
    """KB = 1,024 B, as in the intent's thresholds.

    >>> human_bytes(1_572_864), human_bytes(153_600), human_bytes(900)
    ('1.5MB', '150KB', '900B')
    """
    for unit, size in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.4g}{unit}"
    return f"{n:.0f}B"


def gbps(mbps: float) -> str:
    return f"{mbps / 1000:g}G"


def setting_source(intent: FabricIntent, dev: Switch | Host, attr: str, default: str) -> str:
    """Path of the override that gave ``dev`` its value of ``attr``, or ``default`` when none did."""
    value = getattr(dev.settings, attr)
    device = intent.overrides.devices.get(dev.name)
    if device is not None and getattr(device, attr) is not None:
        return f"overrides.devices.{dev.name}.{attr}"
    for group in reversed(dev.groups):
        s = intent.overrides.groups.get(group)
        if s is not None and getattr(s, attr) == value:
            return f"overrides.groups.{group}.{attr}"
    return default
