"""What the Cumulus driver reads of each port's NVUE outputs, without building every table (pure).

A switch answers five ``nv show interface <swp> ...`` commands per port and the driver keeps a few values
of each (``pfc-priority`` of ``qos roce status``, the pause frames of ``counters qos``...). Each reader here
gives the value the driver took from the full parser in :mod:`roceops.platforms.cumulus.parsers` (named in
its docstring) for the same text. It cuts out only the cells it needs, plus the cells the full parser
converts in a way that can fail; on anything unusual (a table or column missing, a cell that does not
convert) it asks the full parser instead, so a text the full parser rejects is rejected the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter

from roceops.platforms.cumulus.parsers import (
    _DASH_RUN,
    TableLines,
    _columns,
    _pfc_watchdog,
    int_list,
    number,
    parse_counters_errors,
    parse_counters_qos,
    parse_roce_counters,
    parse_roce_status,
    parse_scheduler_weight,
    size_bytes,
    table_lines,
)

__all__ = ["cnp_packets", "fcs_rx_errors", "pause_and_ecn", "pfc_priorities", "watchdog_deadlocks", "watchdog_state"]

CNP_PACKETS = "tx-stats.tx-cnp-stats.cnp-packets"
MAPPING = "RoCE PCP/DSCP->SP mapping configurations"
ETS = "RoCE SP->TC mapping and ETS configurations"
POOLS = "RoCE Pool Status"


class _AskTheParser(Exception):
    """The fast path met something only the full parser may judge."""


_FAILS = Exception  # whatever stops a fast path (ParseError, KeyError, ...): the full parser decides


@lru_cache(maxsize=256)  # the same few dashes rows on every port
def _cutter(dashes: str, columns: tuple[int, ...]) -> Callable[[str], tuple[str, ...]]:
    """:func:`parsers._columns` for the given columns only (by index, in that order)."""
    starts = [m.start() for m in _DASH_RUN.finditer(dashes)]
    ends: list[int | None] = [*starts[1:], None]
    cols = [slice(starts[k], ends[k]) for k in columns]
    if len(cols) == 1:
        return lambda line: (line[cols[0]],)
    return itemgetter(*cols)


def _header(t: TableLines) -> dict[str, int]:
    """Column name -> index, the last of a repeated name (as ``Table.records`` keeps it)."""
    return _header_of(t.dashes, t.header)


@lru_cache(maxsize=256)  # the same few headers on every port
def _header_of(dashes: str, header: str) -> dict[str, int]:
    return {h.strip(): k for k, h in enumerate(_columns(dashes)(header))}


@lru_cache(maxsize=256)
def _selector(dashes: str, header: str, names: tuple[str, ...], present: tuple[str, ...]
              ) -> Callable[[str], tuple[str, ...]]:
    """The cutter of columns ``names``; KeyError when the header lacks one of ``names`` or ``present``."""
    at = _header_of(dashes, header)
    if not at.keys() >= set(present):
        raise KeyError(present)
    return _cutter(dashes, tuple(at[name] for name in names))


def _cells(t: TableLines, names: tuple[str, ...], present: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The stripped cells of columns ``names`` of each row; fails when the table has rows and lacks one of
    ``names`` or ``present`` (the columns the full parser reads)."""
    if not t.rows:
        return []
    cut = _selector(t.dashes, t.header, names, present)
    return [tuple(map(str.strip, cut(line))) for line in t.rows]


def _titled(tables: list[TableLines], *titles: str) -> list[TableLines]:
    """The first table of each title (what ``parsers._titled`` finds); fails when one is missing."""
    first: dict[str | None, TableLines] = {}
    for t in tables:
        first.setdefault(t.title, t)
    return [first[title] for title in titles]


_Keys = tuple[frozenset[str], frozenset[str], tuple[str, ...]]


def _keys(*paths: str) -> _Keys:
    """(paths, the keys a row may have for its dotted path to be one of them, their last parts) for
    :func:`_kv_find`."""
    tails = frozenset(p[i + 1:] for p in paths for i, c in enumerate(p) if c == ".") | set(paths)
    return frozenset(paths), tails, tuple(dict.fromkeys(p.rsplit(".", 1)[-1] for p in paths))


def _kv_find(t: TableLines, keys: _Keys, values: list[str] | None = None) -> dict[str, str]:
    """What ``kv_entries`` gives for the dotted paths ``wanted``: path -> its first value cell (the last row of a
    repeated path; with ``values``, the last one with a value). ``values`` collects every row's first value
    cell. Fails for a table of one column.

    A row's enclosing key is the nearest row above it that is less indented (what ``kv_entries``' stack
    holds), so only the rows whose key can end a wanted path are followed up.
    """
    wanted, tails, lasts = keys
    cut = _cutter(t.dashes, (0, 1))
    rows = t.rows
    if values is not None:
        values += [value.strip() for _, value in map(cut, rows)]
    out: dict[str, str] = {}
    for r in sorted({r for last in lasts for r, line in enumerate(rows) if last in line}):
        first, value = cut(rows[r])
        name = first.strip()
        if name not in tails:
            continue
        parts, need = [name], len(first) - len(first.lstrip())
        for above in reversed(rows[:r]):
            if need <= 0:
                break
            key = cut(above)[0]
            indent = len(key) - len(key.lstrip())
            if indent < need:
                parts.append(key.strip())
                need = indent
        path = ".".join(reversed(parts))
        if path in wanted and (values is None or value.strip()):
            out[path] = value.strip()
    return out


