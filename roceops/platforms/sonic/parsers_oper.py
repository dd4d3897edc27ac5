"""The parts of SONiC's counter tables the driver's ``operational`` reads, column by column (pure).

Each reader gives, for the same text, what ``operational`` takes from the full parser named in its docstring
(:mod:`roceops.platforms.sonic.parsers`: the same values, keys and order, only the fields it uses) and fails
the same way. It cuts out only the columns it needs and converts a column at a time: a 64-port switch prints
1,024 rows of ``show queue wredcounters``, of which ``operational`` keeps one column.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from roceops.platforms.sonic.parsers import (
    ParseError,
    _block_lines,
    _queue_id,
    columns,
    counter,
    counters,
    speed_mbps,
    table_columns,
)

__all__ = ["errors_rx", "fec_errors", "flap_counts", "interfaces_link", "wred_ecn_marked"]

_speed = lru_cache(maxsize=256)(speed_mbps)  # the same few speeds on every port


def interfaces_link(text: str) -> dict[str, dict[str, Any]]:
    """``show_interfaces_status`` with only ``speed``, ``mtu`` and ``oper``."""
    ports, speeds, mtus, opers = table_columns(text, "Interface", "show interfaces status",
                                               ("Interface", "Speed", "MTU", "Oper"))
    assert ports is not None  # the first header of the table
    none = [None] * len(ports)
    speed = [_speed(v) for v in speeds] if speeds is not None else none
    mtu = counters(mtus) if mtus is not None else none
    return {port: {"speed": s, "mtu": m, "oper": o}
            for port, s, m, o in zip(ports, speed, mtu, opers if opers is not None else none, strict=True)}


def _iface_columns(text: str, command: str, fields: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``_iface_counters`` (``show interfaces counters ...``) with only the given column -> field counters."""
    ports, *cells = table_columns(text, "IFACE", command, ("IFACE", *fields))
    assert ports is not None  # the first header of the table
    values = [counters(c) if c is not None else [None] * len(ports) for c in cells]
    return {port: dict(zip(fields.values(), row, strict=True)) for port, *row in zip(ports, *values, strict=True)}


def errors_rx(text: str) -> dict[str, dict[str, Any]]:
    """``show_interfaces_counters_errors`` with only ``rx_err``."""
    return _iface_columns(text, "show interfaces counters errors", {"RX_ERR": "rx_err"})


def fec_errors(text: str) -> dict[str, dict[str, Any]]:
    """``show_interfaces_counters_fec_stats`` with only ``fec_uncorr`` and ``fec_symbol_err``."""
    return _iface_columns(text, "show interfaces counters fec-stats",
                          {"FEC_UNCORR": "fec_uncorr", "FEC_SYMBOL_ERR": "fec_symbol_err"})


def flap_counts(text: str) -> dict[str, dict[str, Any]]:
    """``show_interfaces_flap`` with only ``flaps``."""
    ports, raw = table_columns(text, "Interface", "show interfaces flap", ("Interface", "Flap Count"))
    assert ports is not None  # the first header of the table
    if raw is None:
        return {port: {"flaps": counter("")} for port in ports}
    return {port: {"flaps": 0 if value == "Never" else counter(value)} for port, value in zip(ports, raw, strict=True)}


def wred_ecn_marked(text: str) -> dict[str, dict[str, int | None]]:
    """``show_queue_wredcounters`` as {port: {queue: ecn_marked_packets}}."""
    out: dict[str, dict[str, int | None]] = {}
    found = False
    batch: list[str] = []  # the rows of consecutive tables laid out alike (one table per port): read together
    layout: tuple[tuple[str, ...], str] | None = None
    for headers, _, rule, rows in _block_lines(text):
        if not headers or headers[0] != "Port":
            continue
        found = True
        if not rows:
            continue
        if (headers, rule) != layout:
            if layout is not None:
                _add_marked(out, *layout, batch)
            if "TxQ" not in headers:
                raise KeyError("TxQ")  # where the full parser's first row fails
            layout, batch = (headers, rule), []
        batch += rows
    if layout is not None:
        _add_marked(out, *layout, batch)
    if not found and text.strip():
        raise ParseError("`show queue wredcounters`: no 'Port  TxQ' tables in the output")
    return out


def _add_marked(out: dict[str, dict[str, int | None]], headers: tuple[str, ...], rule: str, rows: list[str]) -> None:
    ports, queues, marked = columns(headers, rule, rows, ("Port", "TxQ", "EcnMarked/pkts"))
    assert ports is not None and queues is not None  # headers of the table
    for queue in dict.fromkeys(queues):  # the full parser's ParseError for the first unknown queue name
        _queue_id(queue)
    values = counters(marked) if marked is not None else [None] * len(ports)
    for port, queue, value in zip(ports, queues, values, strict=True):
        out.setdefault(port, {})[queue] = value
