"""Which path a device's change takes: the platform's in-place change engine, or its bring-up path.

A room that knows its change engine's rules gives its driver a ``route(current, change, intent, facts)``
returning a :class:`ChangePath`; deploy reports it in a dry run and takes ``bringup`` only when asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PathName = Literal["day2", "bringup"]


@dataclass(frozen=True)
class ChangePath:
    """``day2``: the platform's transaction takes every operation in place. ``bringup``: it cannot (``reasons``:
    each refused operation with the platform's message, each setting that only takes effect at a restart)."""

    path: PathName
    reasons: tuple[str, ...] = ()

    def describe(self, limit: int = 4) -> str:
        if self.path == "day2":
            return "day-2 (every operation accepted in place)"
        more = f" (+{len(self.reasons) - limit} more)" if len(self.reasons) > limit else ""
        return "bring-up needed: " + "; ".join(self.reasons[:limit]) + more
