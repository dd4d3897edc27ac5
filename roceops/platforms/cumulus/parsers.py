"""Pure parsers for Cumulus Linux NVUE output (text tables, ``-o json``, ``nv config show -o commands``).

Text tables (layouts of the captures in ``shared/fixtures/cumulus``): NVUE prints a key/value
table (indented keys, ``operational``/``applied``/``description`` columns, widths from the dashes
row) followed by titled tables (``Title`` / ``=====`` / header / dashes / rows). :func:`parse_tables`
reads both by column position, so empty cells are kept; every specific parser builds on it.

JSON shapes (NVUE's ``-o json`` is not publicly captured; the lab prints these, keys are the text
labels; a real switch that differs fails loudly in :func:`load_json`, never silently):

``nv show interface -o json``::

    {"swp1": {"type": "swp", "description": "...", "ip": {"address": {"10.0.0.0/31": {}}},
              "link": {"admin-status": "up", "oper-status": "up", "state": "up", "speed": "400G",
                       "mtu": 9216, "stats": {"carrier-transitions": 1, "in-pkts": 0, "out-pkts": 0,
                                              "in-errors": 0, "out-errors": 0, "in-drops": 0, ...}},
              "lldp": {"neighbor": {"<system name>": {"port": {"name": "<port>"}}}}}, ...}

``nv show vrf default router bgp neighbor -o json``::

    {"10.1.0.16": {"remote-as": 4200100000, "state": "established", "type": "numbered",
                   "description": "spine01", "interface": "swp5"}, ...}

``nv show system -o json``: ``{"hostname": ..., "build": "Cumulus Linux 5.14.0", "uptime": <s>, ...}``.

Sizes come back in bytes (``146.48 KB`` -> 149996, ``25000 B`` -> 25000, ``inf``/``n/a`` -> None).

``nv config show -o commands`` -> path -> values: :func:`config_paths` (the same as the renderer's
``nv_set_paths``, without shlex for plain lines).

Each parser reads its text once (one :func:`parse_tables` for all of a titled output's tables); the
watchdog output, which the audit reads three times per port, is memoised per text as immutable values
(a bounded cache), and :func:`parse_pfc_watchdog` builds fresh dicts from it.
"""

from __future__ import annotations

import ipaddress
import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from operator import itemgetter
from types import MappingProxyType
from typing import Any, NamedTuple

from roceops.platforms.cumulus.render import expand_lists
from roceops.util import json_text

# a stripped line that is a dashes row (``----  ---``, group 1) or a title rule (``=====``)
_MARK = re.compile(r"(-+(?: +-+)*)|=+")
_DASH_RUN = re.compile(r"-+")
_DIGITS = re.compile(r"\d+")
_SPEED = re.compile(r"(\d+)([GM])")
_SIZE = re.compile(r"\s*([\d.]+)\s*([A-Za-z]*)\s*")
_SHELL_SPECIAL = re.compile(r"['\"\\]|[^\S ]")  # needs shlex: quotes, escapes, whitespace other than spaces
_UNITS = {"B": 1, "BYTES": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}


class ParseError(ValueError):
    """Output that does not have the expected shape (the message names the command's table)."""


@dataclass
class Table:
    title: str | None
    header: list[str]
    rows: list[list[str]]
    indents: list[int] = field(default_factory=list)  # indentation of each row's first cell

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.header, row, strict=True)) for row in self.rows]


@lru_cache(maxsize=256)  # every port's output repeats the same few dashes rows
def _columns(dash_line: str) -> Callable[[str], tuple[str, ...]]:
    """Line -> its unstripped cells: column ``i`` runs from the start of the ``i``-th run of dashes to the
    start of the next one (the last column to the end of the line)."""
    starts = [m.start() for m in _DASH_RUN.finditer(dash_line)]
    cols = [slice(a, b) for a, b in zip(starts, [*starts[1:], None], strict=True)]
    if len(cols) == 1:
        return lambda line: (line[cols[0]],)
    return itemgetter(*cols)


