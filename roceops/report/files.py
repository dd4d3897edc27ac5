"""Writing a report file: through the one safe writer (roceops/util/safe_write.py)."""

from __future__ import annotations

from pathlib import Path

from roceops.util.safe_write import write_file


def write_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder + rename, so a scraper never reads half a file; only onto a regular file or a new
    path (WriteRefused otherwise, and for any write error: exit 3 at the CLI)."""
    write_file(path, text)
