"""Parsers for SONiC show-command text (pure functions: text in, plain data out).

Every parser here is tested on the real sonic-utilities outputs in ``shared/fixtures/sonic`` (see
``tests/platforms/sonic/test_sonic_parsers.py``). SONiC prints its tables with tabulate's "simple" format, so
one reader (:func:`tables`) finds every ``header / ----- rule / rows`` block and slices the rows by the
spans of the rule: it does not care whether a column is left- or right-aligned, and cells may hold
spaces (``QSFP28 or later``, ``FLR(P) (Accuracy)``). Counters become ``int`` (thousands separators
removed); ``N/A`` and other non-numbers become ``None``.

The CONFIG_DB -> ObservedSwitch reader lives in :mod:`roceops.platforms.sonic.parsers_config_db`; LLDP, BGP and
``show version`` in :mod:`roceops.platforms.sonic.parsers_control`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

from roceops.platforms.text import breaks_only_at_lf
from roceops.util import json_text

__all__ = [
    "ParseError",
    "Table",
    "counter",
    "ecnconfig_l",
    "key_value_blocks",
    "pfcwd_show_config",
    "pfcwd_show_stats",
    "show_buffer_information",
    "show_interfaces_counters_errors",
    "show_interfaces_counters_fec_stats",
    "show_interfaces_flap",
    "show_interfaces_status",
    "show_pfc_asymmetric",
    "show_pfc_counters",
    "show_pfc_counters_history",
    "show_pfc_priority",
    "show_queue_counters",
    "show_queue_counters_json",
    "show_queue_wredcounters",
    "speed_mbps",
    "tables",
]

_RULE = re.compile(r"^-+(?:  +-+)*\s*$")
_SPAN = re.compile(r"-+")
_NUMBER = re.compile(r"[+-]?\d[\d,]*")
_QUEUE_NAME = re.compile(r"([A-Z]+)(\d+)")


class ParseError(ValueError):
    """Output that does not have the expected layout (the message names the command)."""


@dataclass(frozen=True)
class Table:
    """One tabulate block: its header names and its rows (header -> cell text)."""

    headers: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    title: str = ""  # the non-table line just above the header (``Profile: X``, ``For namespace :``)


def counter(text: str | None) -> int | None:
    """``1,200`` -> 1200; ``N/A``, empty or any other non-number -> None.

    >>> counter("1,200"), counter("N/A"), counter("7")
    (1200, None, 7)
    """
    if text is None:
        return None
    value = text.strip()
    if value.isdecimal():  # the common case; isdecimal() accepts exactly the digits of \d
        return int(value)
    if not _NUMBER.fullmatch(value):
        return None
    return int(value.replace(",", ""))


def speed_mbps(text: str) -> int | None:
    """intfutil speed text -> Mb/s: ``400G`` -> 400000, ``100M`` -> 100, ``2.5G`` -> 2500.

    >>> speed_mbps("400G"), speed_mbps("1000M"), speed_mbps("N/A")
    (400000, 1000, None)
    """
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([GM])", text.strip())
    if m is None:
        return None
    value = float(m.group(1))
    return round(value * 1000) if m.group(2) == "G" else int(value)


def _spans(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _SPAN.finditer(rule)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """Slice a row by the rule's column spans; the last column takes the rest of the line."""
    out = []
    for i, (start, end) in enumerate(spans):
        stop = len(line) if i == len(spans) - 1 else spans[i + 1][0]
        out.append(line[start:max(end, stop)].strip())
    return out


@lru_cache(maxsize=256)  # the same few rules on every port
def _cutter(rule: str) -> Callable[[str], tuple[str, ...]]:
    """What :func:`_cells` does before stripping, as one call: a column ends where the next one starts."""
    starts = [start for start, _ in _spans(rule)]
    cols = [slice(a, b) for a, b in zip(starts, [*starts[1:], None], strict=True)]
    if len(cols) == 1:
        return lambda line: (line[cols[0]],)
    return itemgetter(*cols)