def parse_tables(text: str) -> list[Table]:
    """Every table in an NVUE text output, in order (key/value tables have ``title=None``).

    A line followed by a ``====`` rule is a title; a dashes row starts a table whose header is the line
    above it and whose rows run until the next title or the line before the next dashes row.
    """
    tables: list[Table] = []
    for title, dashes, header, lines in table_lines(text):
        cut = _columns(dashes)
        indents: list[int] = []
        rows: list[list[str]] = []
        for line in lines:
            cells = cut(line)
            first = cells[0]
            indents.append(len(first) - len(first.lstrip()))
            rows.append(list(map(str.strip, cells)))
        tables.append(Table(title, list(map(str.strip, cut(header))), rows, indents))
    return tables


class TableLines(NamedTuple):
    """A table of :func:`parse_tables` before its lines are cut into cells."""

    title: str | None
    dashes: str  # the dashes row: where the columns are
    header: str  # the line above it
    rows: list[str]  # the non-blank lines of its rows


def table_lines(text: str) -> list[TableLines]:
    """The tables :func:`parse_tables` reads, as lines (for readers that want a few of their cells)."""
    if "\r" in text:
        text = text.replace("\r", "")
    lines = text.split("\n")
    n = len(lines)
    dashes: set[int] = set()
    titles: set[int] = set()
    for k, line in enumerate(lines):
        if ("-" in line or "=" in line) and (body := line.lstrip())[:1] in ("-", "=") and (
                m := _MARK.fullmatch(body.rstrip())):
            if m.group(1) is not None:
                dashes.add(k)
            elif k > 0 and lines[k - 1].strip():
                titles.add(k - 1)  # a title is the non-blank line above a ==== rule
    events = sorted(dashes | titles)  # every other line is either a table row or skipped

    tables: list[TableLines] = []
    title: str | None = None
    i = k = 0
    while True:
        while k < len(events) and events[k] < i:
            k += 1
        if k == len(events):
            break
        i = events[k]
        if i in titles:
            title, i = lines[i].strip(), i + 2
            continue
        # a dashes row: the rows run up to the next title, or up to the header of the next dashes row
        end = n
        for e in events[k + 1:]:
            if e in dashes and e >= i + 2:
                end = e - 1
                break
            if e in titles:
                end = e
                break
        rows = [line for line in lines[i + 1:end] if line and not line.isspace()]
        tables.append(TableLines(title, lines[i], lines[i - 1] if i > 0 else "", rows))
        title, i = None, end
    return tables


def kv_entries(table: Table) -> list[tuple[str, list[str]]]:
    """Rows of a key/value table as (dotted path from the indentation, value cells)."""
    stack: list[tuple[int, str]] = []  # (indentation, dotted path) of the enclosing keys
    out = []
    for indent, row in zip(table.indents, table.rows, strict=True):
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = f"{stack[-1][1]}.{row[0]}" if stack else row[0]
        stack.append((indent, path))
        out.append((path, row[1:]))
    return out


def _kv(tables: list[Table], what: str) -> dict[str, list[str]]:
    if not tables or tables[0].title is not None:
        raise ParseError(f"{what}: no key/value table")
    return {path: cells for path, cells in kv_entries(tables[0])}


def _titled(tables: list[Table], title: str, what: str) -> Table:
    for t in tables:
        if t.title == title:
            return t
    raise ParseError(f"{what}: no '{title}' table")


@lru_cache(maxsize=4096)  # a few hundred distinct sizes per switch, most of them "0 Bytes"
def size_bytes(text: str) -> int | None:
    """``146.48 KB`` -> 149996, ``25000 B`` -> 25000, ``0 Bytes`` -> 0; ``inf``/``n/a``/``-``/empty -> None.

    >>> size_bytes("146.48 KB"), size_bytes("25000 B"), size_bytes("1.43 MB"), size_bytes("inf")
    (149996, 25000, 1499464, None)
    """
    m = _SIZE.fullmatch(text or "")
    if not m:
        return None
    unit = m.group(2).upper() or "B"
    if unit not in _UNITS:
        return None
    return round(float(m.group(1)) * _UNITS[unit])


