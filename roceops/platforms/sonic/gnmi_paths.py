"""SONiC counters over gNMI (sonic-gnmi's COUNTERS_DB virtual paths) into neutral readings.

================================  ==============================================  ==================================
path (target COUNTERS_DB)         fields read                                      reading
================================  ==============================================  ==================================
``COUNTERS/Ethernet*``            ``SAI_PORT_STAT_PFC_<p>_RX_PKTS`` / ``_TX_PKTS``  pfc_pause_frames_total{port,
                                                                                   priority,direction}
                                  ``SAI_PORT_STAT_IF_IN_ERRORS``                   port_rx_errors_total{port}
``COUNTERS/Ethernet*/Queues``     ``SAI_QUEUE_STAT_DROPPED_PACKETS``               queue_drops_total{port,queue}
                                  ``SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS``       ecn_marked_packets_total{port,queue}
``COUNTERS/Ethernet*/Pfcwd``      ``PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED``         pfcwd_storms_total{port,queue}
================================  ==============================================  ==================================

Sources: the virtual paths and their JSON shapes (``{port: {field: "n"}}``, queues keyed ``"Ethernet0:3"``):
sonic-net/sonic-gnmi sonic_data_client/virtual_db.go@95f4400d96982c9f6a6a02ed62e30a9cb2454a85; the port and queue
field names: sonic-net/SONiC doc/system-telemetry/grpc_telemetry.md@0fdbfb0b1b617ee1de408a028b1184656a6882f2; the
WRED/ECN queue counter (present only with the WRED_ECN_QUEUE flex counter group enabled):
sonic-net/SONiC doc/qos/ECN_and_WRED_statistics_HLD.md@ebcd2a4a987f1d6027cd57677dc6806b8a9adcdb; the PFC watchdog
fields: sonic-net/sonic-gnmi gnmi_server/server_test.go@15422d280f2933cdcd258b3bfd958471fb878554;
``SAI_PORT_STAT_IF_IN_ERRORS`` is what ``show interfaces counters`` prints as RX_ERR (the SSH path's crc_errors):
sonic-net/sonic-utilities utilities_common/portstat.py@648be3b0cafac61be1ed9db4cbfa5b457c4ae038
(counter_bucket_dict). Port 8080 is the port of the telemetry doc's examples (grpc_telemetry.md above), unconfirmed
as today's default.
Link flaps come on a second stream (a subscription has one target): ``PORT_TABLE`` under target ``APPL_DB``
(``{port: {field: "n"}}``: sonic-gnmi's table path, sonic-net/sonic-gnmi sonic_data_client/db_client.go
@5ec1c20b7865bbbfd30258f26e716a1e5e1bd259, ``TableData2Msi``), its ``flap_count`` field -> link_flaps_total{port}:
the field ``show interfaces flap`` prints (sonic-net/sonic-utilities show/interfaces/__init__.py
@691b1bbc4fd2b71657d1b0b334c37136deb51526, ``Never`` while absent; older images have no such field: no series).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from roceops.platforms.gnmi_paths import GnmiPaths, Interest, Reading

PORTS, QUEUES, PFCWD = "COUNTERS/Ethernet*", "COUNTERS/Ethernet*/Queues", "COUNTERS/Ethernet*/Pfcwd"
_PFC = tuple((p, d, f"SAI_PORT_STAT_PFC_{p}_{d.upper()}_PKTS") for p in range(8) for d in ("rx", "tx"))


def _number(text: Any) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


_ZERO = ("0", "")


_ERRORS = "SAI_PORT_STAT_IF_IN_ERRORS"
_DROPS, _MARKS = "SAI_QUEUE_STAT_DROPPED_PACKETS", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"


def _ports(value: dict[str, Any], want: Interest) -> Iterator[Reading]:
    kept = [(str(p), d, f) for p, d, f in _PFC if p in want.priorities]
    lossy = [(str(p), d, f) for p, d, f in _PFC if p not in want.priorities]
    for port, fields in value.items():
        if not isinstance(fields, dict):
            continue
        errors = _number(fields.get(_ERRORS))
        if errors is not None:
            yield Reading("port_rx_errors_total", (("port", port),), errors)
        for prio, direction, field in kept:
            n = _number(fields.get(field))
            if n is not None:
                yield Reading("pfc_pause_frames_total", (("port", port), ("priority", prio), ("direction", direction)),
                              n)
        for prio, direction, field in lossy:  # exported once they move
            text = fields.get(field)
            if text is not None and text not in _ZERO and (n := _number(text)) is not None:
                yield Reading("pfc_pause_frames_total", (("port", port), ("priority", prio), ("direction", direction)),
                              n)


def _split(key: str) -> tuple[str, str] | None:
    port, sep, queue = key.rpartition(":")
    return (port, queue) if sep and queue.isdigit() else None


def _queues(value: dict[str, Any], want: Interest) -> Iterator[Reading]:
    lossless = tuple(f":{q}" for q in want.queues)
    for key, fields in value.items():
        if not isinstance(fields, dict):
            continue
        drops, marks = fields.get(_DROPS), fields.get(_MARKS)
        keep_zero = key.endswith(lossless)
        if not keep_zero and (drops is None or drops in _ZERO) and (marks is None or marks in _ZERO):
            continue  # a lossy queue without drops or marks: most of them, skipped before any parsing
        port, _, queue = key.rpartition(":")
        if not port or not queue.isdigit():
            continue
        if drops is not None and (keep_zero or drops not in _ZERO) and (n := _number(drops)) is not None:
            yield Reading("queue_drops_total", (("port", port), ("queue", queue),
                                                ("lossless", "true" if keep_zero else "false")), n)
        if marks is not None and (keep_zero or marks not in _ZERO) and (n := _number(marks)) is not None:
            yield Reading("ecn_marked_packets_total", (("port", port), ("queue", queue)), n)


def _pfcwd(value: dict[str, Any], want: Interest) -> Iterator[Reading]:
    for key, fields in value.items():
        where = _split(key)
        n = _number(fields.get("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED")) if isinstance(fields, dict) else None
        if where is not None and n is not None:
            yield Reading("pfcwd_storms_total", (("port", where[0]), ("queue", where[1])), n)


def decode(path: str, value: Any, want: Interest = Interest()) -> Iterator[Reading]:
    """Readings of one update (``path`` without a leading slash, as pygnmi prints it); counters outside ``want``
    only once they are not zero.

    >>> list(decode("COUNTERS/Ethernet*/Pfcwd", {"Ethernet0:3": {"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "2"}}))
    [Reading(metric='pfcwd_storms_total', labels=(('port', 'Ethernet0'), ('queue', '3')), value=2.0)]
    """
    if not isinstance(value, dict):
        return iter(())
    path = path.strip("/")
    if path == PORTS:
        return _ports(value, want)
    if path == QUEUES:
        return _queues(value, want)
    if path == PFCWD:
        return _pfcwd(value, want)
    return iter(())


PORT_TABLE = "PORT_TABLE"


def decode_flaps(path: str, value: Any, want: Interest = Interest()) -> Iterator[Reading]:
    """``flap_count`` of APPL_DB's PORT_TABLE entries (ports without it have not flapped since boot: left out).

    >>> list(decode_flaps("PORT_TABLE", {"Ethernet0": {"flap_count": "3"}, "PortInitDone": {"lanes": "0"}}))
    [Reading(metric='link_flaps_total', labels=(('port', 'Ethernet0'),), value=3.0)]
    """
    if path.strip("/") != PORT_TABLE or not isinstance(value, dict):
        return
    for port, fields in value.items():
        n = _number(fields.get("flap_count")) if isinstance(fields, dict) else None
        if n is not None:
            yield Reading("link_flaps_total", (("port", port),), n)


FLAPS = GnmiPaths(target="APPL_DB", paths=(PORT_TABLE,), default_port=8080, decode=decode_flaps)
GNMI = GnmiPaths(target="COUNTERS_DB", paths=(PORTS, QUEUES, PFCWD), default_port=8080, decode=decode, also=(FLAPS,))