def tables(text: str) -> list[Table]:
    """Every ``header`` + ``-----  ---`` + rows block of ``text`` (rows end at a blank or a rule line)."""
    return [Table(headers, tuple([dict(zip(headers, row, strict=True)) for row in rows]), title)
            for headers, title, rows in _blocks(text)]


def _blocks(text: str) -> list[tuple[tuple[str, ...], str, list[list[str]]]]:
    """:func:`tables` with each row as its list of cells: (headers, title, rows)."""
    out: list[tuple[tuple[str, ...], str, list[list[str]]]] = []
    for headers, title, rule, rows in _block_lines(text):
        cut = _cutter(rule)
        out.append((headers, title, [list(map(str.strip, cut(line))) for line in rows]))
    return out


def _block_lines(text: str) -> list[tuple[tuple[str, ...], str, str, list[str]]]:
    """The blocks :func:`_blocks` reads, rows not cut yet: (headers, title, rule line, row lines)."""
    lines = text.splitlines()
    n = len(lines)
    plain = breaks_only_at_lf(text)
    rules = _rule_lines(text, lines) if plain else [
        k for k, line in enumerate(lines) if line[:1] == "-" and _RULE.match(line)]
    is_rule = set(rules)
    out: list[tuple[tuple[str, ...], str, str, list[str]]] = []
    i = 0
    for x, r in enumerate(rules):  # only a rule line can start a table: the line above it is the header
        if r < i or r == 0 or not lines[r - 1].strip() or r - 1 in is_rule:
            continue
        headers = _headers(lines[r - 1], lines[r])
        title = lines[r - 2].strip() if r >= 2 else ""
        j = _rows_end(lines, r + 1, rules[x + 1] if x + 1 < len(rules) else n)
        out.append((headers, title, lines[r], lines[r + 1:j]))
        i = j + 1 if j in is_rule else j  # a closing rule is not a new header
    return out


def _rule_lines(text: str, lines: list[str]) -> list[int]:
    """The indexes of the rule lines, for a text whose lines end at "\n" only: the lines that start with "-",
    found by searching the text instead of looking at every line."""
    out = [0] if text.startswith("-") and _RULE.match(lines[0]) else []
    k = pos = 0  # line k starts at offset pos
    at = text.find("\n-")
    while at != -1:
        k += text.count("\n", pos, at + 1)
        pos = at + 1
        if _RULE.match(lines[k]):
            out.append(k)
        at = text.find("\n-", pos)
    return out


def _rows_end(lines: list[str], start: int, stop: int) -> int:
    """The first blank line from ``start`` on, else ``stop`` (the next rule line, or the end)."""
    try:
        end = lines.index("", start, stop)
    except ValueError:
        end = stop
    if any(map(str.isspace, lines[start:end])):  # a line of blanks ends the rows too
        end = next(j for j in range(start, end) if lines[j].isspace())
    return end


@lru_cache(maxsize=256)  # a table per port repeats the same header
def _headers(header: str, rule: str) -> tuple[str, ...]:
    return tuple(map(str.strip, _cutter(rule)(header)))


@lru_cache(maxsize=256)
def _column_cutter(rule: str, columns: tuple[int, ...]) -> Callable[[str], tuple[str, ...]]:
    """:func:`_cutter` for the given columns only (by index, in that order)."""
    starts = [start for start, _ in _spans(rule)]
    ends: list[int | None] = [*starts[1:], None]
    cols = [slice(starts[k], ends[k]) for k in columns]
    if len(cols) == 1:
        return lambda line: (line[cols[0]],)
    return itemgetter(*cols)


def columns(headers: tuple[str, ...], rule: str, rows: list[str], names: tuple[str, ...]) -> list[list[str] | None]:
    """The cells of the columns ``names`` of a block from :func:`_block_lines`, column by column: what the rows of
    :func:`tables` hold under those headers (a repeated header: its last column), None for a header the block lacks."""
    at = {h: k for k, h in enumerate(headers)}
    wanted = [at.get(name) for name in names]
    present = tuple(k for k in wanted if k is not None)
    cells: list[list[str]] = [[] for _ in present]
    if rows and present:
        cells = [list(map(str.strip, column)) for column in zip(*map(_column_cutter(rule, present), rows), strict=True)]
    found = iter(cells)
    return [next(found) if k is not None else None for k in wanted]


