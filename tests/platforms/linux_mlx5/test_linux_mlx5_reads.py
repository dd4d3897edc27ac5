"""The host driver splits a batched answer at its marker lines: the fast split equals the line-by-line one."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from roceops.platforms.text import marked_segments, marked_segments_by_lines

TOKEN = "1a2b3c4d"
MARKER = re.compile(rf"^:RO{TOKEN}:(\d+)\s*$")
NEEDLE = f":RO{TOKEN}:"

_line = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=12),
    st.sampled_from([f":RO{TOKEN}:0", f"  :RO{TOKEN}:12 ", f"x:RO{TOKEN}:0", f":RO{TOKEN}:", f":RO{TOKEN}:1 tail",
                     f":RO{TOKEN}:0\r", "", " ", ":ROffffffff:0"]),
)


@given(st.lists(_line, max_size=30), st.booleans())
def test_fast_split_equals_line_by_line(lines: list[str], trailing_newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    assert marked_segments(text, NEEDLE, MARKER) == marked_segments_by_lines(text, MARKER)


def test_a_real_answer_shape() -> None:
    text = (f"eth0 up\nspeed 400000\n:RO{TOKEN}:0\n:RO{TOKEN}:0\nline with :RO{TOKEN}: inside\n"
            f":RO{TOKEN}:1\ntrailing junk")
    assert marked_segments(text, NEEDLE, MARKER) == ["eth0 up\nspeed 400000", "", f"line with :RO{TOKEN}: inside"]
