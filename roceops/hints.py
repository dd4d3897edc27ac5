"""Fix hints: the roceops command line a finding or an error suggests, carrying the options of the run that
printed it (``--lab``, ``-f FILE``...), so that a hint copied from a lab session targets that lab, not the
default fabric's real management addresses.

>>> command("deploy", "--limit", "gpu005", "--commit", context=("-f", "inventory/lab-mini.yaml", "--lab"))
'roceops deploy --limit gpu005 --commit -f inventory/lab-mini.yaml --lab'
>>> command("deploy", "--limit", "leaf 1")
"roceops deploy --limit 'leaf 1'"
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

Context = tuple[str, ...]  # the options every hint of one run carries


def command(*args: str, context: Sequence[str] = ()) -> str:
    """``roceops ARGS CONTEXT``, shell-quoted."""
    return shlex.join(["roceops", *args, *context])