# --------------------------------------------------------------------------- readers

_ROCE_STATUS_KEYS = _keys("pfc.pfc-priority", "congestion-control.min-threshold", "congestion-control.max-threshold")
_CNP_KEYS = _keys(CNP_PACKETS)


def pfc_priorities(text: str) -> list[int]:
    """``parse_roce_status(text)["pfc-priority"]`` (``nv show interface <swp> qos roce status``)."""
    try:
        return _pfc_priorities(text)
    except _FAILS:
        return parse_roce_status(text)["pfc-priority"]  # type: ignore[no-any-return]


def _pfc_priorities(text: str) -> list[int]:
    tables = table_lines(text)
    if not tables or tables[0].title is not None:
        raise _AskTheParser
    mapping, ets, pools = _titled(tables, MAPPING, ETS, POOLS)
    if mapping.rows and not _header(mapping).keys() >= {"", "pcp", "dscp", "switch-prio"}:
        raise _AskTheParser
    for (weight,) in _cells(ets, ("scheduler-weight",), ("", "switch-prio", "traffic-class")):
        parse_scheduler_weight(weight)
    for size, current, peak in _cells(pools, ("size", "current-usage", "max-usage"),
                                      ("name", "mode", "pool-id", "switch-priorities", "traffic-class")):
        size_bytes(size), size_bytes(current), size_bytes(peak)
    kv = _kv_find(tables[0], _ROCE_STATUS_KEYS)
    for key in ("congestion-control.min-threshold", "congestion-control.max-threshold"):
        size_bytes(kv.get(key, ""))
    return int_list(kv.get("pfc.pfc-priority", ""))


def pause_and_ecn(text: str) -> tuple[dict[int, tuple[int | None, int | None]], int | None]:
    """From ``parse_counters_qos(text)`` (``nv show interface <swp> counters qos``): switch priority ->
    (``rx-pause-frames``, ``tx-pause-frames``) of ``pfc``, and ``port["ecn-marked-packets"]["tx"]`` (None
    without that row)."""
    try:
        return _pause_and_ecn(text)
    except _FAILS:
        q = parse_counters_qos(text)
        return ({sp: (row["rx-pause-frames"], row["tx-pause-frames"]) for sp, row in q["pfc"].items()},
                (q["port"].get("ecn-marked-packets") or {}).get("tx"))


def _pause_and_ecn(text: str) -> tuple[dict[int, tuple[int | None, int | None]], int | None]:
    ingress, egress, pfc, port = _titled(table_lines(text), "Ingress Buffer Statistics", "Egress Queue Statistics",
                                         "PFC Statistics", "Qos Port Statistics")
    for pg, discards, shared in _cells(ingress, ("priority-group", "rx-buffer-discards", "rx-shared-buffer-discards"),
                                       ("rx-frames",)):
        int(pg), size_bytes(discards), size_bytes(shared)
    for tc, sent, discards in _cells(egress, ("traffic-class", "tx-bytes", "tx-uc-buffer-discards"),
                                     ("tx-frames", "wred-discards")):
        int(tc), size_bytes(sent), size_bytes(discards)
    frames = {int(sp): (number(rx), number(tx)) for sp, rx, tx in _cells(
        pfc, ("switch-priority", "rx-pause-frames", "tx-pause-frames"), ("rx-pause-duration", "tx-pause-duration"))}
    marked: int | None = None
    for counter, sent in _cells(port, ("Counter", "Transmit"), ("Receive",)):
        if counter == "ecn-marked-packets":
            marked = number(sent)
    return frames, marked


@lru_cache(maxsize=256)  # most ports print the same (all-zero) error counters
def fcs_rx_errors(text: str) -> int | None:
    """``parse_counters_errors(text)["FCS Errors"]["rx"]`` (None without that row)."""
    try:
        tables = table_lines(text)
        if not tables or "Counter" not in _header(tables[0]):
            raise _AskTheParser
        found: int | None = None
        for counter, received in _cells(tables[0], ("Counter", "Receive"), ("Transmit",)):
            if counter == "FCS Errors":
                found = number(received)
        return found
    except _FAILS:
        return (parse_counters_errors(text).get("FCS Errors") or {}).get("rx")


def cnp_packets(text: str) -> int | None:
    """``parse_roce_counters(text)["tx-stats.tx-cnp-stats.cnp-packets"]`` (None without it)."""
    try:
        tables = table_lines(text)
        if not tables:
            raise _AskTheParser
        values: list[str] = []
        found = _kv_find(tables[0], _CNP_KEYS, values)
        for value in set(values):
            if value:
                size_bytes(value)  # as the full parser converts every value (and may fail on one)
        return size_bytes(found[CNP_PACKETS]) if CNP_PACKETS in found else None
    except _FAILS:
        return parse_roce_counters(text).get(CNP_PACKETS)


def watchdog_state(text: str) -> str:
    """``parse_pfc_watchdog(text)["state"]``."""
    return _pfc_watchdog(text)[0]


def watchdog_deadlocks(text: str) -> int:
    """The sum of ``deadlock-count`` (None as 0) over ``parse_pfc_watchdog(text)["status"]``."""
    counts = {tc: count for tc, _, count in _pfc_watchdog(text)[2]}  # a repeated traffic class: its last row
    return sum(count or 0 for count in counts.values())
