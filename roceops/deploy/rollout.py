"""Rollout order: canaries first, then batches that limit the blast radius. Pure.

Rules for every batch (canaries included):
- never switches of two planes at once (planes: 2 or 4);
- never every leaf of one rail (in one plane), never every spine or every core of a plane,
  unless that group has a single member (then it cannot be avoided);
- hosts are spread: never every host behind one leaf at once when there is more than one.

Devices that do not fit the current batch move to the next one, in their original order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from roceops.topology.fabric import Host, Switch

Device = Switch | Host


@dataclass(frozen=True)
class Rollout:
    canary: list[str]
    batches: list[list[str]]

    @property
    def waves(self) -> list[list[str]]:
        return ([self.canary] if self.canary else []) + self.batches


def _groups(dev: Device) -> list[tuple[str, ...]]:
    """Redundancy groups a device belongs to: a batch must never hold every member of one."""
    if isinstance(dev, Switch):
        if dev.role == "leaf":
            return [("leaf", str(dev.plane), str(dev.rail))]
        return [(dev.role, str(dev.plane))]
    return [("hosts-behind", n.leaf) for n in dev.nics[:1]]


BATCH = re.compile(r"\d+|\d+(?:\.\d+)?%")


def batch_size(total: int, batch: str | None) -> int:
    """``--batch 10`` or ``--batch 25%`` (of ``total``); default: everything at once, subject to the rules."""
    if not batch:
        return max(total, 1)
    text = batch.strip()
    if not BATCH.fullmatch(text):
        raise ValueError(f"--batch {batch!r} is not a device count or a percentage, like 10 or 25%")
    if text.endswith("%"):
        pct = float(text[:-1])
        if not 0 < pct <= 100:
            raise ValueError(f"--batch {batch}: percentage must be in (0, 100]")
        return max(1, math.ceil(total * pct / 100))
    size = int(text)
    if size < 1:
        raise ValueError(f"--batch {batch}: must be at least 1")
    return size


def _canary_order(devices: Sequence[Device]) -> list[Device]:
    """Round-robin over platforms so a canary wave exercises every platform in the rollout early."""
    by_platform: dict[str, list[Device]] = {}
    for d in devices:
        by_platform.setdefault(d.platform, []).append(d)
    queues = list(by_platform.values())
    out: list[Device] = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


def plan_rollout(devices: Sequence[Device], canary: int = 0, batch: str | None = None) -> Rollout:
    sizes: Counter[tuple[str, ...]] = Counter(g for d in devices for g in _groups(d))
    pending = _canary_order(devices) if canary else list(devices)
    waves: list[list[str]] = []
    limits = [canary] if canary else []
    bsize = batch_size(max(len(devices) - canary, 1), batch)
    while pending:
        limit = limits.pop(0) if limits else bsize
        wave, rest = _fill(pending, limit, sizes)
        waves.append([d.name for d in wave])
        pending = rest
        if canary and len(waves) == 1:
            order = {d.name: i for i, d in enumerate(devices)}
            pending.sort(key=lambda d: order[d.name])
    if canary:
        return Rollout(canary=waves[0], batches=waves[1:])
    return Rollout(canary=[], batches=waves)


def _fill(pending: list[Device], limit: int, sizes: Counter[tuple[str, ...]]) -> tuple[list[Device], list[Device]]:
    taken: list[Device] = []
    rest: list[Device] = []
    in_wave: Counter[tuple[str, ...]] = Counter()
    planes: set[int] = set()
    for dev in pending:
        groups = _groups(dev)
        fits = len(taken) < limit
        if fits and isinstance(dev, Switch) and planes and dev.plane not in planes:
            fits = False
        if fits and any(sizes[g] > 1 and in_wave[g] + 1 >= sizes[g] for g in groups):
            fits = False
        if fits:
            taken.append(dev)
            in_wave.update(groups)
            if isinstance(dev, Switch):
                planes.add(dev.plane)
        else:
            rest.append(dev)
    if not taken:  # cannot happen with limit >= 1 (a lone device always fits); keep the loop finite anyway
        taken, rest = rest[:1], rest[1:]
    return taken, rest
