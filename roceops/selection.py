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
    """The terms of ``expr``; LimitError for an operator with nothing on one side (``leaf&``, ``leaf,``, ``!``).

    An expression of nothing but blanks and commas is no terms at all (the caller says it names no device).
    """
    if not expr.replace(",", "").strip():
        return []
    terms: list[tuple[bool, list[str]]] = []
    for raw in expr.split(","):
        term = raw.strip()
        if not term:
            raise LimitError(f"--limit {expr!r}: a ',' with no term on one side; drop it or name a device or group")
        negate = term.startswith("!")
        body = term[1:] if negate else term
        if not body.strip():
            raise LimitError(f"--limit {expr!r}: '!' excludes nothing; follow it with a device or group (!leaf-su1-r8)")
        parts = [p.strip() for p in body.split("&")]
        if not all(parts):
            raise LimitError(f"--limit {expr!r}: an '&' with nothing on one side; intersect two groups (leaf&su1)")
        terms.append((negate, parts))
    return terms


def empty_reason(expr: str) -> str:
    """Why a valid ``expr`` whose every part matches something still selects no device, in words."""
    terms = parse_limit(expr)
    if any(neg for neg, _parts in terms):
        return "every match is excluded"
    empty = [" & ".join(parts) for _neg, parts in terms if len(parts) > 1]
    return "; ".join(f"the intersection {term} is empty (no device is in all of them)" for term in empty)


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