def number(text: str) -> int | None:
    """Digits -> int, anything else -> None."""
    text = (text or "").strip()
    return int(text) if text.isdecimal() else None  # isdecimal: exactly the digits of ``\d``


def int_list(text: str) -> list[int]:
    """``0,3`` -> [0, 3]; ``-``/empty -> []."""
    return [int(x) for x in _DIGITS.findall(text or "")] if (text or "").strip() not in ("", "-") else []


# --------------------------------------------------------------------------- qos (global)


def parse_qos_roce(text: str) -> dict[str, Any]:
    """``nv show qos roce``: preset state, PFC/ECN summary, trust and the mapping/ETS/pool tables.

    The preset's switch is read from either release's row: ``enable`` (on/off, <= 5.14) or ``state``
    (enabled/disabled, 5.15+), and returned both ways (``enable`` on/off, ``state`` enabled/disabled).
    """
    tables = parse_tables(text)
    kv = _kv(tables, "nv show qos roce")

    def op(key: str) -> str:
        return kv.get(key, ["", ""])[0]

    mapping = _titled(tables, "RoCE PCP/DSCP->SP mapping configurations", "nv show qos roce")
    ets = _titled(tables, "RoCE SP->TC mapping and ETS configurations", "nv show qos roce")
    dscp_to_sp: dict[int, int] = {}
    pcp_to_sp: dict[int, int] = {}
    for rec in mapping.records():
        sp = int(rec["switch-prio"])
        dscp_to_sp.update({d: sp for d in int_list(rec["dscp"])})
        pcp_to_sp.update({p: sp for p in int_list(rec["pcp"])})
    sp_to_tc, scheduler = {}, {}
    for rec in ets.records():
        sp, tc = int(rec["switch-prio"]), int(rec["traffic-class"])
        sp_to_tc[sp] = tc
        scheduler[tc] = parse_scheduler_weight(rec["scheduler-weight"])
    pools = []
    for t in tables:
        if t.title == "RoCE pool config":
            pools = [{"name": r["name"], "mode": r["mode"], "size": r["size"],
                      "switch-priorities": int_list(r["switch-priorities"]),
                      "traffic-class": int_list(r["traffic-class"])} for r in t.records()]
    # <= 5.14 prints `enable ... on`; 5.16 prints `state ... enabled` (CumulusNetworks/docs content/cumulus-linux-516/
    # Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md @ 0da900a5, "Verify RoCE
    # Configuration"): both are read, as `enable` on|off and `state` enabled|disabled
    applied = kv.get("enable") or kv.get("state") or ["", ""]
    value = (applied[1] if len(applied) > 1 else "") or applied[0]
    enable = {"enabled": "on", "disabled": "off"}.get(value, value)
    return {
        "enable": enable,
        "state": {"on": "enabled", "off": "disabled"}.get(enable, enable),
        "mode": op("mode") or (kv.get("mode", ["", ""])[1] if len(kv.get("mode", [])) > 1 else ""),
        "pfc": {"pfc-priority": int_list(op("pfc.pfc-priority")), "rx-enabled": op("pfc.rx-enabled") == "enabled",
                "tx-enabled": op("pfc.tx-enabled") == "enabled", "cable-length": number(op("pfc.cable-length"))},
        "congestion-control": {"congestion-mode": op("congestion-control.congestion-mode"),
                               "enabled-tc": int_list(op("congestion-control.enabled-tc")),
                               "min-threshold": size_bytes(op("congestion-control.min-threshold")),
                               "max-threshold": size_bytes(op("congestion-control.max-threshold")),
                               "probability": number(op("congestion-control.probability"))},
        "trust-mode": op("trust.trust-mode"),
        "lldp-app-tlv": {"priority": number(op("lldp-app-tlv.priority")),
                         "protocol-id": number(op("lldp-app-tlv.protocol-id")),
                         "selector": op("lldp-app-tlv.selector")},
        "dscp_to_sp": dict(sorted(dscp_to_sp.items())),
        "pcp_to_sp": dict(sorted(pcp_to_sp.items())),
        "sp_to_tc": dict(sorted(sp_to_tc.items())),
        "scheduler": dict(sorted(scheduler.items())),
        "pools": pools,
    }


