"""Parsers for what decides a host's state after a reboot: installed files, the systemd unit, the NIC firmware
(mlxconfig), NCCL's config file, and the RoCE GID table. Each reads one tool's output and never sees the intent.

Formats and sources:

* ``mlxconfig -d <dev> [-e] query [NAME...]``: a ``Configurations:`` header naming the columns (``Default``,
  ``Current``, ``Next Boot``; without ``-e`` only ``Next Boot`` or ``Current``), one row per parameter with an
  optional ``*`` in front, values ``NAME(int)`` / plain integers / ``Array[a..b]``; a trailer line
  (Mellanox/nic-configuration-operator@8bfbeb3 pkg/nvconfig/utils.go 96-164 and its test fixtures; MFT docs
  "Using mlxconfig").
* ``show_gids``: MLNX_OFED's script, tab-separated ``DEV PORT INDEX GID IPv4 VER DEV`` rows after a two-line
  header, ``n_gids_found=N`` at the end (copy of the script: IBM/DPFS experiments/scripts/show_gids.sh).
* ``systemctl show UNIT -p A -p B``: ``Key=Value`` lines (systemctl(1)).
* ``sha256sum FILE...``: ``<64 hex>  <file>``; unreadable files go to stderr as ``sha256sum: FILE: reason``.
* NCCL's config file: ``NAME=value`` lines split at the first ``=``; lines starting ``#`` are skipped
  (NVIDIA/nccl src/misc/param.cc setEnvFile).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from roceops.platforms.linux_mlx5.parsers import ParseError

_NV_VALUE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*)?\((-?\d+)\)$")
_COLUMNS = ("Default", "Current", "Next Boot")
_SHA = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")
_SHA_ERROR = re.compile(r"^sha256sum: (.+?): (.+)$")


def nv_value(text: str) -> int | None:
    """``ETH(2)`` -> 2, ``48`` -> 48, ``0xff`` -> 255, ``Array[0..7]`` -> None."""
    m = _NV_VALUE.match(text)
    if m:
        return int(m.group(1))
    try:
        return int(text, 0)
    except ValueError:
        return None


def parse_mlxconfig_query(text: str) -> dict[str, Any]:
    """``{"device_type": str | None, "params": {NAME: {"default"|"current"|"next": int | None}}}``.

    Only the columns the header names are present per parameter. Raises ParseError without a
    ``Configurations:`` header (for example ``-E- Failed to open the device``)."""
    device_type = None
    columns: list[str] | None = None
    params: dict[str, dict[str, int | None]] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Device type:"):
            device_type = stripped.split(":", 1)[1].strip()
        elif stripped.startswith("Configurations:"):
            header = stripped[len("Configurations:"):]
            columns = [c for c in _COLUMNS if c in header]
            if not columns:
                raise ParseError(f"mlxconfig: no known column in {stripped!r}")
        elif columns is not None and stripped and not stripped.startswith(("The '*'", "-I-", "-W-")):
            words = stripped.lstrip("*").split()
            if len(words) != 1 + len(columns) or not re.fullmatch(r"[A-Z][A-Z0-9_\[\].]*", words[0]):
                continue
            keys = {"Default": "default", "Current": "current", "Next Boot": "next"}
            params[words[0]] = {keys[c]: nv_value(v) for c, v in zip(columns, words[1:], strict=True)}
    if columns is None:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "no output")
        raise ParseError(f"mlxconfig query: no 'Configurations:' table ({first[:120]})")
    return {"device_type": device_type, "params": params}


def parse_show_gids(text: str) -> list[dict[str, Any]]:
    """Rows of ``show_gids``: ``{dev, port, index, gid, ipv4 (or None), version ("v1"/"v2"), netdev}``."""
    rows: list[dict[str, Any]] = []
    seen_header = False
    for line in text.splitlines():
        if line.startswith("DEV\tPORT"):
            seen_header = True
            continue
        if not seen_header or line.startswith("---") or line.startswith("n_gids_found=") or not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        cells = [f for f in fields if f]
        if len(cells) == 7:
            dev, port, index, gid, ipv4, version, netdev = cells
        elif len(cells) == 6:
            dev, port, index, gid, version, netdev = cells
            ipv4 = None
        else:
            raise ParseError(f"show_gids: unexpected row {line!r}")
        if not (port.isdigit() and index.isdigit()):
            raise ParseError(f"show_gids: port/index not numeric in {line!r}")
        rows.append({"dev": dev, "port": int(port), "index": int(index), "gid": gid, "ipv4": ipv4,
                     "version": version, "netdev": netdev})
    if not seen_header:
        raise ParseError("show_gids: no 'DEV PORT INDEX GID' header")
    return rows


def ipv4_gid(ip: str) -> str:
    """The RoCE GID of an IPv4 address (IPv4-mapped IPv6) as sysfs and show_gids print it.

    >>> ipv4_gid("10.128.0.1")
    '0000:0000:0000:0000:0000:ffff:0a80:0001'
    """
    octets = [int(o) for o in ip.split(".")]
    return f"0000:0000:0000:0000:0000:ffff:{octets[0]:02x}{octets[1]:02x}:{octets[2]:02x}{octets[3]:02x}"


def parse_systemctl_show(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and re.fullmatch(r"[A-Za-z]+", key):
            out[key] = value
    return out


def parse_sha256sum(text: str) -> dict[str, str | None]:
    """file -> digest, or None for a file sha256sum could not read (absent, permission denied)."""
    out: dict[str, str | None] = {}
    for line in text.splitlines():
        line = line.strip()
        if m := _SHA.match(line):
            out[m.group(2)] = m.group(1)
        elif m := _SHA_ERROR.match(line):
            out[m.group(1)] = None
    return out


def parse_base64_file(text: str) -> str | None:
    """A file read with ``base64 FILE`` (76-column lines): its text, or None when base64 could not read it."""
    if "base64:" in text:
        return None
    try:
        return base64.b64decode("".join(text.split()), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise ParseError(f"base64 output is not base64: {exc}") from None


def parse_nccl_conf(text: str) -> dict[str, str]:
    """``NAME=value`` assignments of an NCCL config file; the first of a name wins, as in NCCL (setenv(..., 0)
    never overwrites)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        out.setdefault(name, value)
    return out
