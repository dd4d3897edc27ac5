"""How a Result's fields read in a table or Markdown cell (shared by the table and Markdown reporters)."""

from __future__ import annotations

import json
from typing import Any

from roceops.report.result import Column, Result


def value(v: Any) -> str:
    """A value as one cell, whole (a shortened value could hide the part that drifted)."""
    return "-" if v is None else v if isinstance(v, str) else json.dumps(v, default=str)


def cell(result: Result, column: Column) -> str:
    """``result``'s ``column`` as text (see :class:`~roceops.report.result.Column`)."""
    match column.field:
        case "fix":
            return result.hint or result.message
        case "path":
            return result.path or "-"
        case "seen":
            return result.seen or "-"
        case "expected" | "observed":
            return value(getattr(result, column.field))
        case other:
            return str(getattr(result, other))