def parse_scheduler_weight(label: str) -> dict[str, Any]:
    """``DWRR-50%`` / ``dwrr-50%`` -> dwrr 50; ``strict-priority`` / ``strict priority`` -> strict.

    >>> parse_scheduler_weight("DWRR-50%"), parse_scheduler_weight("strict priority")
    ({'mode': 'dwrr', 'weight': 50}, {'mode': 'strict', 'weight': None})
    """
    m = re.fullmatch(r"(?i)dwrr-(\d+)%", label.strip())
    if m:
        return {"mode": "dwrr", "weight": int(m.group(1))}
    if label.strip().lower().replace("-", " ") == "strict priority":
        return {"mode": "strict", "weight": None}
    raise ParseError(f"unknown scheduler-weight {label!r}")


def parse_qos_pfc(text: str) -> dict[str, Any]:
    """``nv show qos pfc <profile>`` -> operational values (and ``applied`` for the set)."""
    tables = parse_tables(text)
    if not tables:
        raise ParseError("nv show qos pfc: no table")
    out: dict[str, Any] = {"switch-priority": [], "applied-switch-priority": []}
    for path, cells in kv_entries(tables[0]):
        op, applied = cells[0], cells[1] if len(cells) > 1 else ""
        if path == "[switch-priority]":
            out["switch-priority"] += int_list(op)
            out["applied-switch-priority"] += int_list(applied)
        elif path in ("rx", "tx"):
            out[path] = op == "enable"
        elif path == "cable-length":
            out[path] = number(op)
        elif path in ("port-buffer", "xoff-threshold", "xon-threshold"):
            out[path] = size_bytes(op)
    return out


_ECN_TITLES = ("ECN Configurations", "ECN configuration")


def parse_qos_congestion_control(text: str) -> dict[int, dict[str, Any]]:
    """``nv show qos congestion-control <profile>`` or ``nv show interface <swp> qos congestion-control`` ->
    traffic class -> ECN/RED/thresholds (bytes). The profile form titles its table ``ECN Configurations`` and
    prints bytes (``40000 B``); the interface form titles it ``ECN configuration`` and prints ``153.00 KB``
    (NVUE reference, Show-Commands/QoS.md @ 02191e8)."""
    tables = parse_tables(text)
    title = next((t.title for t in tables if t.title in _ECN_TITLES), _ECN_TITLES[0])
    table = _titled(tables, title, "nv show qos congestion-control")
    return {int(r["traffic-class"]): {"ecn": r["ECN"] == "enable", "red": r["RED"] == "enable",
                                      "min": size_bytes(r["Min Th"]), "max": size_bytes(r["Max Th"]),
                                      "probability": number(r["Probability"])} for r in table.records()}


def parse_qos_egress_queue_mapping(text: str) -> dict[int, int]:
    """``nv show qos egress-queue-mapping <profile>`` -> switch priority -> traffic class."""
    table = _titled(parse_tables(text), "SP->TC mapping configuration", "nv show qos egress-queue-mapping")
    return {int(r["switch-priority"]): int(r["traffic-class"]) for r in table.records()}


# --------------------------------------------------------------------------- per interface


def parse_pfc_watchdog(text: str) -> dict[str, Any]:
    """``nv show interface <swp> qos pfc-watchdog`` -> state and per-TC status/deadlock-count."""
    state, applied, status = _pfc_watchdog(text)
    return {"state": state, "applied": applied,
            "status": {tc: {"status": st, "deadlock-count": count} for tc, st, count in status}}


@lru_cache(maxsize=1024)  # the audit reads each port's watchdog three times
def _pfc_watchdog(text: str) -> tuple[str, str, tuple[tuple[int, str, int | None], ...]]:
    tables = parse_tables(text)
    if not tables:
        raise ParseError("nv show interface qos pfc-watchdog: no table")
    kv = dict(kv_entries(tables[0]))
    state = kv.get("state", [""])
    status: tuple[tuple[int, str, int | None], ...] = ()
    for t in tables[1:]:
        if t.title and t.title.startswith("PFC WD Status"):
            status = tuple((int(r["traffic-class"]), r["status"], number(r["deadlock-count"])) for r in t.records())
    return state[0], state[1] if len(state) > 1 else "", status


