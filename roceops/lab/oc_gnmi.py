"""Serving OpenConfig leaves from a simulated switch's own table (the lab never reads the product's paths).

A lab device's table lists leaves as path templates with placeholders for their list keys, e.g.
``interfaces/interface[name={port}]/state/counters/carrier-transitions``, an enumerator of the second key
(``{i}``: priorities, queues) and the value's source in the device state. A subscription path matches a leaf when
its element names are the leaf's (or a prefix of them, a container) and each key is ``*`` or the leaf's value.
Values are JSON_IETF: uint64 counters as strings (RFC 7951 section 6.1)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

Elems = list[tuple[str, dict[str, str]]]  # a path: (element name, its keys) per element
_ELEM = re.compile(r"([^/\[]+)((?:\[[^\]]*\])*)")
_KEY = re.compile(r"\[([^=\]]+)=([^\]]*)\]")


def parse(template: str) -> Elems:
    """``a/b[k={port}]/c`` -> [("a", {}), ("b", {"k": "{port}"}), ("c", {})]."""
    return [(m.group(1), dict(_KEY.findall(m.group(2)))) for m in _ELEM.finditer(template.strip("/"))]


@cache
def _parsed(template: str) -> Elems:
    return parse(template)


@dataclass(frozen=True)
class LabLeaf:
    template: str  # keys as {port} and {i}
    value: Callable[[Any, str, str], int]  # (state, port, i) -> counter
    indexes: Callable[[Any, str], Iterable[str]] = lambda state, port: ("",)  # the {i} of a port ("" for none)


def _fits(pattern: dict[str, str], wanted: dict[str, str], port: str, i: str) -> bool:
    for key, placeholder in pattern.items():
        asked = wanted.get(key, "*")
        if asked != "*" and asked != placeholder.format(port=port, i=i):
            return False
    return True


def leaves(table: tuple[LabLeaf, ...], state: Any, ports: list[str], request: Elems) -> Iterator[tuple[Elems, str]]:
    """(path, JSON value) of every leaf of ``table`` under ``request`` (none while a list is empty, e.g. the
    watchdog's queues before a storm); LookupError when the request names no leaf of the table."""
    found = False
    for leaf in table:
        elems = _parsed(leaf.template)
        if len(request) > len(elems) or any(r[0] != e[0] for r, e in zip(request, elems, strict=False)):
            continue
        found = True
        for port in ports:
            for i in leaf.indexes(state, port):
                if not all(_fits(e[1], r[1], port, i) for r, e in zip(request, elems, strict=False)):
                    continue
                path = [(n, {k: v.format(port=port, i=i) for k, v in keys.items()}) for n, keys in elems]
                yield path, str(leaf.value(state, port, i))
    if not found:
        raise LookupError(f"{'/'.join(n for n, _ in request)}: no such path")


EIGHT = tuple(str(i) for i in range(8))


def eight(state: Any, port: str) -> tuple[str, ...]:
    """Priorities or queues 0-7."""
    return EIGHT
