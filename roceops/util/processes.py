"""Whether a process runs: the one check behind the lab's start, the journal's stale-run detection and verify's
cleanup.

>>> import os
>>> alive(os.getpid())
True
>>> alive(2 ** 22 + 1)  # above Linux's largest pid (pid_max is at most 2^22)
False
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def alive(pid: int, reap: bool = False) -> bool:
    """True while ``pid`` runs. A zombie (exited, not yet reaped) does not run; a process of another user does.

    ``reap``: first reap ``pid`` if it is an exited child of ours (for children started without a Popen to wait
    on them; a Popen's child is left to its Popen).
    """
    if reap:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc (or it went away between the two reads): kill(0) said it runs
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"  # the state field follows "pid (comm) "
