"""Facts about command output text that the parsers and drivers of several platforms rely on."""

from __future__ import annotations

import re
from collections.abc import Callable

Marker = re.Pattern[str] | Callable[[str], object]  # a pattern whose match, or a test, says "this is a marker line"

OTHER_LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines() ends a line besides "\n"


def breaks_only_at_lf(text: str) -> bool:
    """Every line of ``text`` ends at "\\n" (so a search for "\\n" finds the lines ``splitlines()`` would)."""
    return not any(c in text for c in OTHER_LINE_BREAKS)


def marked_segments(text: str, needle: str, marker: Marker) -> list[str]:
    """The text before each marker line (a line whose stripped text ``marker`` matches, or passes when it is a
    test), in order; what follows the last marker is dropped. Marker lines contain ``needle``: only the lines where
    it occurs are looked at, instead of every line of a ~100 kB answer (same result as
    :func:`marked_segments_by_lines`)."""
    if not breaks_only_at_lf(text):
        return marked_segments_by_lines(text, marker)
    is_marker = _test(marker)
    segments: list[str] = []
    start = 0  # where the current segment begins
    at = text.find(needle)
    while at != -1:
        begin = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        if is_marker(text[begin:end].strip()):
            segments.append(text[start:begin - 1] if begin > start else "")
            start = end + 1
        at = text.find(needle, end)
    return segments


def marked_segments_by_lines(text: str, marker: Marker) -> list[str]:
    """:func:`marked_segments`, line by line."""
    is_marker = _test(marker)
    segments: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if is_marker(line.strip()):
            segments.append("\n".join(current))
            current = []
        else:
            current.append(line)
    return segments


def _test(marker: Marker) -> Callable[[str], object]:
    return marker.match if isinstance(marker, re.Pattern) else marker
