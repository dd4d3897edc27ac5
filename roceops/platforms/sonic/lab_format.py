"""Output formatting shared by the SONiC lab personality: the sonic-utilities look without its dependencies.

SONiC's show commands print with ``tabulate(..., tablefmt="simple")`` and sort ports with ``natsort``.
:func:`tabulate` reproduces the subset of tabulate's "simple" format they use (column width = the widest
cell, and for headed tables at least the header plus 2; numeric columns right-aligned, others per
``stralign``; trailing blanks stripped; dashed rule above and below a table without headers), so that
the lab prints byte-for-byte the layouts of ``shared/fixtures/sonic``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from json.encoder import encode_basestring_ascii as _encode_string  # type: ignore[attr-defined]
from typing import Any, Literal

Align = Literal["left", "right"]

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """natsort's default key: digit runs compare as numbers.

    >>> sorted(["Ethernet16", "Ethernet8", "Ethernet0"], key=natural_key)
    ['Ethernet0', 'Ethernet8', 'Ethernet16']
    """
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(text))


def natsorted(items: Iterable[str]) -> list[str]:
    return sorted(items, key=natural_key)


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity")


def tabulate(rows: Sequence[Sequence[Any]], headers: Sequence[str] = (), *, stralign: Align = "left",
             numalign: Align = "right") -> str:
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
    """
    cells = [[str(v) for v in row] for row in rows]
    ncols = len(headers) if headers else max((len(r) for r in cells), default=0)
    columns = [[r[i] if i < len(r) else "" for r in cells] for i in range(ncols)]
    aligns: list[Align] = [numalign if col and all(_is_number(v) for v in col) else stralign for col in columns]
    widths = [max([len(headers[i]) + 2 if headers else 0, *(len(v) for v in columns[i])]) for i in range(ncols)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if a == "right" else v.ljust(w)
                         for v, w, a in zip(values, widths, aligns, strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [line(list(headers)), rule] if headers else [rule]
    out.extend(line(row + [""] * (ncols - len(row))) for row in cells)
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


def cfggen_dump(doc: Mapping[str, Any]) -> str:
    """``sonic-cfggen --print-data``: tables and keys in natsort order, fields sorted, ``json.dumps(indent=4)``
    layout (written out with the C string encoder: the indenting encoder is pure Python and 6x slower)."""
    enc = _encode_string
    out = ["{"]
    tables = sorted(doc, key=natural_key)
    for ti, table in enumerate(tables):
        entries = doc[table]
        if not entries:
            out.append(f"    {enc(table)}: {{}}{',' if ti < len(tables) - 1 else ''}")
            continue
        out.append(f"    {enc(table)}: {{")
        keys = sorted(entries, key=natural_key)
        for ki, key in enumerate(keys):
            fields = entries[key]
            sep = "," if ki < len(keys) - 1 else ""
            if not fields:
                out.append(f"        {enc(key)}: {{}}{sep}")
                continue
            out.append(f"        {enc(key)}: {{")
            names = sorted(fields)
            out.extend(f"            {enc(name)}: {enc(str(fields[name]))}{',' if i < len(names) - 1 else ''}"
                       for i, name in enumerate(names))
            out.append(f"        }}{sep}")
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
