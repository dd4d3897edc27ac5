"""Terminal output that never hides user data.

- Text is printed literally: Rich markup and ``:emoji:`` codes are off, so ``ports[swp1].pfc_priorities`` keeps
  its ``[swp1]`` and a file name with ``:100:`` in it stays as it is; styles are given as :class:`rich.text.Text`.
- With no terminal (piped, cron, a Slurm prolog's log), lines are not cut to 80 columns: the console is as wide as
  its longest line, so a table never shortens a device name to ``leaf-su1…``.
- On a terminal, a cell too long for its column is folded onto the next line, never replaced by an ellipsis.
- Columns that can hold long values (an audit's expected and observed) wrap at CAPPED_WIDTH even with no terminal.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleDimensions
from rich.rule import Rule
from rich.table import Column, Table
from rich.text import Text

# Width of a console that prints to a pipe or file: wide enough for any row, so Rich never wraps or truncates.
UNBOUNDED_WIDTH = 100_000
RULE_WIDTH = 80  # a horizontal rule is as wide as the console: with no terminal, this wide
CAPPED_WIDTH = 60  # the widest a capped column grows (see table())


class LiteralConsole(Console):
    """A Console that prints user data literally and, with no terminal, never wraps or truncates (see module doc)."""

    def __init__(self, *, stderr: bool = False) -> None:
        super().__init__(stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)

    @property
    def size(self) -> ConsoleDimensions:
        if not self.is_terminal and self._width is None and "COLUMNS" not in self._environ:
            return ConsoleDimensions(UNBOUNDED_WIDTH, super().size.height)
        return super().size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]

    def rule(self, title: Any = "", **kwargs: Any) -> None:
        if self.width < UNBOUNDED_WIDTH:
            super().rule(title, **kwargs)
        else:
            self.print(Rule(title, **kwargs), width=RULE_WIDTH)


def table(*headers: str, title: str | None = None, capped: tuple[str, ...] = ()) -> Table:
    """A Table whose cells fold instead of ending in an ellipsis when the terminal is narrow. Columns named in
    ``capped`` (values that can be long, such as a list of BGP neighbours) are at most CAPPED_WIDTH wide even with
    no terminal: their cells wrap onto more lines, whole, so a piped table's lines stay readable in a log."""
    return Table(*(Column(h, overflow="fold", max_width=CAPPED_WIDTH if h in capped else None) for h in headers),
                 title=title)


def styled(text: str, style: str) -> Text:
    """``text`` in ``style``, without parsing it for markup."""
    return Text(text, style=style)
