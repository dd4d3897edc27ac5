"""What the page is drawn from: one :class:`Item` per result that is not ok (device, check, path, the status it
gives its device on the map, expected, observed, message, fix hint) and the run's :class:`RunMeta`.
``adapters.py`` builds them from a run's :class:`~roceops.report.result.Result` list and its Run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Status = Literal["ok", "drift", "fail", "drain", "unreachable", "unknown"]
STATUSES: tuple[Status, ...] = ("ok", "drift", "fail", "drain", "unreachable", "unknown")

# worst wins when a device (or a collapsed group) has several: a device we could not read outranks any finding
RANK: dict[str, int] = {"ok": 0, "unknown": 1, "drift": 2, "drain": 3, "fail": 4, "unreachable": 5}

@dataclass(frozen=True, slots=True)
class Item:
    """One finding as the report shows it. ``status`` is what it makes its device (``ok`` for a note, e.g. a health
    warning that never drains). A plain slotted dataclass: built only by the adapters from validated results, and a
    fabric-wide drift has tens of thousands."""

    device: str
    check: str
    status: Status
    path: str = ""
    expected: Any = None
    observed: Any = None
    severity: str = "fail"  # the Result's own status: fail, warn, error (not checked), unknown
    message: str = ""
    hint: str = ""


class RunMeta(BaseModel):
    """The run a report describes. ``scope``: the devices the run checked (others are drawn as not checked)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str  # the command: audit, health, verify routing (or a merge of their shards)
    fabric: str
    command: str
    started: str  # ISO 8601, UTC
    seconds: float
    exit_code: int
    verdict: str
    scope: tuple[str, ...]


def plural(n: int, word: str) -> str:
    """``1 device``, ``2 devices``.

    >>> plural(1, "finding"), plural(3, "device")
    ('1 finding', '3 devices')
    """
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def worst(statuses: Iterable[str]) -> Status:
    """The worst of ``statuses`` (``ok`` for none).

    >>> worst(["ok", "drift", "unknown"])
    'drift'
    >>> worst([])
    'ok'
    """
    best: Status = "ok"
    for s in statuses:
        if RANK[s] > RANK[best]:
            best = s  # type: ignore[assignment]
    return best


def device_statuses(items: Iterable[Item], scope: Iterable[str]) -> dict[str, Status]:
    """Each device in ``scope`` (or named by an item) with its worst item's status; ``ok`` with none.

    >>> device_statuses([Item(device="a", check="c", status="drift")], ["a", "b"])
    {'a': 'drift', 'b': 'ok'}
    """
    out: dict[str, Status] = dict.fromkeys(scope, "ok")
    for item in items:
        if RANK[item.status] > RANK[out.get(item.device, "ok")]:
            out[item.device] = item.status
        else:
            out.setdefault(item.device, "ok")
    return out
