"""Decoding OpenConfig leaf updates (the gNMI of Cumulus Linux and Arista EOS) into neutral readings, from a room's
table of leaves. A room lists, per leaf it reads, the subscription path (list keys wildcarded), the metric, which
path keys become which labels, and fixed labels; this module matches an update's path to its leaf and applies the
room's :class:`~roceops.platforms.gnmi_paths.Interest` (zero counters of lossy priorities/queues are skipped)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from roceops.platforms.gnmi_paths import GnmiPaths, Interest, Reading, keyless

_KEY = re.compile(r"\[([^=\]]+)=([^\]]*)\]")


@dataclass(frozen=True)
class Leaf:
    path: str  # subscription path, keys wildcarded: interfaces/interface[name=*]/state/counters/carrier-transitions
    metric: str  # roceops.monitoring.metrics name without the prefix
    keys: tuple[tuple[str, str], ...]  # (label, path key): ("port", "name")
    fixed: tuple[tuple[str, str], ...] = ()  # labels of the leaf itself: ("direction", "rx")
    only: tuple[tuple[str, str], ...] = ()  # path keys that must hold these values: ("queue-type", "UNICAST")


def _number(value: Any) -> float | None:
    """A counter's value: JSON_IETF encodes uint64 as a string (RFC 7951 section 6.1), other encodings a number."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _keep(labels: dict[str, str], value: float, want: Interest) -> tuple[bool, bool]:
    """(export it, lossless): zero counters only of the lossless priorities and queues."""
    if "priority" in labels:
        lossless = labels["priority"].isdigit() and int(labels["priority"]) in want.priorities
    elif "queue" in labels:
        lossless = labels["queue"].isdigit() and int(labels["queue"]) in want.queues
    else:
        return True, False
    return (lossless or value != 0), lossless


def decoder(leaves: tuple[Leaf, ...]) -> Any:
    """The ``decode`` of a :class:`GnmiPaths` for ``leaves``."""
    by_path = {keyless(leaf.path): leaf for leaf in leaves}

    def decode(path: str, value: Any, want: Interest = Interest()) -> Iterator[Reading]:
        leaf = by_path.get(keyless(path))
        n = _number(value)
        if leaf is None or n is None:
            return
        keys = dict(_KEY.findall(path))
        if any(keys.get(k) != v for k, v in leaf.only):
            return
        labels = {label: keys.get(key, "") for label, key in leaf.keys}
        keep, lossless = _keep(labels, n, want)
        if not keep:
            return
        pairs = [*labels.items(), *leaf.fixed]
        if leaf.metric == "queue_drops_total":
            pairs.append(("lossless", "true" if lossless else "false"))
        yield Reading(leaf.metric, tuple(pairs), n)

    return decode


def gnmi_paths(leaves: tuple[Leaf, ...], default_port: int) -> GnmiPaths:
    """A room's GNMI object from its leaf table (no target: OpenConfig paths carry none)."""
    return GnmiPaths(target="", paths=tuple(leaf.path for leaf in leaves), default_port=default_port,
                     decode=decoder(leaves), leaves=True)
