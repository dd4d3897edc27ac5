"""``--limit`` expressions: pick devices by name, glob or group.

Grammar: terms separated by commas are a union; inside a term, parts joined by
``&`` must all match; a term starting with ``!`` removes devices. A part is a
device name, a shell glob (``leaf-su1-*``) or a group: role (``leaf``,
``spine``, ``core``, ``host``), platform (``sonic``...), ``su2``, ``rail3``,
``plane1``, ``pod1``.

>>> parse_limit("leaf&su1,spine01,!leaf-su1-r8")
[(False, ['leaf', 'su1']), (False, ['spine01']), (True, ['leaf-su1-r8'])]
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar


class Selectable(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def groups(self) -> list[str]: ...


class LimitError(ValueError):
    """A --limit part that matches nothing; the message suggests close names."""


def parse_limit(expr: str) -> list[tuple[bool, list[str]]]:
    terms: list[tuple[bool, list[str]]] = []
    for raw in expr.split(","):
        term = raw.strip()
        if not term:
            continue
        negate = term.startswith("!")
        parts = [p.strip() for p in term.lstrip("!").split("&") if p.strip()]
        if parts:
            terms.append((negate, parts))
    return terms


def _matches(part: str, name: str, groups: Sequence[str]) -> bool:
    if any(ch in part for ch in "*?["):
        return fnmatch.fnmatchcase(name, part)
    return part == name or part in groups


T = TypeVar("T", bound="Selectable")


def select(devices: Iterable[T], expr: str | None) -> list[T]:
    """Devices matching ``expr`` in their original order; everything when ``expr`` is None (no --limit).

    A given but blank expression (``--limit ''``, ``--limit ','``) is an error, never "everything".
    """
    items = list(devices)
    if expr is None:
        return items
    terms = parse_limit(expr)
    if not terms:
        raise LimitError(f"--limit {expr!r} names no device; leave --limit out to select every device")
    known = {d.name for d in items} | {g for d in items for g in d.groups}
    for _neg, parts in terms:
        for part in parts:
            if not any(_matches(part, d.name, d.groups) for d in items):
                hint = difflib.get_close_matches(part, sorted(known), n=3)
                more = f"; did you mean {', '.join(hint)}?" if hint else ""
                raise LimitError(f"--limit {part!r} matches no device or group{more}")
    chosen: list[T] = []
    include = [parts for neg, parts in terms if not neg]
    exclude = [parts for neg, parts in terms if neg]
    for d in items:
        groups = d.groups
        picked = any(all(_matches(p, d.name, groups) for p in parts) for parts in include) if include else True
        if picked and not any(all(_matches(p, d.name, groups) for p in parts) for parts in exclude):
            chosen.append(d)
    return chosen
