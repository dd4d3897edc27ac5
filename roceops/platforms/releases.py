"""NOS release numbers and the range of releases a room supports (pure; each room's PLATFORM holds its range)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[.\-]")
_LEADING_DIGITS = re.compile(r"\d+")


def release_numbers(version: str) -> tuple[int, ...]:
    """Leading release numbers: ``4.32.2F`` -> (4, 32, 2), ``5.14.0`` -> (5, 14, 0), ``master.1`` -> ().

    >>> release_numbers("4.32.2F"), release_numbers("4.30.1F-12345"), release_numbers("master.123")
    ((4, 32, 2), (4, 30, 1), ())
    """
    key: list[int] = []
    for token in _TOKEN.split(version):
        m = _LEADING_DIGITS.match(token)
        if m is None:
            break
        key.append(int(m.group()))
        if m.end() < len(token):  # "2F": a train letter ends the release numbers
            break
    return tuple(key)


@dataclass(frozen=True)
class ReleaseRange:
    """The oldest and newest release a room's templates are written and tested for (project policy).

    Compared on as many leading numbers as each bound has: 5.9 to 5.14 admits 5.14.1, not 5.15.0.
    """

    oldest: tuple[int, ...]
    newest: tuple[int, ...]

    def admits(self, key: tuple[int, ...]) -> bool:
        """
        >>> r = ReleaseRange((5, 9), (5, 14))
        >>> r.admits((5, 14, 1)), r.admits((5, 15, 0)), r.admits((5, 8)), r.admits(())
        (True, False, False, False)
        """
        return self.oldest <= key[:len(self.oldest)] and key[:len(self.newest)] <= self.newest

    def __str__(self) -> str:
        return f"{'.'.join(map(str, self.oldest))} to {'.'.join(map(str, self.newest))}"
