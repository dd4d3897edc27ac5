"""JSON text from devices, parsed by orjson, with the standard library deciding whatever orjson may read otherwise.

A device's JSON output is read on every audit (an EOS switch: ~140 KB in eight documents), and orjson parses
it in 40-85 % of ``json.loads``' time (a few-KB one: about the same). orjson refuses ``NaN``/``Infinity`` and
lone surrogates (its README,
"Deserialize" and "UTF-8": https://github.com/ijl/orjson/blob/036ae8420564afc5c918774de6611cc724cd6b56/README.md):
on any orjson error the text goes through ``json.loads`` itself, so the result or the ``json.JSONDecodeError`` is
the one it always was. orjson 3.13.0 (constraints.txt) also reads an integer beyond 64 bits as a float (tried here:
``-9223372036854775809``, ``18446744073709551616``; no documentation found for it), so text with a run of 19 or
more digits goes to ``json.loads`` too (every integer of at most 18 digits is within orjson's range).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

_DIGITS_AS_ZERO = str.maketrans("123456789", "0" * 9)  # then 19 digits in a row are "0" * 19: one C-level find
_LONG_RUN = "0" * 19


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value or error, faster where orjson reads the text the same way."""
    if _LONG_RUN not in text.translate(_DIGITS_AS_ZERO):  # ~1/5 of orjson's time; a regex took 3-5 times it
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


class LastParsed:
    """``read(text)`` kept for the text object read last: an audit's steps that each read the same output (one
    ``str`` object of the outputs) parse it once. The value is shared between them, so they only read it.

    The text is kept with its value and compared by identity (``is``), so a hit is always that very text; a
    miss, from another device or thread, parses anew. One (text, value) pair is held at a time."""

    def __init__(self, read: Callable[[str], Any]) -> None:
        self._read = read
        self._last: tuple[str, Any] | None = None

    def __call__(self, text: str) -> Any:
        last = self._last  # one read of the attribute: another thread may replace the pair, never half of it
        if last is not None and last[0] is text:
            return last[1]
        value = self._read(text)
        self._last = (text, value)
        return value