def parse_counters_qos(text: str) -> dict[str, Any]:
    """``nv show interface <swp> counters qos`` -> ingress PGs, egress TCs, PFC per SP, port counters."""
    what = "nv show interface counters qos"
    tables = parse_tables(text)
    ingress = {int(r["priority-group"]): {"rx-frames": number(r["rx-frames"]),
                                          "rx-buffer-discards": size_bytes(r["rx-buffer-discards"]),
                                          "rx-shared-buffer-discards": size_bytes(r["rx-shared-buffer-discards"])}
               for r in _titled(tables, "Ingress Buffer Statistics", what).records()}
    egress = {int(r["traffic-class"]): {"tx-frames": number(r["tx-frames"]), "tx-bytes": size_bytes(r["tx-bytes"]),
                                        "tx-uc-buffer-discards": size_bytes(r["tx-uc-buffer-discards"]),
                                        "wred-discards": number(r["wred-discards"])}
              for r in _titled(tables, "Egress Queue Statistics", what).records()}
    pfc = {int(r["switch-priority"]): {k: number(r[k]) for k in ("rx-pause-frames", "rx-pause-duration",
                                                                 "tx-pause-frames", "tx-pause-duration")}
           for r in _titled(tables, "PFC Statistics", what).records()}
    port = {r["Counter"]: {"rx": number(r["Receive"]), "tx": number(r["Transmit"])}
            for r in _titled(tables, "Qos Port Statistics", what).records()}
    return {"ingress": ingress, "egress": egress, "pfc": pfc, "port": port}


def parse_counters_errors(text: str) -> dict[str, dict[str, int | None]]:
    """``nv show interface <swp> counters errors`` -> counter -> {rx, tx} (``n/a`` -> None)."""
    tables = parse_tables(text)
    if not tables or "Counter" not in tables[0].header:
        raise ParseError("nv show interface counters errors: no Counter table")
    return {r["Counter"]: {"rx": number(r["Receive"]), "tx": number(r["Transmit"])} for r in tables[0].records()}


def parse_roce_counters(text: str) -> dict[str, int | None]:
    """``nv show interface <swp> qos roce counters`` -> ``group.sub.counter`` -> value (sizes in bytes)."""
    tables = parse_tables(text)
    if not tables:
        raise ParseError("nv show interface qos roce counters: no table")
    return {path: size_bytes(cells[0]) for path, cells in kv_entries(tables[0]) if cells and cells[0]}


def parse_roce_status(text: str) -> dict[str, Any]:
    """``nv show interface <swp> qos roce status`` -> operational settings, mapping, ETS and pool status."""
    what = "nv show interface qos roce status"
    tables = parse_tables(text)
    kv = _kv(tables, what)

    def op(key: str) -> str:
        return kv.get(key, [""])[0]

    mapping = {r[""]: {"pcp": int_list(r["pcp"]), "dscp": int_list(r["dscp"]), "switch-prio": number(r["switch-prio"])}
               for r in _titled(tables, "RoCE PCP/DSCP->SP mapping configurations", what).records()}
    ets = {r[""]: {"switch-prio": number(r["switch-prio"]), "traffic-class": number(r["traffic-class"]),
                   **parse_scheduler_weight(r["scheduler-weight"])}
           for r in _titled(tables, "RoCE SP->TC mapping and ETS configurations", what).records()}
    pools = [{"name": r["name"], "mode": r["mode"], "pool-id": number(r["pool-id"]),
              "switch-priorities": int_list(r["switch-priorities"]), "traffic-class": int_list(r["traffic-class"]),
              "size": size_bytes(r["size"]), "current-usage": size_bytes(r["current-usage"]),
              "max-usage": size_bytes(r["max-usage"])}
             for r in _titled(tables, "RoCE Pool Status", what).records()]
    return {
        "mode": op("mode"),
        "congestion-mode": op("congestion-control.congestion-mode"),
        "enabled-tc": int_list(op("congestion-control.enabled-tc")),
        "min-threshold": size_bytes(op("congestion-control.min-threshold")),
        "max-threshold": size_bytes(op("congestion-control.max-threshold")),
        "probability": number(op("congestion-control.probability")),
        "pfc-priority": int_list(op("pfc.pfc-priority")),
        "rx-enabled": op("pfc.rx-enabled") in ("yes", "enabled"),
        "tx-enabled": op("pfc.tx-enabled") in ("yes", "enabled"),
        "trust-mode": op("trust.trust-mode"),
        "mapping": mapping, "ets": ets, "pools": pools,
    }


