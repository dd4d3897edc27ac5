"""Output formatting shared by the SONiC lab personality: the sonic-utilities look without its dependencies.

SONiC's show commands print with ``tabulate(..., tablefmt="simple")`` and sort ports with ``natsort``.
:func:`tabulate` reproduces the subset of tabulate's "simple" format they use (column width = the widest
cell, and for headed tables at least the header plus 2; numeric columns right-aligned, others per
``stralign``; trailing blanks stripped; dashed rule above and below a table without headers), so that
the lab prints byte-for-byte the layouts of ``shared/fixtures/sonic``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring_ascii as _encode_string  # type: ignore[attr-defined]
from typing import Any, Literal

from roceops.util.sorting import port_key

Align = Literal["left", "right"]



def _is_number(value: str) -> bool:
    if value.isdigit() and value.isascii():  # the common case, decided without float()
        return True
    try:
        float(value)
    except ValueError:
        return False
    return value.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity")


def _all_numbers(column: Sequence[str]) -> bool:
    if all(column):  # no empty cell: one isdigit() on the whole column decides for plain integers
        joined = "".join(column)
        if joined.isdigit() and joined.isascii():
            return True
    return all(map(_is_number, column))


def tabulate(rows: Sequence[Sequence[Any]], headers: Sequence[str] = (), *, stralign: Align = "left",
             numalign: Align = "right", text: bool = False) -> str:
    """``tabulate(rows, headers, tablefmt="simple", stralign=..., numalign=...)`` for string/int cells.

    >>> print(tabulate([["Ethernet0", "3,4"]], ["Interface", "Lossless priorities"]))
    Interface    Lossless priorities
    -----------  ---------------------
    Ethernet0    3,4
    >>> print(tabulate([["ecn", "ecn_all"], ["green_min_threshold", "1048576"]]))
    -------------------  -------
    ecn                  ecn_all
    green_min_threshold  1048576
    -------------------  -------

    ``text=True``: every row is a tuple of str (nothing to convert).
    """
    cells = rows if text else [tuple(map(str, row)) for row in rows]  # text: tuples of str already
    lengths = set(map(len, cells))
    ncols = len(headers) if headers else max(lengths, default=0)
    if lengths - {ncols}:
        if max(lengths) > ncols:
            raise ValueError("a row has more cells than the table has columns")
        cells = [(*r, *([""] * (ncols - len(r)))) for r in cells]
    columns = list(zip(*cells, strict=True)) if cells else [()] * ncols
    if stralign == numalign:  # every column aligns alike: no need to tell numbers from text
        aligns: list[Align] = [stralign] * ncols
    else:
        aligns = [numalign if col and _all_numbers(col) else stralign for col in columns]
    widths = [max([len(headers[i]) + 2 if headers else 0, *map(len, columns[i])]) for i in range(ncols)]
    fmt = "  ".join(f"%{'' if a == 'right' else '-'}{w}s" for w, a in zip(widths, aligns, strict=True))
    rule = "  ".join("-" * w for w in widths)
    out = [(fmt % tuple(headers)).rstrip(), rule] if headers else [rule]
    out += [(fmt % r).rstrip() for r in cells]
    if not headers:
        out.append(rule)
    return "\n".join(out)


def comma(value: int | None) -> str:
    """sonic-utilities ``format_number_with_comma`` (``N/A`` for a missing counter).

    >>> comma(1200), comma(None)
    ('1,200', 'N/A')
    """
    return "N/A" if value is None else f"{value:,}"


def speed_text(speed_mbps: int) -> str:
    """intfutil's speed column: ``400000`` -> ``400G``, ``100`` -> ``100M``.

    >>> speed_text(400_000), speed_text(25_000), speed_text(100)
    ('400G', '25G', '100M')
    """
    if speed_mbps < 1000:
        return f"{speed_mbps}M"
    if speed_mbps % 1000 >= 100:
        return f"{speed_mbps / 1000:.1f}G"
    return f"{speed_mbps // 1000}G"


# entries' fields in the layout of json.dumps(indent=4) at depth 3, written by the C encoder; field values are
# strings, so "},<indent>{" only ever stands between two entries (a field separator follows a closing quote)
_FIELD_SEP = ",\n            "
_ENTRY_SEP = "}" + _FIELD_SEP + "{"
_FIELDS = json.JSONEncoder(sort_keys=True, separators=(_FIELD_SEP, ": "))


def _indented_table(table: str, entries: Mapping[str, Mapping[str, Any]], comma: bool) -> str:
    """One table as ``json.dumps(indent=4)`` lays it out at depth 1 (lists across lines)."""
    fields = {k: {f: v if type(v) in (str, list) else str(v) for f, v in e.items()} for k, e in entries.items()}
    body = json.dumps({table: fields}, indent=4)[2:-2]
    return body + ("," if comma else "")


def cfggen_dump(doc: Mapping[str, Any]) -> str:
    """``sonic-cfggen --print-data``: tables and keys in natsort order, fields sorted, ``json.dumps(indent=4)``
    layout (written out with the C encoder, one call per table: the indenting encoder is pure Python)."""
    enc = _encode_string
    out = ["{"]
    tables = sorted(doc, key=port_key)
    for ti, table in enumerate(tables):
        entries = doc[table]
        if not entries:
            out.append(f"    {enc(table)}: {{}}{',' if ti < len(tables) - 1 else ''}")
            continue
        out.append(f"    {enc(table)}: {{")
        keys = sorted(entries, key=port_key)
        filled = [entries[key] for key in keys if entries[key]]
        # cfggen prints str(value), except leaf-lists ("field@" in redis), which ConfigDBConnector returns as lists
        if not all(type(v) is str for fields in filled for v in fields.values()):
            filled = [{name: v if type(v) in (str, list) else str(v) for name, v in fields.items()}
                      for fields in filled]
            if any(type(v) is list for fields in filled for v in fields.values()):  # rare: the slow, exact layout
                out[-1] = _indented_table(table, {k: dict(sorted(entries[k].items(), key=lambda i: i[0]))
                                                   for k in keys}, ti < len(tables) - 1)
                continue
        bodies = iter(_FIELDS.encode(filled)[2:-2].split(_ENTRY_SEP) if filled else ())
        for ki, key in enumerate(keys):
            sep = "," if ki < len(keys) - 1 else ""
            if not entries[key]:
                out.append(f"        {enc(key)}: {{}}{sep}")
                continue
            out.append(f"        {enc(key)}: {{\n            {next(bodies)}\n        }}{sep}")
        out.append(f"    }}{',' if ti < len(tables) - 1 else ''}")
    out.append("}")
    return "\n".join(out) if tables else "{}"


def redis_array(items: Sequence[str]) -> str:
    """redis-cli's reply formatting on a terminal: ``1) "x"`` with aligned indexes, ``(empty array)``.

    >>> print(redis_array(["a", "b"]))
    1) "a"
    2) "b"
    """
    if not items:
        return "(empty array)"
    width = len(str(len(items)))
    return "\n".join(f"{str(i).rjust(width)}) {json.dumps(item)}" for i, item in enumerate(items, start=1))


def frr_uptime(seconds: float) -> str:
    """FRR ``peer_uptime``: ``hh:mm:ss`` below a day, ``XdYYhZZm`` below a week, else ``XXwYdZZh``.

    >>> frr_uptime(3725), frr_uptime(90_000), frr_uptime(1_000_000)
    ('01:02:05', '1d01h00m', '01w4d13h')
    """
    s = int(seconds)
    days, rem = divmod(s, 86_400)
    hours, rem = divmod(rem, 3600)
    minutes, secs = divmod(rem, 60)
    if days == 0:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    if days < 7:
        return f"{days}d{hours:02d}h{minutes:02d}m"
    return f"{days // 7:02d}w{days % 7}d{hours:02d}h"
