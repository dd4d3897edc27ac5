"""The text of a host's answer to one batch of commands (see :mod:`roceops.platforms.linux_mlx5.driver`): where the
answer starts, the lines that end each command, and each command's output. Plain string searches for the batch's
markers (no pattern compiled per batch); tests/platforms/linux_mlx5/test_linux_mlx5_fast_paths.py proves each equal
to the line-by-line reading it replaced."""

from __future__ import annotations

import re

from roceops.device.change import DriverError
from roceops.platforms.text import breaks_only_at_lf, marked_segments


def begin_marker(token: str) -> str:
    """First command of a batch: its output line marks where the host's answer starts (the echoed
    command line before it, however a terminal wrapped it, never contains that exact line)."""
    return f"echo ':RO{token}:''begin'"


def after_begin(raw: str, token: str) -> str:
    """The lines after the first whose stripped text is the start marker, joined by "\\n" (as
    ``"\\n".join(raw.splitlines()[i + 1:])``). Where lines end only at "\\n", found by searching for the marker and
    cut out of ``raw`` without splitting the ~140 kB answer into lines and joining it again."""
    begin = f":RO{token}:begin"
    if not breaks_only_at_lf(raw):
        lines = raw.splitlines()
        start = next((i for i, line in enumerate(lines) if line.strip() == begin), None)
        if start is None:
            raise DriverError("the host's answer has no start marker (is this a POSIX shell?)")
        return "\n".join(lines[start + 1:])
    at = raw.find(begin)
    while at != -1:
        end = raw.find("\n", at)
        end = len(raw) if end == -1 else end
        if raw[raw.rfind("\n", 0, at) + 1:end].strip() == begin:
            rest = raw[end + 1:]
            return rest[:-1] if rest.endswith("\n") else rest  # splitlines() ends no line after a final "\n"
        at = raw.find(begin, end)
    raise DriverError("the host's answer has no start marker (is this a POSIX shell?)")


_STATUS = re.compile(r"\d+[ \t]*")  # what follows a done marker on its line: the exit status
_STATUS_LINE = re.compile(r"\d+")  # ... on a stripped line


def done_lines(buf: str, needle: str, start: int, stop: int) -> list[int]:
    """The ends of the lines of ``buf[start:stop]`` (which begins a line and ends after a "\\n") that are ``needle``
    and an exit status, as ``re.finditer(rf"^{needle}\\d+[ \\t]*$", buf[start:stop], re.M)``'s ends, found by
    searching for the needle instead of trying the pattern at every character of the ~140 kB answer."""
    ends = []
    at = buf.find(needle, start, stop)
    while at != -1:
        end = buf.find("\n", at, stop)
        if (at == 0 or buf[at - 1] == "\n") and _STATUS.fullmatch(buf, at + len(needle), end):
            ends.append(end)
        at = buf.find(needle, end, stop)
    return ends


def segments(text: str, needle: str) -> list[str]:
    """``marked_segments(text, needle, re.compile(rf"^{needle}(\\d+)\\s*$"))`` without compiling a pattern for every
    batch's token: a stripped line is a marker when it is ``needle`` and digits."""
    return marked_segments(text, needle,
                           lambda line: line.startswith(needle) and _STATUS_LINE.fullmatch(line, len(needle)))