def parse_ber_view(text: str) -> dict[str, dict[str, Any]]:
    """``nv show interface --view ber`` -> interface -> BERs (strings) and error counts."""
    tables = parse_tables(text)
    if not tables or "Interface" not in tables[0].header:
        raise ParseError("nv show interface --view ber: no Interface table")
    return {r["Interface"]: {"eff-ber": r["Eff-BER"], "raw-ber": r["Raw-BER"], "sym-ber": r["Sym-BER"],
                             "sym-errs": number(r["Sym-Errs"]), "eff-errs": number(r["Eff-Errs"])}
            for r in tables[0].records()}


# --------------------------------------------------------------------------- JSON


def load_json(text: str, what: str) -> dict[str, Any]:
    try:
        data = json_text.loads(text)
    except json.JSONDecodeError as exc:
        first = text.strip().splitlines()[0][:120] if text.strip() else "(empty)"
        raise ParseError(f"{what}: not JSON ({exc.msg}): {first}") from None
    if not isinstance(data, dict):
        raise ParseError(f"{what}: expected a JSON object, got {type(data).__name__}")
    return data


def parse_interfaces_json(text: str) -> dict[str, dict[str, Any]]:
    """``nv show interface -o json`` -> name -> {type, oper_up, admin_up, speed (Mb/s), mtu, stats, lldp, addresses,
    description}."""
    out = {}
    for name, entry in load_json(text, "nv show interface -o json").items():
        if not isinstance(entry, dict):
            raise ParseError(f"nv show interface -o json: entry {name!r} is not an object")
        link = entry.get("link") or {}
        neighbors = ((entry.get("lldp") or {}).get("neighbor") or {})
        lldp = None
        for system, nb in neighbors.items():
            port = (nb.get("port") or {}).get("name") if isinstance(nb, dict) else None
            lldp = (system, port or "")
            break
        out[name] = {"type": entry.get("type"),
                     "oper_up": link.get("oper-status") == "up" if "oper-status" in link else None,
                     "admin_up": link.get("admin-status") == "up" if "admin-status" in link else None,
                     "speed": speed_mbps(str(link.get("speed", ""))), "mtu": link.get("mtu"),
                     "stats": dict(link.get("stats") or {}), "lldp": lldp,
                     "addresses": sorted(((entry.get("ip") or {}).get("address") or {}).keys()),
                     "description": entry.get("description", "")}
    return out


@lru_cache(maxsize=4)  # observe and operational read the same output
def interfaces_json(text: str) -> Mapping[str, dict[str, Any]]:
    """:func:`parse_interfaces_json`, remembered per text: one read-only mapping for every caller."""
    return MappingProxyType(parse_interfaces_json(text))


def speed_mbps(text: str) -> int | None:
    """``400G`` -> 400000, ``2500M`` -> 2500; anything else -> None."""
    m = _SPEED.fullmatch(text.strip())
    if not m:
        return None
    return int(m.group(1)) * (1000 if m.group(2) == "G" else 1)


def parse_bgp_neighbors_json(text: str) -> dict[str, dict[str, Any]]:
    """``nv show vrf <vrf> router bgp neighbor -o json`` -> ip -> {state, remote-as, ...}."""
    data = load_json(text, "nv show vrf router bgp neighbor -o json")
    return {ip: nb for ip, nb in data.items() if isinstance(nb, dict)}


