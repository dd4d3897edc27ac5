"""What the Slurm hooks decide from a health verdict: the drain reason, the ``scontrol`` command lines, and reading
a node's state back. Pure: the commands are run by ``roceops slurm healthcheck`` (roceops/cli/slurm_cmds.py).

``scontrol update NodeName=<node> State=DRAIN Reason=<text>`` drains a node, ``State=RESUME`` returns it
(scontrol(1), Slurm 22.05); ``scontrol show node <node> --oneliner`` prints ``Key=Value`` pairs on one line,
``State=IDLE+DRAIN`` and ``Reason=<text> [<user>@<time>]`` among them (seen from Debian's 22.05 here).
"""

from __future__ import annotations

import re

from roceops.health.model import Verdict

REASON_PREFIX = "roceops:"  # a drain roceops set starts so; only those are resumed by roceops
REASON_MAX = 200  # keep sinfo -R readable; the full verdict is in roceops' own output


def drain_reason(verdict: Verdict) -> str:
    """``roceops: <check> <detail>`` from the verdict's first reason (more reasons: ``(+N more)``), one line.

    >>> drain_reason(Verdict(node="gpu001", status="drain", reasons=["nic.roce eth0: RoCE is off", "x"]))
    'roceops: nic.roce eth0: RoCE is off (+1 more)'
    """
    first = verdict.reasons[0] if verdict.reasons else verdict.status
    more = f" (+{len(verdict.reasons) - 1} more)" if len(verdict.reasons) > 1 else ""
    text = " ".join(f"{REASON_PREFIX} {first}".split())
    return text[:REASON_MAX - len(more)] + more


def drain_command(scontrol: str, node: str, reason: str) -> list[str]:
    return [scontrol, "update", f"NodeName={node}", "State=DRAIN", f"Reason={reason}"]


def resume_command(scontrol: str, node: str) -> list[str]:
    return [scontrol, "update", f"NodeName={node}", "State=RESUME"]


def show_node_command(scontrol: str, node: str) -> list[str]:
    return [scontrol, "show", "node", node, "--oneliner"]


_STATE = re.compile(r"(?:^|\s)State=(\S+)")
_REASON = re.compile(r"(?:^|\s)Reason=(.*?)(?:\s\[[^\]]*\])?(?:\s+\w+=|$)")


def drained_by_roceops(show_node: str) -> bool:
    """The node (``scontrol show node --oneliner`` output) is drained or draining with a reason roceops set.

    >>> drained_by_roceops("NodeName=gpu001 State=IDLE+DRAIN ThreadsPerCore=1 Reason=roceops: nic.roce [root@t]")
    True
    >>> drained_by_roceops("NodeName=gpu001 State=IDLE+DRAIN Reason=maintenance [admin@t]")
    False
    """
    state = _STATE.search(show_node)
    reason = _REASON.search(show_node)
    return bool(state and "DRAIN" in state.group(1) and reason and reason.group(1).startswith(REASON_PREFIX))
