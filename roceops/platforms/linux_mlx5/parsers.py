"""Pure parsers for the outputs a ConnectX Linux host gives: mlnx_qos, ethtool, iproute2 dcb/ip/rdma JSON
and text, sysfs ``grep -H`` dumps, sysctl, mlnx-tools ``cma_roce_*``.

Every parser takes the raw text (tabs or blanks, with or without headers/indentation) and
returns plain Python data; :class:`ParseError` says what was not understood. Tested on the real
captures in ``../shared/fixtures/linux_mlx5/``.

>>> parse_ethtool_stats("NIC statistics:\\n     rx_crc_errors_phy: 3\\n")
{'rx_crc_errors_phy': 3}
>>> parse_cma_roce_tos("106\\n")
106
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from roceops.platforms.text import breaks_only_at_lf
from roceops.util import json_text

__all__ = [
    "ParseError",
    "ethtool_counters",
    "parse_cma_roce_mode",
    "parse_cma_roce_tos",
    "parse_dcb_json",
    "parse_dcb_text",
    "parse_ethtool_driver",
    "parse_ethtool_fec",
    "parse_ethtool_pause",
    "parse_ethtool_settings",
    "parse_ethtool_stats",
    "parse_ip_json",
    "parse_mlnx_qos",
    "parse_rdma_links",
    "parse_sysctl",
    "parse_sysfs_grep",
    "sysfs_dict",
    "sysfs_values",
]

ROCE_MODES = ("IB/RoCE v1", "RoCE v2")
TSA = ("strict", "ets", "vendor", "cbs", "unknown")


class ParseError(ValueError):
    """The text is not the output this parser expects."""


def _plain(text: str) -> bool:
    """ASCII text whose only whitespace is blanks, tabs and newlines: there ``splitlines()`` breaks at ``\\n``
    only, ``\\s`` is ``[ \\t\\n]`` and ``\\d`` is ``[0-9]``, so a pattern over the whole text (``re.M``) reads each
    line as a per-line pattern does."""
    return text.isascii() and not any(c in text for c in "\r\v\f\x1c\x1d\x1e\x1f")


# ------------------------------------------------------------------------------------ mlnx_qos

_TC = re.compile(r"^tc:\s*(\d+)\s+ratelimit:\s*(unlimited|[\d.]+\s*Gbps),\s*tsa:\s*(\w+)(?:,\s*bw:\s*(\d+)%)?\s*$")
_UP = re.compile(r"^priority:\s*(\d+)\s*$")
_D2P = re.compile(r"^prio:(\d)\s+dscp:((?:\d{2},)*\d{0,2}),?$")
_QOS_HEADS = ("DCBX mode:", "Priority trust state:", "dscp2prio mapping:", "default priority:", "Receive buffer size",
              "Cable len:", "PFC configuration:")  # the lines that set or end a section


def parse_mlnx_qos(text: str) -> dict[str, Any]:
    """``mlnx_qos -i <if> [-a]`` status block (older and newer mlnx-tools layouts).

    Returns ``dcbx`` ("os"/"fw"), ``trust``, ``dscp2prio`` ({dscp: prio} of the listed APP entries,
    None unless trust is dscp), ``cable_len``, ``pfc`` (priorities with PFC on), ``pfc_buffer``
    (priority -> receive buffer, None when the row is absent), ``prio_tc`` ({prio: tc}),
    ``tcs`` ({tc: {"tsa", "bw", "ratelimit_gbps"}}; ``bw`` only for ETS TCs), ``warnings``.
    """
    dcbx, trust, dscp2prio, cable_len, pfc, pfc_buffer, prio_tc, tcs, warnings = _mlnx_qos(text)
    return {"dcbx": dcbx, "trust": trust, "dscp2prio": None if dscp2prio is None else dict(dscp2prio),
            "cable_len": cable_len, "pfc": list(pfc), "pfc_buffer": None if pfc_buffer is None else dict(pfc_buffer),
            "prio_tc": dict(prio_tc), "tcs": {tc: {"tsa": tsa, "bw": bw, "ratelimit_gbps": rate}
                                              for tc, tsa, bw, rate in tcs},
            "warnings": list(warnings)}


@lru_cache(maxsize=256)  # every NIC of a host (and most hosts of a fabric) prints the same block
def _mlnx_qos(text: str) -> tuple[Any, ...]:
    """:func:`parse_mlnx_qos` as immutable values (remembered per text; the parser builds fresh dicts from them)."""
    out: dict[str, Any] = {"dcbx": None, "trust": None, "dscp2prio": None, "cable_len": None, "pfc": None,
                           "pfc_buffer": None, "prio_tc": {}, "tcs": {}, "warnings": []}
    section = ""
    tc: int | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith(_QOS_HEADS):
            if line.startswith("DCBX mode:"):
                out["dcbx"] = "os" if "OS" in line else "fw"
            elif line.startswith("Priority trust state:"):
                out["trust"] = line.split(":", 1)[1].strip()
            elif line.startswith("dscp2prio mapping:"):
                section, out["dscp2prio"] = "dscp", {}
            elif line.startswith(("default priority:", "Receive buffer size")):
                section = ""
            elif line.startswith("Cable len:"):
                out["cable_len"] = int(line.split(":", 1)[1])
                section = ""
            else:  # PFC configuration:
                section = "pfc"
        elif section == "dscp" and line.startswith("prio:") and (m := _D2P.match(line)):
            prio = int(m.group(1))
            out["dscp2prio"].update(dict.fromkeys(map(int, filter(None, m.group(2).split(","))), prio))
        elif section == "pfc" and line.split()[0] in ("priority", "enabled", "buffer"):
            words = line.split()
            if words[0] == "enabled":
                bits = [int(w) for w in words[1:]]
                if len(bits) != 8 or any(b not in (0, 1) for b in bits):
                    raise ParseError(f"mlnx_qos: bad PFC enabled row: {line!r}")
                out["pfc"] = [p for p, b in enumerate(bits) if b]
            elif words[0] == "buffer":
                out["pfc_buffer"] = {p: int(b) for p, b in enumerate(words[1:])}
        elif line.startswith("tc:") and (m := _TC.match(line)):
            tc = int(m.group(1))
            rate = None if m.group(2) == "unlimited" else float(m.group(2).split()[0])
            tsa = m.group(3) if m.group(3) in TSA else "unknown"
            out["tcs"][tc] = {"tsa": tsa, "bw": int(m.group(4)) if m.group(4) else None, "ratelimit_gbps": rate}
            section = "tc"
        elif section == "tc" and tc is not None and line.startswith("priority:") and (m := _UP.match(line)):
            out["prio_tc"][int(m.group(1))] = tc
        elif "WARNING" in line or "not supported" in line:
            out["warnings"].append(line)
        else:
            raise ParseError(f"mlnx_qos: unexpected line {line!r}")
    if out["trust"] is None or out["pfc"] is None:
        raise ParseError("mlnx_qos: no 'Priority trust state' / PFC 'enabled' row in the output")
    if out["trust"] != "dscp":
        out["dscp2prio"] = None
    d2p, buffers = out["dscp2prio"], out["pfc_buffer"]
    return (out["dcbx"], out["trust"], None if d2p is None else tuple(d2p.items()), out["cable_len"], tuple(out["pfc"]),
            None if buffers is None else tuple(buffers.items()), tuple(out["prio_tc"].items()),
            tuple((tc, t["tsa"], t["bw"], t["ratelimit_gbps"]) for tc, t in out["tcs"].items()),
            tuple(out["warnings"]))


# ------------------------------------------------------------------------------------ ethtool

_STAT = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]+):\s*(-?\d+)\s*$")
# a _plain text + "\n" every line of which parse_ethtool_stats accepts: a _STAT line, blank or the header
_STAT_TEXT = re.compile(r"(?:[ \t]*+(?:[A-Za-z0-9_.\-\[\]]++:[ \t]*+-?[0-9]++|NIC statistics:)?+[ \t]*+\n)*+")


def parse_ethtool_stats(text: str) -> dict[str, int]:
    """``ethtool -S <if>``: counter -> value (with or without the ``NIC statistics:`` header/indent)."""
    tokens = _stat_tokens(text)
    if tokens is not None:
        if not tokens:
            raise ParseError("ethtool -S: no counters in the output")
        return dict(zip(tokens[::2], map(int, tokens[1::2]), strict=True))
    out: dict[str, int] = {}
    for raw in text.splitlines():
        m = _STAT.match(raw)  # a blank line or the header never matches
        if m is not None:
            name, value = m.groups()
            out[name] = int(value)
        elif raw.strip() not in ("", "NIC statistics:"):
            raise ParseError(f"ethtool -S: unexpected line {raw.strip()!r}")
    if not out:
        raise ParseError("ethtool -S: no counters in the output")
    return out


def ethtool_counters(text: str, names: Iterable[str]) -> dict[str, int]:
    """``parse_ethtool_stats(text)`` restricted to ``names`` (same ParseError), without converting the
    hundreds of counters nobody asked for."""
    tokens = _stat_tokens(text)
    if tokens is None:
        stats = parse_ethtool_stats(text)
        return {n: stats[n] for n in names if n in stats}
    if not tokens:
        raise ParseError("ethtool -S: no counters in the output")
    values = dict(zip(tokens[::2], tokens[1::2], strict=True))
    return {n: int(values[n]) for n in names if n in values}


def _stat_tokens(text: str) -> list[str] | None:
    """name, value, name, value... of an ethtool -S text that is _plain and has only lines parse_ethtool_stats
    accepts (else None: read it line by line). Such a text has ``:`` only after a name or in the header."""
    if not _plain(text) or _STAT_TEXT.fullmatch(text + "\n") is None:
        return None
    return text.replace("NIC statistics:", " ").replace(":", " ").split()


def _colon_pairs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in text.splitlines():
        key, sep, value = raw.partition(":")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


def parse_ethtool_driver(text: str) -> dict[str, str | None]:
    """``ethtool -i <if>``: driver, version, firmware (``28.42.1000``; the PSID suffix is dropped), bus_info."""
    pairs = _colon_pairs(text)
    if "driver" not in pairs:
        raise ParseError("ethtool -i: no 'driver:' line")
    fw = pairs.get("firmware-version", "").split()
    return {"driver": pairs["driver"], "version": pairs.get("version") or None, "firmware": fw[0] if fw else None,
            "psid": fw[1].strip("()") if len(fw) > 1 else None, "bus_info": pairs.get("bus-info") or None}


def parse_ethtool_pause(text: str) -> dict[str, bool]:
    """``ethtool -a <if>``: {"autoneg", "rx", "tx"} as booleans."""
    pairs = _colon_pairs(text)
    try:
        return {"autoneg": pairs["Autonegotiate"] == "on", "rx": pairs["RX"] == "on", "tx": pairs["TX"] == "on"}
    except KeyError as exc:
        raise ParseError(f"ethtool -a: missing {exc}") from None


def parse_ethtool_fec(text: str) -> dict[str, Any]:
    """``ethtool [-I] --show-fec <if>``: active encoding and, with ``-I``, corrected/uncorrectable block counts."""
    pairs = _colon_pairs(text)
    if "Active FEC encoding" not in pairs:
        raise ParseError("ethtool --show-fec: no 'Active FEC encoding:' line")
    out: dict[str, Any] = {"active": pairs["Active FEC encoding"]}
    for key in ("corrected_blocks", "uncorrectable_blocks"):
        value = pairs.get(key, "").split()
        if value and value[0].isdigit():
            out[key] = int(value[0])
    return out


def parse_ethtool_settings(text: str) -> dict[str, Any]:
    """``ethtool <if>``: speed (Mb/s or None when unknown) and link (Link detected)."""
    pairs = _colon_pairs(text)
    if "Link detected" not in pairs:
        raise ParseError("ethtool: no 'Link detected:' line")
    m = re.match(r"(\d+)Mb/s", pairs.get("Speed", ""))
    return {"speed": int(m.group(1)) if m else None, "link": pairs["Link detected"] == "yes"}


# ------------------------------------------------------------------------------------ iproute2


def _json(text: str, what: str) -> Any:
    try:
        return json_text.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{what}: not JSON ({exc.msg} at line {exc.lineno})") from None


def parse_ip_json(text: str) -> list[dict[str, Any]]:
    """Any ``ip -j ...`` output (a JSON array of objects)."""
    data = _json(text.strip() or "[]", "ip -j")
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ParseError("ip -j: expected a JSON array of objects")
    return data


def parse_rdma_links(text: str) -> dict[str, dict[str, Any]]:
    """``rdma -j link show``: netdev -> {rdma_dev, port, state, physical_state}."""
    out: dict[str, dict[str, Any]] = {}
    for e in parse_ip_json(text):
        if e.get("netdev"):
            out[e["netdev"]] = {"rdma_dev": e.get("ifname"), "port": e.get("port"), "state": e.get("state"),
                                "physical_state": e.get("physical_state")}
    return out


def parse_dcb_json(text: str) -> dict[str, Any]:
    """``dcb -j <object> show dev <if>``: the single JSON object iproute2 prints."""
    data = _json(text, "dcb -j")
    if not isinstance(data, dict):
        raise ParseError("dcb -j: expected one JSON object")
    return data


_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([KMG]?)b$")


def _dcb_value(v: str) -> Any:
    if v in ("on", "off"):
        return v == "on"
    if v.isdigit():
        return int(v)
    m = _SIZE.match(v)
    if m:
        return int(float(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)])
    return v


def parse_dcb_text(text: str) -> dict[str, Any]:
    """``dcb <object> show dev <if>`` text into the JSON shape (``prio-pfc 0:off`` -> ``prio_pfc: [False...]``).

    ``K:V`` rows with keys 0..7 become lists indexed by key; APP tables (``dscp-prio 0:0 24:2 24:3``)
    become lists of ``[key, value]`` pairs (DSCP names such as ``CS3`` are kept as strings).
    Rows of ``key value`` pairs (``pfc-cap 8 macsec-bypass off delay 4096``) become scalars.
    """
    out: dict[str, Any] = {}
    for raw in text.splitlines():
        words = raw.split()
        if not words:
            continue
        if len(words) > 1 and all(":" in w for w in words[1:]):
            key = words[0].replace("-", "_")
            pairs = [w.split(":", 1) for w in words[1:]]
            keys = [k for k, _ in pairs]
            if key.endswith("_prio") and key not in ("prio_pfc",):
                out[key] = [[int(k) if k.isdigit() else k, _dcb_value(v)] for k, v in pairs]
            elif keys == [str(i) for i in range(len(keys))]:
                out[key] = [_dcb_value(v) for _, v in pairs]
            else:
                out[key] = {int(k) if k.isdigit() else k: _dcb_value(v) for k, v in pairs}
        elif len(words) % 2 == 0:
            for k, v in zip(words[::2], words[1::2], strict=True):
                out[k.replace("-", "_")] = _dcb_value(v)
        else:
            raise ParseError(f"dcb: unexpected line {raw.strip()!r}")
    return out


# ------------------------------------------------------------------------------------ sysfs, sysctl, RDMA-CM


def parse_sysfs_grep(text: str) -> dict[str, str]:
    """``grep -r -H . <dirs/files>``: path -> value (``grep:`` error lines are skipped)."""
    out: dict[str, str] = {}
    # no "\r" left: splitlines() breaks there too (split("\n") is the same where "\n" is the only line break)
    for line in text.split("\n") if breaks_only_at_lf(text) else text.splitlines():
        if line[:1] == "/":
            path, sep, value = line.partition(":")
            if sep:
                out[path] = value.strip()
    return out


@lru_cache(maxsize=8)  # observe and operational read the same dump
def sysfs_dict(text: str) -> dict[str, str]:
    """:func:`parse_sysfs_grep`, remembered per text: shared, so never to be changed (callers copy it, which a
    plain dict makes cheap; :func:`sysfs_values` hands it out read-only)."""
    return parse_sysfs_grep(text)


def sysfs_values(text: str) -> Mapping[str, str]:
    """:func:`parse_sysfs_grep` as a read-only mapping, remembered per text."""
    return MappingProxyType(sysfs_dict(text))


def parse_sysctl(text: str) -> dict[str, str]:
    """``sysctl k1 k2`` / ``sysctl -a``: key -> value (multi-value fields joined by one blank)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        key, sep, value = raw.partition(" = ")
        if sep and not key.startswith("sysctl:"):
            out[key.strip()] = " ".join(value.split())
    return out


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def parse_cma_roce_mode(text: str) -> str | None:
    """``cma_roce_mode -d <dev> -p 1``: "RoCE v2" / "IB/RoCE v1", None if it printed something else."""
    value = _last_line(text)
    return value if value in ROCE_MODES else None


def parse_cma_roce_tos(text: str) -> int | None:
    """``cma_roce_tos -d <dev> -p 1``: the default ToS, None if it printed no number."""
    value = _last_line(text)
    return int(value) if value.isdigit() else None