def parse_system_json(text: str) -> dict[str, Any]:
    return load_json(text, "nv show system -o json")


# --------------------------------------------------------------------------- nv config show -o commands


def nv_split(line: str) -> list[str]:
    """``shlex.split(line)``; plain ``str.split()`` for a line without quotes, backslashes or whitespace other than
    spaces (most lines), where both give the same tokens.

    >>> nv_split("nv set system hostname leaf1"), nv_split("nv set interface swp1 description 'a b'")
    (['nv', 'set', 'system', 'hostname', 'leaf1'], ['nv', 'set', 'interface', 'swp1', 'description', 'a b'])
    """
    if _SHELL_SPECIAL.search(line):
        return shlex.split(line)
    return line.split()  # only spaces separate the tokens here


def _plain_commands(text: str) -> bool:
    """No line of ``text`` needs shlex: no quote or backslash, and (ASCII) no whitespace but blanks and newlines."""
    return text.isascii() and not any(c in text for c in "'\"\\\t\r\v\f\x1c\x1d\x1e\x1f")


_CONTROL = "".join(chr(c) for c in range(32) if c != 10)  # every ASCII control character but the newline


def _single_blanks(text: str) -> bool:
    """Plain lines whose tokens are separated by one blank, no comma list, no control character: the text after
    ``nv set `` is then the command's tokens joined by blanks, and ``" "`` sorts before any of their characters."""
    return (text.isascii() and "," not in text and not any(c in text for c in "'\"\\")
            and not any(c in text for c in _CONTROL) and "  " not in text)


def _plain_config_paths(text: str) -> dict[tuple[str, ...], set[str]]:
    """:func:`config_paths` of a :func:`_single_blanks` text, comparing each command as one string."""
    commands = [line[7:] for line in map(str.strip, text.splitlines()) if line.startswith("nv set ")]
    # a strict prefix of some command sorts right before a command that extends it
    ordered = sorted(set(commands))
    prefixes = {a for a, b in pairwise(ordered) if b.startswith(a + " ")}
    paths: dict[tuple[str, ...], set[str]] = {}
    for cmd in commands:
        if cmd not in prefixes:
            head, _, last = cmd.rpartition(" ")
            path = tuple(head.split(" ")) if head else ()
            values = paths.get(path)
            if values is None:
                paths[path] = {last}
            else:
                values.add(last)
    return paths


def config_paths(text: str) -> dict[tuple[str, ...], set[str]]:
    """The ``nv set`` lines of ``nv config show -o commands`` as path -> values.

    Same result as :func:`roceops.platforms.cumulus.render.nv_set_paths` on those lines (comma lists
    expanded, object-creating prefixes left out), tokenised with :func:`nv_split`.
    """
    if _single_blanks(text):
        return _plain_config_paths(text)
    commands: list[tuple[str, ...]] = []
    number = 0
    split = str.split if _plain_commands(text) else nv_split  # every line plain: nv_split is str.split
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("nv set "):
            continue
        number += 1
        tokens = split(stripped)
        if tokens[:2] != ["nv", "set"] or len(tokens) < 3:
            raise ValueError(f"line {number}: not an 'nv set' command: {line!r}")
        if "," in stripped:
            commands.extend(expand_lists(tokens[2:]))
        else:
            commands.append(tuple(tokens[2:]))
    # a strict prefix of some command sorts right before a command that extends it
    ordered = sorted(set(commands))
    prefixes = {a for a, b in pairwise(ordered) if len(b) > len(a) and b[:len(a)] == a}
    paths: dict[tuple[str, ...], set[str]] = {}
    for cmd in commands:
        if cmd not in prefixes:
            paths.setdefault(cmd[:-1], set()).add(cmd[-1])
    return paths


@lru_cache(maxsize=4096)
def interface_network(prefix: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network of an interface address (``10.0.0.1/31`` -> ``10.0.0.0/31``), None when it does not parse.

    Memoised: the audit looks every BGP neighbour up in the same list of interface addresses.
    """
    try:
        return ipaddress.ip_interface(prefix).network
    except ValueError:
        return None
