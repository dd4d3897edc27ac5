"""The NVUE show commands the Cumulus room reads, and how their outputs are looked up (pure).

``collect`` (driver) runs :data:`GLOBAL_SHOWS` once and :data:`PORT_SHOWS` per port as
``nv show interface <port> <what>`` (:func:`port_cmd`); ``observe`` and ``operational`` find each output
under its command. A switch answers a show it cannot serve (a port it lacks) with an NVUE error
(:data:`ERROR`), which :func:`optional_output` treats as no output.
"""

from __future__ import annotations

import re

from roceops.platforms.cumulus.parsers import ParseError

CONFIG = "nv config show -o commands"
INTERFACES_JSON = "nv show interface -o json"
QOS_ROCE = "nv show qos roce"
QOS_PFC = "nv show qos pfc default-global"
QOS_ECN = "nv show qos congestion-control default-global"
QOS_EGRESS_MAP = "nv show qos egress-queue-mapping default-global"
BER_VIEW = "nv show interface --view ber"
BGP_JSON = "nv show vrf default router bgp neighbor -o json"
SYSTEM_JSON = "nv show system -o json"
GLOBAL_SHOWS = (CONFIG, QOS_ROCE, QOS_PFC, QOS_ECN, QOS_EGRESS_MAP, INTERFACES_JSON, BER_VIEW, BGP_JSON, SYSTEM_JSON)
PORT_SHOWS = ("counters qos", "counters errors", "qos pfc-watchdog", "qos roce status", "qos roce counters")
COUNTER_SHOWS = (INTERFACES_JSON, BER_VIEW)
PORT_COUNTER_SHOWS = ("counters qos", "counters errors", "qos pfc-watchdog", "qos roce counters")
ERROR = re.compile(r"^(Error:|Invalid config|Invalid Command|-bash:)", re.MULTILINE)


def port_cmd(port: str, what: str) -> str:
    """``nv show interface <port> <what>``."""
    return f"nv show interface {port} {what}"


def port_of(command: str) -> str | None:
    """The port a :func:`port_cmd` command reads (None: another command).

    >>> port_of("nv show interface swp1 counters qos"), port_of("nv show interface -o json")
    ('swp1', None)
    """
    if not command.startswith(_PORT_HEAD):
        return None
    port, _, what = command[len(_PORT_HEAD):].partition(" ")
    return port if what in PORT_SHOWS else None


_PORT_HEAD = "nv show interface "  # port_cmd's start


def output(outputs: dict[str, str], command: str) -> str:
    """The output of a command every read needs; ParseError when it is missing."""
    text = outputs.get(command)
    if text is None:
        raise ParseError(f"missing output of '{command}'")
    return text


def optional_output(outputs: dict[str, str], command: str) -> str | None:
    """Output of an optional command, None when absent or an NVUE error (e.g. a port the switch lacks)."""
    text = outputs.get(command)
    return None if not text or ERROR.match(text) else text