def table_columns(text: str, first_header: str, command: str, names: tuple[str, ...]) -> list[list[str] | None]:
    """:func:`columns` of the table :func:`_table` finds (same ParseError when there is none)."""
    for headers, _, rule, rows in _block_lines(text):
        if headers and headers[0] == first_header:
            return columns(headers, rule, rows, names)
    raise ParseError(f"`{command}`: no table with a {first_header!r} column in the output")


def counters(cells: list[str]) -> list[int | None]:
    """:func:`counter` of each of a column's (stripped) cells."""
    return [int(v) if v.isdecimal() else counter(v) for v in cells]


def _table(text: str, first_header: str, command: str) -> Table:
    for t in tables(text):
        if t.headers and t.headers[0] == first_header:
            return t
    raise ParseError(f"`{command}`: no table with a {first_header!r} column in the output")


def key_value_blocks(text: str, command: str) -> dict[str, dict[str, str]]:
    """Blocks of ``Title: name`` + a headerless two-column table (``ecnconfig -l``, ``show buffer information``).

    Returns ``{"Title: name": {field: value}}`` in output order.
    """
    lines = text.splitlines()
    out: dict[str, dict[str, str]] = {}
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line and not _RULE.match(line) and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            spans = _spans(lines[i + 1])
            fields: dict[str, str] = {}
            j = i + 2
            while j < len(lines) and not _RULE.match(lines[j]):
                if lines[j].strip():
                    cells = _cells(lines[j], spans)
                    fields[cells[0]] = cells[1] if len(cells) > 1 else ""
                j += 1
            out[line] = fields
            i = j + 1
        else:
            i += 1
    if not out and text.strip():
        raise ParseError(f"`{command}`: no 'Name:' blocks in the output")
    return out


# --------------------------------------------------------------------------- interfaces


