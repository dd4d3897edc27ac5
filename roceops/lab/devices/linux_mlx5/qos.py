"""``mlnx_qos`` (mlnx-tools, DCB netlink APP-table variant) and iproute2 ``dcb`` on the simulated NICs.

``mlnx_qos`` follows the option order and messages of mlnx-tools' script and prints the status
block in the layout of a real capture (``fixtures/linux_mlx5/mlnx_qos_trust_dscp.txt``: no buffer
rows, ``Cable len``, tab indentation, trailing blanks after the PFC digits, ``dscp2prio`` lines
only under DSCP trust, newest APP entry first). Both tools drive the same state with mlx5's
rules: the first DSCP APP entry switches trust to ``dscp``, deleting the last one returns to
``pcp``; ETS bandwidth of ETS TCs must sum to 100.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.linux_mlx5.model import PRIOS, TSA_CODES, TSA_ETS, TSA_NAMES, TSA_STRICT, Nic
from roceops.lab.devices.linux_mlx5.shell import Program, Result, fail, ok

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.shell import Shell

EPERM = "[Errno 1] Operation not permitted"
EINVAL_PY = "[Errno 22] Invalid argument"
USAGE = "Usage: mlnx_qos -i <interface> [options]"
_NOT_DCB = ("Priority trust state is not supported on your system\n"
            "Rate limit is not supported on your system!\n"
            "ETS features are not supported on your system")

_LONG = {"-f": "pfc", "-p": "prio_tc", "-s": "tsa", "-t": "tcbw", "-r": "ratelimit", "-d": "dcbx", "-i": "intf"}
_VALUED = {"pfc", "prio_tc", "tsa", "tcbw", "ratelimit", "dcbx", "trust", "dscp2prio", "cable_len", "intf",
           "interface"}


class _Exit(Exception):
    def __init__(self, text: str, status: int = 1) -> None:
        super().__init__(text)
        self.result = fail(text, status)


def _optparse(args: list[str]) -> tuple[dict[str, object], list[str]]:
    opts: dict[str, object] = {"dscp2prio": []}
    rest: list[str] = []
    while args:
        a = args.pop(0)
        if a in ("-a",):
            opts["printall"] = True
            continue
        if a in ("-h", "--help"):
            raise _Exit(f"{USAGE}\n\nOptions:\n  --version  show program's version number and exit\n"
                        "  -h, --help  show this help message and exit", 0)
        if a == "--version":
            raise _Exit("mlnx_qos 1.2", 0)
        if a.startswith("--"):
            name, _, inline = a[2:].partition("=")
        elif a.startswith("-") and len(a) > 1:
            name, inline = _LONG.get(a[:2], ""), a[2:]
            if not name:
                raise _Exit(f"{USAGE}\n\nmlnx_qos: error: no such option: {a[:2]}", 2)
        else:
            rest.append(a)
            continue
        if name == "interface":
            name = "intf"
        if name not in _VALUED:
            raise _Exit(f"{USAGE}\n\nmlnx_qos: error: no such option: --{name}", 2)
        if not inline:
            if not args:
                raise _Exit(f"{USAGE}\n\nmlnx_qos: error: {a} option requires an argument", 2)
            inline = args.pop(0)
        if name == "dscp2prio":
            opts["dscp2prio"].append(inline)  # type: ignore[attr-defined]
        else:
            opts[name] = inline
    return opts, rest


def _parse_int(text: str, lo: int, hi: int, what: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise _Exit(f"Bad value for {what}: invalid literal for int() with base 10: '{text}'\n{USAGE}") from None
    if v < lo or v > hi:
        raise _Exit(f"Bad value for {what}: {v} is not in the range {lo}..{hi}\n{USAGE}")
    return v


def _list(text: str, lo: int, hi: int, what: str, too_many: str, count_msg: str) -> list[int]:
    items = text.split(",")
    if len(items) > 8:
        raise _Exit(too_many)
    out = [_parse_int(t, lo, hi, what) for t in items]
    if len(out) != 8:
        raise _Exit(count_msg)
    return out


def _bounce(sh: Shell, nic: Nic) -> None:
    """mlx5 resets the port when PFC changes: the peer sees the link go down and up once."""
    port = sh.state.physical.ports.get(nic.name)
    if port is not None:
        port.counters["carrier_changes"].base += 2


@dataclass(frozen=True, slots=True)
class _DcbSettings:
    """What ``mlnx_qos`` prints of a NIC, as a value (the fields and helpers of :class:`Nic` it reads)."""

    dcbx_os: bool
    apps: bytes
    dscp2prio: bytes
    cable_len: int
    pfc: int
    prio_tc: bytes
    tsa: bytes
    tcbw: bytes
    ratelimit: tuple[int, ...] | None

    @property
    def trust(self) -> str:  # as Nic.trust
        return "dscp" if self.apps else "pcp"

    def ets_bw(self) -> list[int]:  # as Nic.ets_bw
        return [self.tcbw[tc] if self.tsa[tc] == TSA_ETS else 100 for tc in PRIOS]


def status_block(nic: Nic, printall: bool = False) -> str:
    """``mlnx_qos`` status text: a function of the NIC's DCB settings alone, kept per distinct settings (every
    host of a fleet deployed alike shares one)."""
    return _status_block(nic.dcbx_os, bytes(nic.apps), bytes(nic.dscp2prio), nic.cable_len, nic.pfc,
                         bytes(nic.prio_tc), bytes(nic.tsa), bytes(nic.tcbw), nic.ratelimit, printall)


@lru_cache(maxsize=4096)
def _status_block(dcbx_os: bool, apps: bytes, dscp2prio: bytes, cable_len: int, pfc: int, prio_tc: bytes,
                  tsa_map: bytes, tcbw: bytes, ratelimit: tuple[int, ...] | None, printall: bool) -> str:
    nic = _DcbSettings(dcbx_os, apps, dscp2prio, cable_len, pfc, prio_tc, tsa_map, tcbw, ratelimit)
    lines = [f"DCBX mode: {'OS controlled' if nic.dcbx_os else 'Firmware controlled'}",
             f"Priority trust state: {nic.trust}"]
    if nic.apps:
        lines.append("dscp2prio mapping:")
        per_prio = ["" for _ in PRIOS]
        for dscp in nic.apps:
            per_prio[nic.dscp2prio[dscp]] += f"{dscp:02d},"
        for prio, s in enumerate(per_prio):
            while len(s) > 24:
                lines.append(f"\tprio:{prio} dscp:{s[:24]}")
                s = s[24:]
            if s:
                lines.append(f"\tprio:{prio} dscp:{s}")
    lines.append(f"Cable len: {nic.cable_len}")
    lines.append("PFC configuration:")
    lines.append("\tpriority    0   1   2   3   4   5   6   7")
    lines.append("\tenabled     " + "".join(f"{nic.pfc >> p & 1}   " for p in PRIOS))
    tc2up: dict[int, list[int]] = {tc: [] for tc in PRIOS} if printall else {}
    for up in PRIOS:
        tc2up.setdefault(nic.prio_tc[up], []).append(up)
    bw = nic.ets_bw()
    for tc in sorted(tc2up):
        rate = "unlimited"
        if nic.ratelimit and nic.ratelimit[tc] > 0:
            rate = f"{float(nic.ratelimit[tc]):.1f} Gbps"
        tsa = nic.tsa[tc]
        algo = f"ets, bw: {bw[tc]}%" if tsa == TSA_ETS else TSA_NAMES.get(tsa, "unknown")
        if tsa not in (TSA_ETS, TSA_STRICT, 255):
            algo = "unknown"
        lines.append(f"tc: {tc} ratelimit: {rate}, tsa: {algo}")
        lines.extend(f"\t priority:  {up}" for up in tc2up[tc])
    return "\n".join(lines) + "\n"


def mlnx_qos(sh: Shell, argv: list[str], stdin: str) -> Result:
    out = ""
    try:
        opts, rest = _optparse(argv[1:])
        if rest:
            raise _Exit(f"Bad arguments\n{USAGE}")
        intf = opts.get("intf")
        if intf is None:
            raise _Exit(f"Interface name is required\n{USAGE}")
        nic = sh.state.host.nics.get(str(intf))
        if nic is None:
            raise _Exit(_NOT_DCB)
        writes = any(k in opts for k in ("pfc", "prio_tc", "tsa", "tcbw", "ratelimit", "trust", "cable_len")) \
            or bool(opts["dscp2prio"]) or opts.get("dcbx") in ("os", "fw")
        denied = writes and not sh.can_write
        # dcbx
        dcbx = opts.get("dcbx")
        if dcbx is not None:
            if dcbx not in ("os", "fw", "get"):
                raise _Exit("Invalid dcbx mode command. Refer to the help.")
            if dcbx != "get":
                if denied:
                    raise _Exit(EPERM)
                nic.dcbx_os = dcbx == "os"
        # pfc / cable_len
        delay = _parse_int(str(opts["cable_len"]), 0, 0xFFFF, "cable_len") if "cable_len" in opts else 0
        pfc_en = nic.pfc
        if "pfc" in opts:
            bits = _list(str(opts["pfc"]), 0, 1, "PFC", "Too many items for PFC", "pfc list must have 8 items")
            pfc_en = sum(b << i for i, b in enumerate(bits))
        if "pfc" in opts or "cable_len" in opts:
            if denied:
                raise _Exit(EPERM)
            if pfc_en != nic.pfc:
                _bounce(sh, nic)
            nic.pfc = pfc_en
            if delay:
                nic.cable_len = delay
        # dscp2prio
        actions = list(opts["dscp2prio"])  # type: ignore[call-overload]
        if actions and "trust" in opts:
            raise _Exit("trust and dscp2prio commands cannot be used at the same time.")
        parsed: list[tuple[str, int, int]] = []
        for a in actions:
            if a == "flush":
                parsed.append(("flush", 0, 0))
                continue
            parts = a.split(",")
            if len(parts) != 3 or parts[0] not in ("set", "del") or not all(p.isdigit() for p in parts[1:]) \
                    or int(parts[1]) > 63 or int(parts[2]) > 7:
                raise _Exit("Invalid dscp2prio command. Refer to the help.")
            parsed.append((parts[0], int(parts[1]), int(parts[2])))
        for action, dscp, prio in parsed:
            if denied:
                raise _Exit("dscp2prio command failed")
            if action == "set":
                nic.set_app(dscp, prio)
            elif action == "del":
                if not nic.del_app(dscp, prio):
                    raise _Exit("dscp2prio command failed")
            else:
                for d in list(nic.apps):
                    nic.del_app(d, nic.dscp2prio[d])
        # trust
        trust = opts.get("trust")
        if trust is not None:
            if trust not in ("dscp", "pcp"):
                raise _Exit("Invalid trust state command. Refer to the help.")
            if trust != nic.trust:
                if denied:
                    raise _Exit("Priority trust state is not supported on your system")
                if trust == "pcp":
                    for d in list(nic.apps):
                        nic.del_app(d, nic.dscp2prio[d])
                else:
                    for d in range(64):  # setDefaultAppEntry: the firmware default dscp >> 3
                        nic.set_app(d, d >> 3)
        # ratelimit
        if "ratelimit" in opts:
            items = str(opts["ratelimit"]).split(",")
            if len(items) > 8:
                raise _Exit("Too many items for ratelimit")
            rates = [_parse_int(t, 0, 1_000_000, "ratelimit") for t in items]
            if len(rates) != 8:
                raise _Exit("ratelimit must have 8 items")
            if denied:
                out += "Rate limit is not supported on your system!\n"
            else:
                nic.ratelimit = tuple(rates) if any(rates) else None
        # ets
        prio_tc, tsa, tc_bw = list(nic.prio_tc), list(nic.tsa), nic.ets_bw()
        if "tsa" in opts:
            names = str(opts["tsa"]).split(",")
            if len(names) > 8:
                raise _Exit("Too many items for TSA")
            for i, t in enumerate(names):
                if t not in ("strict", "ets", "vendor"):
                    raise _Exit(f"('Bad TSA value: ', '{t}')\n{USAGE}")
                tsa[i] = TSA_CODES[t]
            if len(names) != 8:
                raise _Exit("tsa list must have 8 items")
        if "tcbw" in opts:
            items = str(opts["tcbw"]).split(",")
            if len(items) > 8:
                raise _Exit("Too many items for ETS BW")
            for i, t in enumerate(items):
                bw = _parse_int(t, 0, 100, "ETS BW")
                if tsa[i] != TSA_ETS and bw != 0:
                    raise _Exit(f"ETS BW for a strict/vendor TC must be 0\n{USAGE}")
                tc_bw[i] = bw
            if len(items) != 8:
                raise _Exit("tcbw list must have 8 items")
        if "prio_tc" in opts:
            prio_tc = _list(str(opts["prio_tc"]), 0, 7, "UP => TC mapping", "Too many items in UP => TC mapping",
                            "prio_tc list must have 8 items")
        if any(k in opts for k in ("tsa", "tcbw", "prio_tc")):
            if denied:
                raise _Exit(EPERM)
            ets_sum = sum(b for b, t in zip(tc_bw, tsa, strict=True) if t == TSA_ETS)
            if TSA_ETS in tsa and ets_sum != 100:
                raise _Exit(EINVAL_PY)
            nic.prio_tc, nic.tsa, nic.tcbw = bytearray(prio_tc), bytearray(tsa), bytearray(tc_bw)
    except _Exit as stop:
        return Result(out=out + stop.result.out, err=stop.result.err, status=stop.result.status)
    return ok(out + status_block(nic, bool(opts.get("printall"))))


# ------------------------------------------------------------------------------------ dcb

DSCP_NAMES: dict[int, str] = {8 * i: f"CS{i}" for i in range(1, 8)}
DSCP_NAMES.update({8 * c + 2 * d: f"AF{c}{d}" for c in range(1, 5) for d in range(1, 4)})
DSCP_NAMES[46] = "EF"
DSCP_BY_NAME = {v: k for k, v in DSCP_NAMES.items()}


def _dcb_fail(msg: str) -> Result:
    return fail(msg, 1)


def sprint_size(size: int) -> str:
    """iproute2 ``sprint_size``: 1Mb, 10Kb, 130944b."""
    if size >= 1024 * 1024 and abs(1024 * 1024 * round(size / (1024 * 1024)) - size) < 1024:
        return f"{size / (1024 * 1024):g}Mb"
    if size >= 1024 and abs(1024 * round(size / 1024) - size) < 16:
        return f"{size / 1024:g}Kb"
    return f"{size}b"


def _map(words: list[str], key_max: int, value_parse: dict[str, int] | None, vmax: int,
         keys: dict[str, int] | None = None) -> dict[int, int] | None:
    """Parse ``K:V`` words (``all:V`` allowed) until a word without ':'; None on a bad mapping."""
    out: dict[int, int] = {}
    while words and ":" in words[0]:
        k, _, v = words.pop(0).partition(":")
        value = value_parse.get(v) if value_parse is not None else (int(v) if v.isdigit() else None)
        if value is None or value > vmax:
            return None
        if k == "all":
            out.update(dict.fromkeys(range(key_max + 1), value))
        elif k.isdigit() and int(k) <= key_max:
            out[int(k)] = value
        elif keys is not None and k in keys:
            out[keys[k]] = value
        else:
            return None
    return out


def _arr(values: Sequence[object], fmt: str = "{}") -> str:
    return " ".join(f"{i}:{fmt.format(v)}" for i, v in enumerate(values))


def dcb(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    flags: set[str] = set()
    while args and args[0].startswith("-"):
        a = args.pop(0)
        flags.update({"--json": "j", "--pretty": "p", "--Numeric": "N", "--statistics": "s"}.get(a, a[1:]))
    if len(args) < 4 or args[2] != "dev":
        return fail("Usage: dcb [ OPTIONS ] OBJECT { COMMAND | help }\n"
                    "where  OBJECT := { app | apptrust | buffer | dcbx | ets | maxrate | pfc | rewr }", 1)
    obj, cmd, dev, rest = args[0], args[1], args[3], args[4:]
    nic = sh.state.host.nics.get(dev)
    if nic is None:
        return fail(f'Error: argument "{dev}" is wrong: not a valid ifname' if dev == "" else
                    "Attribute read: No such device", 1)
    js = "j" in flags
    if cmd == "show":
        data, text = _dcb_show(sh, nic, obj, rest, flags)
        if data is None:
            return fail(text, 1)
        return ok(json.dumps(data, separators=(",", ":"), indent=4 if "p" in flags else None) if js else text)
    if not sh.can_write:
        return _dcb_fail("Attribute write: Operation not permitted")
    return _dcb_set(sh, nic, obj, cmd, rest)


def _dcb_show(sh: Shell, nic: Nic, obj: str, sel: list[str], flags: set[str]) -> tuple[dict[str, Any] | None, str]:
    if obj == "pfc":
        c = sh.state.physical.snapshot(nic.name)
        fields: dict[str, tuple[object, str]] = {
            "pfc_cap": (8, "pfc-cap 8"), "macsec_bypass": (False, "macsec-bypass off"),
            "delay": (nic.cable_len, f"delay {nic.cable_len}"),
            "prio_pfc": ([bool(nic.pfc >> p & 1) for p in PRIOS],
                         "prio-pfc " + _arr(["on" if nic.pfc >> p & 1 else "off" for p in PRIOS])),
        }
        if "s" in flags:
            req = [c[f"pfc_tx_{p}"] if nic.pfc >> p & 1 else 0 for p in PRIOS]
            ind = [c[f"pfc_rx_{p}"] if nic.pfc >> p & 1 else 0 for p in PRIOS]
            fields["requests"] = (req, "requests " + _arr(req))
            fields["indications"] = (ind, "indications " + _arr(ind))
        wanted = [s.replace("-", "_") for s in sel] or list(fields)
        if any(w not in fields for w in wanted):
            return None, f'What is "{sel[0]}"?'
        head = [w for w in wanted if w in ("pfc_cap", "macsec_bypass", "delay")]
        lines = [" ".join(fields[w][1] for w in head)] if head else []
        lines += [fields[w][1] for w in wanted if w not in head]
        return {w: fields[w][0] for w in wanted}, "\n".join(lines)
    if obj == "ets":
        bw = nic.ets_bw()
        tsa = [TSA_NAMES.get(t, "???") for t in nic.tsa]
        zeros = [0] * 8
        fields = {
            "willing": (False, "willing off"), "ets_cap": (8, "ets-cap 8"), "cbs": (False, "cbs off"),
            "tc_bw": (bw, "tc-bw " + _arr(bw)), "pg_bw": (zeros, "pg-bw " + _arr(zeros)),
            "tc_tsa": (tsa, "tc-tsa " + _arr(tsa)),
            "prio_tc": (list(nic.prio_tc), "prio-tc " + _arr(list(nic.prio_tc))),
            "reco_tc_bw": (zeros, "reco-tc-bw " + _arr(zeros)),
            "reco_tc_tsa": (["strict"] * 8, "reco-tc-tsa " + _arr(["strict"] * 8)),
            "reco_prio_tc": (zeros, "reco-prio-tc " + _arr(zeros)),
        }
        wanted = [s.replace("-", "_") for s in sel] or list(fields)
        if any(w not in fields for w in wanted):
            return None, f'What is "{sel[0]}"?'
        head = [w for w in wanted if w in ("willing", "ets_cap", "cbs")] if not sel else []
        lines = [" ".join(fields[w][1] for w in head)] if head else []
        lines += [fields[w][1] for w in wanted if w not in head]
        return {w: fields[w][0] for w in wanted}, "\n".join(lines)
    if obj == "app":
        if sel and sel != ["dscp-prio"] and sel[0] not in ("default-prio", "ethtype-prio", "pcp-prio",
                                                           "stream-port-prio", "dgram-port-prio", "port-prio"):
            return None, f'What is "{sel[0]}"?'
        pairs = sorted((d, nic.dscp2prio[d]) for d in nic.apps)
        if (sel and sel != ["dscp-prio"]) or not pairs:
            return {}, ""
        numeric = "N" in flags
        text = "dscp-prio " + " ".join(f"{d if numeric else DSCP_NAMES.get(d, d)}:{p}" for d, p in pairs)
        return {"dscp_prio": [[d, p] for d, p in pairs]}, text
    if obj == "buffer":
        prio_buffer = [1 if nic.pfc >> p & 1 else 0 for p in PRIOS]
        sizes = [130944, 130944 if nic.pfc else 0, 0, 0, 0, 0, 0, 0]
        total = 1046528
        text = "\n".join(["prio-buffer " + _arr(prio_buffer), "buffer-size " + _arr([sprint_size(s) for s in sizes]),
                          f"total-size {sprint_size(total)}"])
        return {"prio_buffer": prio_buffer, "buffer_size": sizes, "total_size": total}, text
    if obj == "maxrate":
        rates = [r * 1_000_000_000 for r in nic.ratelimit] if nic.ratelimit else [0] * 8
        return {"tc_maxrate": rates}, "tc-maxrate " + _arr(["unlimited" if not r else f"{r // 10**9}Gbit"
                                                             for r in rates])
    if obj in ("apptrust", "rewr", "dcbx"):
        return None, "Attribute read: Operation not supported"
    return None, f'Object "{obj}" is unknown'


def _dcb_set(sh: Shell, nic: Nic, obj: str, cmd: str, words: list[str]) -> Result:
    if obj == "pfc" and cmd == "set":
        pfc = nic.pfc
        while words:
            w = words.pop(0)
            if w == "prio-pfc":
                m = _map(words, 7, {"on": 1, "off": 0}, 1)
                if m is None:
                    return _dcb_fail(f"Invalid pfc mapping {w}")
                for p, v in m.items():
                    pfc = pfc | 1 << p if v else pfc & ~(1 << p)
            elif w == "delay" and words and words[0].isdigit():
                delay = int(words.pop(0))
                if delay:
                    nic.cable_len = delay
            elif w == "macsec-bypass" and words:
                words.pop(0)
            else:
                return _dcb_fail(f'What is "{w}"?')
        if pfc != nic.pfc:
            _bounce(sh, nic)
        nic.pfc = pfc
        return Result()
    if obj == "ets" and cmd == "set":
        prio_tc, tsa, bw = list(nic.prio_tc), list(nic.tsa), nic.ets_bw()
        while words:
            w = words.pop(0)
            target: list[int] | None = {"prio-tc": prio_tc, "tc-tsa": tsa, "tc-bw": bw}.get(w)
            if w in ("pg-bw", "reco-tc-bw", "reco-tc-tsa", "reco-prio-tc", "willing"):
                target = [0] * 8
            if target is None:
                return _dcb_fail(f'What is "{w}"?')
            if w == "willing":
                words = words[1:]
                continue
            names = TSA_CODES if w.endswith("tsa") else None
            m = _map(words, 7, names, 255 if names else (100 if w.endswith("bw") else 7))
            if m is None:
                return _dcb_fail(f"Invalid {w} mapping")
            for k, v in m.items():
                target[k] = v
        total = sum(bw)
        has_ets = TSA_ETS in tsa
        if total != 100 and not (not has_ets and total == 0):
            return _dcb_fail(f"Bandwidth percentages in tc-bw sum to {total}%, expected {100 if has_ets else 0}%")
        if has_ets and sum(b for b, t in zip(bw, tsa, strict=True) if t == TSA_ETS) != 100:
            return _dcb_fail("Error when attempting to set attribute: Invalid argument")
        nic.prio_tc, nic.tsa, nic.tcbw = bytearray(prio_tc), bytearray(tsa), bytearray(bw)
        return Result()
    if obj == "app" and cmd in ("add", "del", "replace", "flush"):
        if cmd == "flush":
            if words and words != ["dscp-prio"]:
                return Result()
            for d in list(nic.apps):
                nic.del_app(d, nic.dscp2prio[d])
            return Result()
        if not words or words[0] != "dscp-prio":
            return _dcb_fail("Error when attempting to set attribute: Invalid argument")
        words.pop(0)
        pairs: list[tuple[int, int]] = []
        while words and ":" in words[0]:
            key, _, val = words.pop(0).partition(":")
            dscp = int(key) if key.isdigit() else DSCP_BY_NAME.get(key)
            if dscp is None or dscp > 63 or not val.isdigit() or int(val) > 7:
                return _dcb_fail(f"Invalid dscp-prio mapping {key}:{val}")
            pairs.append((dscp, int(val)))
        if words:
            return _dcb_fail(f'What is "{words[0]}"?')
        for dscp, prio in pairs:
            if cmd == "del":
                if not nic.del_app(dscp, prio):
                    return _dcb_fail("Attribute write: No such file or directory")
            else:
                nic.set_app(dscp, prio)
        return Result()
    if obj in ("apptrust", "rewr", "dcbx", "buffer", "maxrate"):
        return _dcb_fail("Attribute write: Operation not supported")
    return _dcb_fail(f'What is "{cmd}"?')


PROGRAMS: dict[str, Program] = {
    "mlnx_qos": mlnx_qos,
    "dcb": dcb,
}
