"""Facts about command output text that the parsers and drivers of several platforms rely on."""

from __future__ import annotations

OTHER_LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines() ends a line besides "\n"


def breaks_only_at_lf(text: str) -> bool:
    """Every line of ``text`` ends at "\\n" (so a search for "\\n" finds the lines ``splitlines()`` would)."""
    return not any(c in text for c in OTHER_LINE_BREAKS)