def show_interfaces_status(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces status`` -> {interface: {lanes, speed (Mb/s), mtu, fec, alias, vlan, oper, admin, type,
    asym_pfc}}; ``oper``/``admin`` are the raw words (``up``/``down``/``N/A``)."""
    t = _table(text, "Interface", "show interfaces status")
    out: dict[str, dict[str, Any]] = {}
    for r in t.rows:
        out[r["Interface"]] = {
            "lanes": r.get("Lanes"),
            "speed": speed_mbps(r.get("Speed", "")),
            "mtu": counter(r.get("MTU")),
            "fec": r.get("FEC"),
            "alias": r.get("Alias"),
            "vlan": r.get("Vlan"),
            "oper": r.get("Oper"),
            "admin": r.get("Admin"),
            "type": r.get("Type"),
            "asym_pfc": r.get("Asym PFC"),
        }
    return out


def _iface_counters(text: str, command: str, columns: dict[str, str]) -> dict[str, dict[str, Any]]:
    t = _table(text, "IFACE", command)
    out: dict[str, dict[str, Any]] = {}
    for r in t.rows:
        entry: dict[str, Any] = {"state": r.get("STATE")}
        entry.update({key: counter(r.get(col)) for col, key in columns.items()})
        out[r["IFACE"]] = entry
    return out


def show_interfaces_counters_errors(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces counters errors`` (``portstat -e``) -> {port: {state, rx_err, rx_drp, ...}}."""
    return _iface_counters(text, "show interfaces counters errors", {
        "RX_ERR": "rx_err", "RX_DRP": "rx_drp", "RX_OVR": "rx_ovr",
        "TX_ERR": "tx_err", "TX_DRP": "tx_drp", "TX_OVR": "tx_ovr"})


def show_interfaces_counters_fec_stats(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces counters fec-stats`` (``portstat -f``) -> {port: {state, fec_corr, fec_uncorr,
    fec_symbol_err}} (the BER/FLR columns are rates, not counters, and are not kept)."""
    return _iface_counters(text, "show interfaces counters fec-stats", {
        "FEC_CORR": "fec_corr", "FEC_UNCORR": "fec_uncorr", "FEC_SYMBOL_ERR": "fec_symbol_err"})


def show_interfaces_flap(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces flap`` -> {port: {flaps (``Never`` = 0), admin, oper, last_down, last_up}}."""
    t = _table(text, "Interface", "show interfaces flap")
    out: dict[str, dict[str, Any]] = {}
    for r in t.rows:
        raw = r.get("Flap Count", "")
        out[r["Interface"]] = {
            "flaps": 0 if raw == "Never" else counter(raw),
            "admin": r.get("Admin"),
            "oper": r.get("Oper"),
            "last_down": r.get("Link Down TimeStamp(UTC)"),
            "last_up": r.get("Link Up TimeStamp(UTC)"),
        }
    return out


# --------------------------------------------------------------------------- PFC


def show_pfc_priority(text: str) -> dict[str, list[int] | None]:
    """``show pfc priority`` -> {interface: lossless priorities}; ``N/A`` (no pfc_enable) -> None,
    an empty cell (pfc_enable "") -> []."""
    t = _table(text, "Interface", "show pfc priority")
    out: dict[str, list[int] | None] = {}
    for r in t.rows:
        value = r.get("Lossless priorities", "")
        out[r["Interface"]] = None if value == "N/A" else [int(p) for p in value.split(",") if p.strip()]
    return out


def show_pfc_asymmetric(text: str) -> dict[str, bool | None]:
    """``show pfc asymmetric`` -> {port: asymmetric PFC on?} (``N/A`` -> None)."""
    t = _table(text, "Interface", "show pfc asymmetric")
    return {r["Interface"]: {"on": True, "off": False}.get(r.get("Asymmetric", "")) for r in t.rows}


def show_pfc_counters(text: str) -> dict[str, dict[str, dict[int, int | None]]]:
    """``show pfc counters`` -> {"rx": {port: {prio: frames}}, "tx": {...}}."""
    out: dict[str, dict[str, dict[int, int | None]]] = {"rx": {}, "tx": {}}
    for headers, _, rule, rows in _block_lines(text):  # column by column: 8 counters a row
        if not headers or headers[0] not in ("Port Rx", "Port Tx"):
            continue
        ports, *per_prio = columns(headers, rule, rows, (headers[0], *_PFC_HEADERS))
        assert ports is not None  # headers[0] is a header of the block
        values = [counters(cells) if cells is not None else [None] * len(ports) for cells in per_prio]
        table = out["rx" if headers[0] == "Port Rx" else "tx"]
        for port, *frames in zip(ports, *values, strict=True):
            table[port] = dict(zip(_PRIOS, frames, strict=True))
    if not out["rx"] and not out["tx"] and text.strip():
        raise ParseError("`show pfc counters`: no 'Port Rx'/'Port Tx' tables in the output")
    return out


def _scaled(value: int | None, factor: int) -> int | None:
    return None if value is None else value * factor


def show_pfc_counters_history(text: str) -> dict[str, dict[int, dict[str, Any]]]:
    """``show pfc counters --history`` -> {port: {prio: {rx_pause_transitions, total_rx_pause_time_us,
    recent_rx_pause_time_us, recent_rx_pause_timestamp}}} (the table is split by blank lines per port).

    Releases print the times in microseconds (``Total RX Pause Time US``) or milliseconds (``... Time MS``,
    sonic-utilities tests/pfcstat_test.py @ bb00384); both come back in microseconds.
    """
    out: dict[str, dict[int, dict[str, Any]]] = {}
    first = _table(text, "Port", "show pfc counters --history")
    spans_line = next(line for line in text.splitlines() if _RULE.match(line))
    spans = _spans(spans_line)
    headers = first.headers
    unit, scale = ("US", 1) if "Total RX Pause Time US" in headers else ("MS", 1000)
    if f"Total RX Pause Time {unit}" not in headers:
        raise ParseError("`show pfc counters --history`: no 'Total RX Pause Time US' or '... MS' column")
    for line in text.splitlines():
        if not line.strip() or _RULE.match(line) or line.split()[0] == "Port":
            continue
        r = dict(zip(headers, _cells(line, spans), strict=True))
        prio = int(r["Priority"].removeprefix("PFC"))
        out.setdefault(r["Port"], {})[prio] = {
            "rx_pause_transitions": counter(r.get("RX Pause Transitions")),
            "total_rx_pause_time_us": _scaled(counter(r.get(f"Total RX Pause Time {unit}")), scale),
            "recent_rx_pause_time_us": _scaled(counter(r.get(f"Recent RX Pause Time {unit}")), scale),
            "recent_rx_pause_timestamp": r.get("Recent RX Pause Timestamp"),
        }
    return out


# --------------------------------------------------------------------------- queues


_PFC_COLUMNS = tuple((p, f"PFC{p}") for p in range(8))
_PRIOS = tuple(p for p, _ in _PFC_COLUMNS)
_PFC_HEADERS = tuple(col for _, col in _PFC_COLUMNS)
_QUEUE_COLUMNS = {"Counter/pkts": "totalpacket", "Counter/bytes": "totalbytes", "Drop/pkts": "droppacket",
                  "Drop/bytes": "dropbytes"}
_WRED_COLUMNS = {"WredDrp/pkts": "wred_drop_packets", "WredDrp/bytes": "wred_drop_bytes",
                 "EcnMarked/pkts": "ecn_marked_packets", "EcnMarked/bytes": "ecn_marked_bytes"}


@lru_cache(maxsize=256)  # UC0..UC7, MC0..MC7: the same few names on every port
def _queue_id(txq: str) -> tuple[str, int]:
    m = _QUEUE_NAME.fullmatch(txq)
    if m is None:
        raise ParseError(f"unexpected queue name {txq!r}")
    return m.group(1), int(m.group(2))


def _queue_tables(text: str, command: str, columns: dict[str, str]) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    found = False
    for headers, _, rows in _blocks(text):  # rows as cell lists: a port has a row per queue
        if not headers or headers[0] != "Port":
            continue
        found = True
        at = {h: k for k, h in enumerate(headers)}  # as in a row dict, a repeated header means its last column
        wanted = [(key, at.get(col)) for col, key in columns.items()]
        for cells in rows:
            kind, index = _queue_id(cells[at["TxQ"]])
            entry: dict[str, Any] = {"type": kind, "index": index}
            for key, k in wanted:
                value = cells[k] if k is not None else None
                entry[key] = int(value) if value and value.isdecimal() else counter(value)  # cells are stripped
            out.setdefault(cells[at["Port"]], {})[cells[at["TxQ"]]] = entry
    if not found and text.strip():
        raise ParseError(f"`{command}`: no 'Port  TxQ' tables in the output")
    return out


def show_queue_counters(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    """``show queue counters [PORT]`` -> {port: {"UC3": {type, index, totalpacket, totalbytes, droppacket,
    dropbytes}}} (one table per port, each under ``For namespace ...:``)."""
    return _queue_tables(text, "show queue counters", _QUEUE_COLUMNS)


def show_queue_counters_json(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    """``show queue counters [PORT] --json`` -> the same shape as :func:`show_queue_counters` (the per-port
    ``time``/``cached_time`` keys are dropped)."""
    try:
        doc = json_text.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"`show queue counters --json`: not JSON ({exc.msg})") from None
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for port, queues in doc.items():
        for name, fields in queues.items():
            if not isinstance(fields, dict):
                continue  # "time", "cached_time"
            kind, index = _queue_id(name)
            entry: dict[str, Any] = {"type": kind, "index": index}
            entry.update({key: counter(str(fields.get(key))) for key in _QUEUE_COLUMNS.values()})
            out.setdefault(port, {})[name] = entry
    return out


def show_queue_wredcounters(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    """``show queue wredcounters [PORT]`` -> {port: {"UC3": {type, index, wred_drop_packets, wred_drop_bytes,
    ecn_marked_packets, ecn_marked_bytes}}}."""
    return _queue_tables(text, "show queue wredcounters", _WRED_COLUMNS)


# --------------------------------------------------------------------------- PFC watchdog, ECN, buffers


def pfcwd_show_config(text: str) -> dict[str, Any]:
    """``pfcwd show config`` / ``show pfcwd config`` -> {poll_interval, big_red_switch, ports: {port: {action,
    detection_time, restoration_time, history}}}; times are ints (``N/A``/``infinite`` -> None)."""
    poll = re.search(r"^Changed polling interval to (\d+)ms", text, re.M)
    brs = re.search(r"^BIG_RED_SWITCH status is (\S+)", text, re.M)
    t = _table(text, "PORT", "pfcwd show config")
    ports = {
        r["PORT"]: {
            "action": r.get("ACTION"),
            "detection_time": counter(r.get("DETECTION TIME")),
            "restoration_time": counter(r.get("RESTORATION TIME")),
            "history": r.get("HISTORY"),
        }
        for r in t.rows
    }
    return {"poll_interval": int(poll.group(1)) if poll else None, "big_red_switch": brs.group(1) if brs else None,
            "ports": ports}


def _pair(cell: str | None) -> tuple[int | None, int | None]:
    if not cell or "/" not in cell:
        return None, None
    a, b = cell.split("/", 1)
    return counter(a), counter(b)


def pfcwd_show_stats(text: str) -> dict[tuple[str, int], dict[str, Any]]:
    """``pfcwd show stats`` -> {(port, queue): {status, storm_detected, storm_restored, tx_ok, tx_drop, rx_ok,
    rx_drop, tx_last_ok, tx_last_drop, rx_last_ok, rx_last_drop}}. Queues whose counters are all zero are
    not printed by SONiC (without ``--empty``), so an empty table means "no storm ever"."""
    t = _table(text, "QUEUE", "pfcwd show stats")
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for r in t.rows:
        port, _, queue = r["QUEUE"].rpartition(":")
        status = r.get("STATUS")  # multi-ASIC backplane queues print N/A: not known, never a state
        entry: dict[str, Any] = {"status": None if status in (None, "", "N/A") else status}
        for col, (ka, kb) in {"STORM DETECTED/RESTORED": ("storm_detected", "storm_restored"),
                              "TX OK/DROP": ("tx_ok", "tx_drop"), "RX OK/DROP": ("rx_ok", "rx_drop"),
                              "TX LAST OK/DROP": ("tx_last_ok", "tx_last_drop"),
                              "RX LAST OK/DROP": ("rx_last_ok", "rx_last_drop")}.items():
            entry[ka], entry[kb] = _pair(r.get(col))
        out[(port, int(queue))] = entry
    return out


def ecnconfig_l(text: str) -> dict[str, dict[str, str]]:
    """``ecnconfig -l`` / ``show ecn`` -> {profile: {WRED_PROFILE field: value}} (values as printed)."""
    blocks = key_value_blocks(text, "ecnconfig -l")
    out: dict[str, dict[str, str]] = {}
    for title, fields in blocks.items():
        kind, _, name = title.partition(":")
        if kind.strip() != "Profile":
            raise ParseError(f"`ecnconfig -l`: unexpected block {title!r}")
        out[name.strip()] = fields
    return out


def show_buffer_information(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """``show buffer information`` -> {"pools": {name: fields}, "profiles": {name: fields}}; a profile's pool
    given in ABNF form (``[BUFFER_POOL:x]`` / ``[BUFFER_POOL|x]``) is reduced to its name."""
    out: dict[str, dict[str, dict[str, str]]] = {"pools": {}, "profiles": {}}
    for title, fields in key_value_blocks(text, "show buffer information").items():
        kind, _, name = title.partition(":")
        if kind.strip() == "Pool":
            out["pools"][name.strip()] = fields
        elif kind.strip() == "Profile":
            if "pool" in fields:
                fields = {**fields, "pool": _unref(fields["pool"])}
            out["profiles"][name.strip()] = fields
    return out


def _unref(value: str) -> str:
    m = re.fullmatch(r"\[[A-Z_]+[:|]([^\]]+)\]", value.strip())
    return m.group(1) if m else value.strip()
