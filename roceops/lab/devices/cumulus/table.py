"""NVUE's text tables for the lab's Cumulus switch: :func:`kv_table`, :func:`sub_table`, and :class:`Layout` for the
per-port counter tables, whose every cell but the counter values is the same on every port.

Column widths come from the content (two spaces between columns, trailing blanks trimmed), as in the captures in
``shared/fixtures/cumulus``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from operator import itemgetter

__all__ = ["Layout", "kv_table", "sub_table"]


def kv_table(rows: Sequence[Sequence[str]], headers: Sequence[str] = ("operational", "applied")) -> list[str]:
    """NVUE's key/value table: indented keys, one column per header, widths from the content."""
    n = len(headers) + 1
    pad = ("",) * n
    cells = [tuple(r) if len(r) == n else (*r[:n], *pad[len(r):]) for r in rows]
    columns = list(zip(*cells, strict=True)) if cells else [()] * n
    widths = [max([2, *map(len, columns[0])]),
              *(max([len(h), *map(len, col)]) for h, col in zip(headers, columns[1:], strict=True))]
    fmt = "  ".join(f"%-{w}s" for w in widths)
    return [(fmt % ("", *headers)).rstrip(), "  ".join("-" * w for w in widths),
            *[(fmt % c).rstrip() for c in cells]]


def sub_table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]],
              min_widths: Sequence[int] = (), indent: int = 4) -> list[str]:
    """A titled table (``Title`` / ``=====`` / header / dashes / rows), indented by four spaces;
    ``title=None, indent=0`` gives the plain tables (``nv show interface``, ``counters errors``)."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(headers)
    widths = [max([len(h), *map(len, col), min_widths[i] if i < len(min_widths) else 1])
              for i, (h, col) in enumerate(zip(headers, columns, strict=True))]
    fmt = " " * indent + "  ".join(f"%-{w}s" for w in widths)
    out = [] if title is None else [title, "=" * (len(title) + 3)]
    out.append((fmt % tuple(headers)).rstrip())
    out.append(" " * indent + "  ".join("-" * w for w in widths))
    out += [(fmt % tuple(r)).rstrip() for r in rows]
    return out


def _single(index: int) -> Callable[[Sequence[str]], tuple[str]]:
    return lambda values: (values[index],)


def _none(values: Sequence[str]) -> tuple[str, ...]:
    return ()


_MARK = 0xE000  # slot k is drawn with chr(_MARK + k) (Unicode private use) while a template is built
_MARK_RUN = re.compile("([\ue000-\uf8ff])\\1*")
_TEMPLATES_KEPT = 64  # per layout: one template per combination of the slot columns' widths


class Layout:
    """A text whose cells are fixed except *slots*, rendered by one ``str.format`` per call.

    ``rows`` holds the fixed cells (str) and, for a slot, the number of its width group (int: the slots of one
    table column share a group, as they share a width). ``render`` turns such rows, every cell a str, into the
    text (for example with :func:`sub_table`); it is called only when a new combination of slot widths appears:
    it renders the rows with each slot drawn as a marker as wide as the widest value of its group, and the
    markers become the format fields. The result is ``render`` of the rows with the values in the slots, for
    values that do not end in whitespace (counter numbers and sizes), which :meth:`text` requires; a text
    with an empty value is rendered directly.
    """

    def __init__(self, render: Callable[[list[list[str]]], str], rows: Sequence[Sequence[str | int]]) -> None:
        self._render = render
        self._rows = [list(r) for r in rows]
        self._groups = [c for r in rows for c in r if isinstance(c, int)]  # each slot's group, row-major
        self.slots = len(self._groups)  # how many values :meth:`text` takes
        # per group, a function giving the tuple of its values from all values
        members = [[i for i, g in enumerate(self._groups) if g == group]
                   for group in range(max(self._groups, default=-1) + 1)]
        self._members = [itemgetter(*m) if len(m) > 1 else _single(m[0]) if m else _none for m in members]
        self._templates: dict[tuple[int, ...], str] = {}

    def text(self, values: Sequence[str]) -> str:
        """The text with ``values`` in the slots (row-major order)."""
        if not all(values):  # an empty value: drawn directly (a marker cannot be zero wide)
            slot = iter(values)
            return self._render([[c if isinstance(c, str) else next(slot) for c in r] for r in self._rows])
        if len(values) != self.slots:
            raise ValueError(f"{self.slots} values expected, got {len(values)}")
        key = tuple(max(map(len, of_group(values)), default=0) for of_group in self._members)
        template = self._templates.get(key)
        if template is None:
            if len(self._templates) >= _TEMPLATES_KEPT:
                self._templates.clear()
            template = self._templates[key] = self._template(key)
        return template.format(*values)

    def _template(self, widths: tuple[int, ...]) -> str:
        slot = iter(range(len(self._groups)))
        drawn = [[c if isinstance(c, str) else chr(_MARK + next(slot)) * widths[c] for c in r] for r in self._rows]
        text = self._render(drawn).replace("{", "{{").replace("}", "}}")

        def field(m: re.Match[str]) -> str:
            index = ord(m.group(1)) - _MARK
            at_end = m.end() == len(text) or text[m.end()] == "\n"  # the line's end: no padding (rstrip)
            return f"{{{index}}}" if at_end else f"{{{index}:<{len(m.group())}}}"

        return _MARK_RUN.sub(field, text)
