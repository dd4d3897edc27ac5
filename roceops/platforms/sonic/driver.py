"""SONiC driver: CONFIG_DB diff as JSON Patch, applied with the Generic Config Updater (GCU) transaction.

=============  ====================================================================================
step           commands
=============  ====================================================================================
read_config    ``sonic-cfggen -d --print-data`` (Snapshot ``config_db_json``: the exact text)
apply          ``sudo config checkpoint <txn>``; the patch written with a here-document to
               ``/tmp/<txn>.json``; ``sudo config apply-patch /tmp/<txn>.json``; ``rm -f`` the file
confirm        ``sudo config save -y``; read back ``sonic-cfggen -j /etc/sonic/config_db.json --print-data``
               == ``sonic-cfggen -d --print-data`` (else ConfirmNotTaken); ``sudo config delete-checkpoint``
abort          ``sudo config list-checkpoints``; ``sudo config rollback <txn>`` if it is there; then, should
               the running config still differ from the backup, a patch back to it; ``sudo config save -y``
               again if this transaction's confirm had saved; delete the checkpoint
route          day-2 (the above) or bring-up (:mod:`roceops.platforms.sonic.route`: GCU's rules, restart-only
               modes)
bringup        ``sudo config checkpoint <txn>`` (the backup on the device, as above); the backup with the change
               applied (the whole CONFIG_DB) written to ``/tmp/<txn>-bringup.json``;
               ``sudo config reload -y <file>``: stops the services, flushes CONFIG_DB, loads the file, restarts
               them, so buffer and routing modes take effect (sonic-utilities config/main.py ``reload``); then
               verify and confirm as above; abort of a bring-up reloads the backup the same way
collect        :data:`COLLECT`
=============  ====================================================================================

SONiC has no commit timer: ``confirm_timeout_s`` is not used. Until ``confirm`` the change is running but
not saved (a reboot reverts it) and the checkpoint stays, so ``config rollback <txn>`` undoes it by hand.

Scope of a change (:func:`diff`): only the tables roceops renders (:data:`MANAGED_TABLES`) are
compared; in PORT, DEVICE_METADATA, FLEX_COUNTER_TABLE and WRED_PROFILE (:data:`FIELD_SCOPED`) only the keys
and fields roceops renders, so lanes, MACs, breakout settings, counter groups of others and the vendor's
yellow/red WRED fields are never touched (a roceops-named WRED profile no longer rendered is removed).
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
from collections import Counter
from collections.abc import Collection
from functools import lru_cache
from typing import Any

import jsonpatch

from roceops.device.change import (
    BackupRefused,
    Change,
    ConfirmNotTaken,
    DeviceFacts,
    DriverError,
    RenderedDevice,
    Snapshot,
)
from roceops.device.intent import HostIntent, Intent, SwitchIntent
from roceops.device.observed import ObservedSwitch
from roceops.device.oper import BgpSession, LldpNeighbor, OperState, PortOper
from roceops.platforms.change_path import ChangePath
from roceops.platforms.channel import prompt_pattern, read_timeout, read_until, send_line, strip_echo
from roceops.platforms.driver import RoomDriver, first_sample
from roceops.platforms.sonic import parsers as P
from roceops.platforms.sonic import parsers_control as PC
from roceops.platforms.sonic import parsers_oper as O
from roceops.platforms.sonic.breakout_hash import breakout_cfg
from roceops.platforms.sonic.expected import expected_switch
from roceops.platforms.sonic.facts import parse_facts
from roceops.platforms.sonic.modes import MODES_COMMAND, breakout_problems, mode_problems
from roceops.platforms.sonic.parsers_config_db import parse_config_db
from roceops.platforms.sonic.route import route
from roceops.util import json_text

__all__ = ["COLLECT", "DRIVER", "FIELD_SCOPED", "MANAGED_TABLES", "SonicDriver"]

_PFC_NAMES = {d: {prio: f"pfc_{d}_{prio}" for prio in range(8)} for d in ("rx", "tx")}  # operational's counter names

PRINT_DATA = "sonic-cfggen -d --print-data"
SAVED_DATA = "sonic-cfggen -j /etc/sonic/config_db.json --print-data"
INTERFACES_STATUS = "show interfaces status"
PFC_COUNTERS = "show pfc counters"
WRED_COUNTERS = "show queue wredcounters"
PFCWD_STATS = "pfcwd show stats"
LLDP_TABLE = "show lldp table"
# IPv6 neighbours per routed port (sonic-utilities `show ndp` = scripts/nbrshow -6 @ 1dcc20eb): a host NIC's MAC
# on a leaf port whose host sends no LLDP. IPv6 link-local entries form on any cable; IPv4 ARP would not show
# a miscabled NIC (its ARP for the gateway of another /31 gets no answer), so `show arp` is not read.
NDP_TABLE = "show ndp"
BGP_SUMMARY = "show ip bgp summary"
# Link health: SONiC has no single command with CRC, FEC and flap counters. RX_ERR of `portstat -e` counts
# frames received with errors (FCS/CRC), `portstat -f` the FEC codewords, `show interfaces flap` the
# link-state changes (sonic-utilities 2025+; older images answer "No such command", which is tolerated).
ERROR_COUNTERS = "show interfaces counters errors"
FEC_COUNTERS = "show interfaces counters fec-stats"
FLAPS = "show interfaces flap"
VERSION = "show version"
COLLECT: tuple[str, ...] = (PRINT_DATA, INTERFACES_STATUS, PFC_COUNTERS, WRED_COUNTERS, PFCWD_STATS, LLDP_TABLE,
                            BGP_SUMMARY, ERROR_COUNTERS, FEC_COUNTERS, FLAPS, VERSION, MODES_COMMAND, NDP_TABLE)
# link state and counters only: what a health check samples a second time
COUNTERS: tuple[str, ...] = (INTERFACES_STATUS, PFC_COUNTERS, WRED_COUNTERS, PFCWD_STATS, ERROR_COUNTERS,
                             FEC_COUNTERS, FLAPS)

MANAGED_TABLES = frozenset({
    "DEVICE_METADATA", "PORT", "INTERFACE", "LOOPBACK_INTERFACE", "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PORT_QOS_MAP", "WRED_PROFILE", "SCHEDULER", "QUEUE",
    "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH", "PFC_WD", "FLEX_COUNTER_TABLE",
    "BGP_NEIGHBOR", "BGP_NEIGHBOR_AF", "BGP_GLOBALS", "BGP_GLOBALS_AF", "BGP_GLOBALS_AF_NETWORK", "ROUTE_MAP_SET",
    "ROUTE_MAP", "BREAKOUT_CFG", "SWITCH_HASH",
})
FIELD_SCOPED = frozenset({"PORT", "DEVICE_METADATA", "FLEX_COUNTER_TABLE", "WRED_PROFILE", "BREAKOUT_CFG",
                          "SWITCH_HASH"})
OWN_PREFIX = "ROCEOPS"  # names roceops gives its own objects (render.MAP_NAME): fully managed even when field-scoped
HEREDOC_END = "ROCEOPS_EOF"
READ_TIMEOUT = 120.0
_TXN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,100}")
FAILURE = re.compile(r"^(Failed to .*|Error: .*|Sorry, user .*|Root privileges .*|-bash: .*|.*Permission denied.*)$",
                      re.M)


# --------------------------------------------------------------------------- pure: patches


def _load(snapshot: Snapshot | str, what: str) -> dict[str, Any]:
    text = snapshot.text if isinstance(snapshot, Snapshot) else snapshot
    try:
        doc = json_text.loads(text)
    except json.JSONDecodeError as exc:
        first = text.strip().splitlines()[0][:200] if text.strip() else "(empty output)"
        raise DriverError(f"{what} is not CONFIG_DB JSON ({exc.msg}); the device said: {first}") from None
    if not isinstance(doc, dict):
        raise DriverError(f"{what} is not a CONFIG_DB object")
    return doc


# An audit's observe, facts and mode_problems each read PRINT_DATA's output (~140 KB of JSON): parsed once for the
# three, which only read the document (tests/platforms/sonic/test_config_db_parsed_once.py)
_print_data = json_text.LastParsed(lambda text: _load(text, f"`{PRINT_DATA}`"))


def scoped(current: dict[str, Any], rendered: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the part of ``current`` roceops manages, the rendered target) — see the module docstring."""
    src: dict[str, Any] = {}
    dst: dict[str, Any] = {}
    for table in sorted(MANAGED_TABLES | set(rendered)):
        want, have = rendered.get(table), current.get(table)
        if table in FIELD_SCOPED:
            if want is None:
                continue
            dst[table] = want
            if have is not None:
                src[table] = {k: {f: have[k][f] for f in fields if f in have[k]} for k, fields in want.items()
                              if k in have}
                src[table].update({k: v for k, v in have.items() if k.startswith(OWN_PREFIX) and k not in want})
        else:
            if want is not None:
                dst[table] = want
            if have is not None:
                src[table] = have
    return src, dst


def _plain_ops(ops: list[dict[str, Any]], base: dict[str, Any]) -> list[dict[str, Any]]:
    """Rewrite jsonpatch's ``move``/``copy`` optimisations as ``remove``/``add`` (values resolved in order)."""
    if not any(op["op"] in ("move", "copy") for op in ops):
        return ops
    doc = copy.deepcopy(base)
    out: list[dict[str, Any]] = []
    for op in ops:
        if op["op"] in ("move", "copy"):
            value = copy.deepcopy(jsonpatch.JsonPointer(op["from"]).resolve(doc))
            step = ([{"op": "remove", "path": op["from"]}] if op["op"] == "move" else []) + [
                {"op": "add", "path": op["path"], "value": value}]
        else:
            step = [op]
        for s in step:
            jsonpatch.apply_patch(doc, [s], in_place=True)
        out.extend(step)
    return out


def full_target(current: dict[str, Any], change: Change) -> dict[str, Any]:
    """The whole CONFIG_DB after ``change``: what the bring-up path loads (tables roceops does not manage kept)."""
    target: dict[str, Any] = jsonpatch.apply_patch(copy.deepcopy(current), change.payload)
    return target


def make_change(src: dict[str, Any], dst: dict[str, Any], base: dict[str, Any]) -> Change:
    ops = _plain_ops(list(jsonpatch.make_patch(src, dst)), base)
    counts = Counter(op["op"] for op in ops)
    summary = {k: counts.get(k, 0) for k in ("add", "replace", "remove")}
    return Change(diff=json.dumps(ops, indent=2) if ops else "", payload=ops, summary=summary)


def patch_file_text(change: Change) -> str:
    """The patch as written to the device: pretty-printed, so every line is short."""
    return json.dumps(change.payload, indent=2) + "\n"


# --------------------------------------------------------------------------- pure: expected / observed


def expected(intent: Intent) -> ObservedSwitch:
    """The intent as CONFIG_DB shows it (:mod:`roceops.platforms.sonic.expected`)."""
    return expected_switch(_switch(intent))


def observe(outputs: dict[str, str]) -> ObservedSwitch:
    """The running CONFIG_DB (``PRINT_DATA``'s output), and nothing else, as an ObservedSwitch."""
    return parse_config_db(_print_data(outputs[PRINT_DATA]))


def _optional(outputs: dict[str, str], command: str, parser: Any) -> Any:
    """Parse an output that older images may not support; None when absent or unparsable."""
    text = outputs.get(command)
    if text is None:
        return None
    try:
        return parser(text)
    except P.ParseError:
        return None


def _switch(intent: Intent) -> SwitchIntent:
    if not isinstance(intent, SwitchIntent):
        raise DriverError(f"the SONiC driver manages switches, not {type(intent).__name__} {intent.name}")
    return intent


@lru_cache(maxsize=256)  # the same UC0..UC7, MC0..MC7 on every port
def _ecn_queue_key(queue: str) -> str | None:
    """``operational``'s counter of a unicast queue's ECN-marked packets (``UC3`` -> ``ecn_marked_q3``), else None."""
    return f"ecn_marked_q{int(queue[2:])}" if queue.startswith("UC") and queue[2:].isdigit() else None


# --------------------------------------------------------------------------- device I/O helpers


def _check_txn(txn: str) -> None:
    if not _TXN.fullmatch(txn):
        raise DriverError(f"transaction name {txn!r} is not usable as a SONiC checkpoint/file name")


def _read_until(conn: Any, pattern: str, what: str) -> str:
    return read_until(conn, pattern, what, read_timeout(conn, READ_TIMEOUT))


def _send(conn: Any, command: str) -> str:
    return send_line(conn, command, read_timeout(conn, READ_TIMEOUT))


def _sudo(conn: Any, command: str) -> str:
    """``sudo <command>``, answering a sudo password prompt with the connection's secret if one appears."""
    password = r"\[sudo\] password for [^\n]*:\s*$"
    conn.write_channel(f"sudo {command}\n")
    raw = _read_until(conn, rf"(?:{prompt_pattern(conn)}|{password})", f"sudo {command}")
    if re.search(password, raw):
        if not getattr(conn, "secret", ""):
            conn.write_channel("\x03")
            _read_until(conn, prompt_pattern(conn), "Ctrl-C")
            raise DriverError(f"`sudo {command.split()[0]}` asks for a password and no secret is configured")
        conn.write_channel(conn.secret + "\n")
        return strip_echo(f"sudo {command}\n" + _read_until(conn, prompt_pattern(conn), f"sudo {command}").lstrip("\n"),
                     f"sudo {command}")
    return strip_echo(raw, f"sudo {command}")


def _failure(command: str, output: str) -> DriverError:
    lines = FAILURE.findall(output)
    detail = "; ".join(dict.fromkeys(line.strip() for line in lines)) or output.strip()[-400:] or "no output"
    return DriverError(f"`{command}` failed: {detail[:600]}")


def write_file(conn: Any, path: str, text: str) -> None:
    """Write ``text`` to ``path`` on the device with a quoted here-document (one write, then the prompt)."""
    lines = text.splitlines()
    if HEREDOC_END in lines:
        raise DriverError(f"cannot write {path}: the text contains the here-document delimiter")
    conn.write_channel("\n".join([f"cat > {path} <<'{HEREDOC_END}'", *lines, HEREDOC_END]) + "\n")
    out = _read_until(conn, prompt_pattern(conn), f"cat > {path}")
    if re.search(r"^-bash: .*$", out, re.M):
        raise _failure(f"cat > {path}", out)


def _apply_patch(conn: Any, change: Change, path: str) -> None:
    write_file(conn, path, patch_file_text(change))
    command = f"config apply-patch {path}"
    try:
        out = _sudo(conn, command)
    finally:
        with contextlib.suppress(DriverError, OSError, EOFError):  # keep the first error if the session died
            _send(conn, f"rm -f {path}")
    if "Patch applied successfully." not in out:
        raise _failure(f"sudo {command}", out)


def _reload(conn: Any, doc: dict[str, Any], path: str) -> None:
    """``config reload -y <file>`` of a whole CONFIG_DB (sonic-utilities config/main.py ``reload``)."""
    write_file(conn, path, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    command = f"config reload -y {path}"
    try:
        out = _sudo(conn, command)
    finally:
        with contextlib.suppress(DriverError, OSError, EOFError):
            _send(conn, f"rm -f {path}")
    if FAILURE.search(out):
        raise _failure(f"sudo {command}", out)


def _checkpoints(conn: Any) -> list[str]:
    out = _sudo(conn, "config list-checkpoints")
    try:
        names = json.loads(out)
    except json.JSONDecodeError:
        return []
    return [n if isinstance(n, str) else str(n.get("name")) for n in names] if isinstance(names, list) else []


def _device_key(conn: Any, txn: str) -> tuple[str, int, str]:
    return str(getattr(conn, "host", "")), int(getattr(conn, "port", 0) or 0), txn


# --------------------------------------------------------------------------- the driver


class SonicDriver(RoomDriver):
    """Implements :class:`roceops.platforms.driver.Driver` for community SONiC."""

    platform = "sonic"
    commands = COLLECT

    def __init__(self) -> None:
        # transactions whose confirm ran `config save`: abort must re-save after rolling back, or the startup
        # config would keep the change (keyed by device endpoint + txn, so a reconnect finds it)
        self._saved: set[tuple[str, int, str]] = set()
        self._bringups: set[tuple[str, int, str]] = set()  # transactions applied by reload: abort reloads too
        self._lock = threading.Lock()

    # ---- pure

    def diff(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        doc = _load(current, "the device's CONFIG_DB")
        target = _load(rendered.files["config_db.json"], f"{rendered.name} config_db.json")
        src, dst = scoped(doc, target)
        return make_change(src, dst, doc)

    def route(self, current: Snapshot, change: Change, intent: Intent, facts: DeviceFacts | None) -> ChangePath:
        """Day-2 (apply-patch takes every op) or bring-up, for this switch's ASIC and release (its facts)."""
        doc = _load(current, "the device's CONFIG_DB")
        sw = _switch(intent)
        hwsku = (facts.hardware if facts else None) or sw.hwsku or ""
        return route(doc, full_target(doc, change), change.payload, hwsku, facts.nos_version if facts else None)

    def restore(self, current: Snapshot, backup: Snapshot) -> Change:
        doc = _load(current, "the device's CONFIG_DB")
        return make_change(doc, _load(backup, "the backup"), doc)

    def expected(self, intent: Intent) -> ObservedSwitch:
        return expected(intent)

    def observe(self, outputs: dict[str, str]) -> ObservedSwitch:
        return observe(outputs)

    def operational(self, outputs: dict[str, str]) -> OperState:
        """Every port the outputs show (the caller keeps the planned ones: ``device.oper.for_intent``)."""
        # the columns used of show_interfaces_status, show_queue_wredcounters, show_interfaces_counters_errors, ...
        status = O.interfaces_link(outputs[INTERFACES_STATUS]) if INTERFACES_STATUS in outputs else {}
        pfc = P.show_pfc_counters(outputs[PFC_COUNTERS]) if PFC_COUNTERS in outputs else {"rx": {}, "tx": {}}
        wred = _optional(outputs, WRED_COUNTERS, O.wred_ecn_marked) or {}
        storms = _optional(outputs, PFCWD_STATS, P.pfcwd_show_stats)
        errors = _optional(outputs, ERROR_COUNTERS, O.errors_rx) or {}
        fec = _optional(outputs, FEC_COUNTERS, O.fec_errors) or {}
        flaps = _optional(outputs, FLAPS, O.flap_counts) or {}
        ports: dict[str, PortOper] = {}
        storms_of: dict[str, list[int | None]] = {}
        for (port, _), v in (storms or {}).items():
            storms_of.setdefault(port, []).append(v["storm_detected"])
        shown = dict.fromkeys([*status, *pfc["rx"], *pfc["tx"], *wred, *storms_of, *errors, *fec, *flaps])
        pfc_tables = ((pfc["rx"], _PFC_NAMES["rx"], "rx"), (pfc["tx"], _PFC_NAMES["tx"], "tx"))
        sources = ((errors, "rx_err", "crc_errors", ERROR_COUNTERS),
                   (fec, "fec_uncorr", "fec_uncorrected", FEC_COUNTERS),
                   (fec, "fec_symbol_err", "symbol_errors", FEC_COUNTERS), (flaps, "flaps", "carrier_changes", FLAPS))
        for name in shown:
            row = status.get(name)
            counters: dict[str, int] = {}
            unread: dict[str, str] = {}  # a counter the device printed as N/A: unknown, never 0
            for table, names, direction in pfc_tables:
                frames = table.get(name)
                if not frames:
                    continue
                for prio, value in frames.items():
                    key = names.get(prio) or f"pfc_{direction}_{prio}"
                    if value is None:
                        unread[key] = f"`{PFC_COUNTERS}` prints N/A"
                    else:
                        counters[key] = value
            queues = wred.get(name)
            if queues:
                marked = [q for q in queues.values() if q is not None]
                if marked:
                    counters["ecn_marked"] = sum(marked)
                for queue, value in queues.items():  # UC<n>: per unicast queue (health's cc.loop)
                    if value is not None and (queue_key := _ecn_queue_key(queue)) is not None:
                        counters[queue_key] = value
            if storms is not None:
                detected = storms_of.get(name, [])
                if None in detected:
                    unread["pfcwd_storms"] = f"`{PFCWD_STATS}` prints N/A"
                else:
                    counters["pfcwd_storms"] = sum(d for d in detected if d is not None)
            for source, field, key, command in sources:
                entry = source.get(name)
                if entry is None:
                    continue
                value = entry.get(field)
                if value is not None:
                    counters[key] = value
                else:
                    unread[key] = f"`{command}` prints N/A"
            if row is None and not counters and not unread:
                continue
            oper = row["oper"] if row else None
            ports[name] = PortOper(name=name, oper_up=None if oper not in ("up", "down") else oper == "up",
                                   speed=row["speed"] if row else None, mtu=row["mtu"] if row else None,
                                   counters=counters, unread=unread)
        lldp = _optional(outputs, LLDP_TABLE, PC.show_lldp_table) or {}
        bgp = _optional(outputs, BGP_SUMMARY, PC.show_ip_bgp_summary) or {"neighbors": {}}
        version = _optional(outputs, VERSION, PC.show_version) or {}
        return OperState(
            ports=ports,
            lldp={port: LldpNeighbor(device=n["device"], port=n["port"]) for port, n in lldp.items()},
            neighbor_macs=_optional(outputs, NDP_TABLE, PC.show_ndp) or {},
            bgp={ip: BgpSession(state=n["state"], remote_asn=n["remote_as"]) for ip, n in bgp["neighbors"].items()},
            os_version=version.get("SONiC Software Version"),
        )

    # ---- device I/O

    def read_config(self, conn: Any) -> Snapshot:
        text = _send(conn, PRINT_DATA)
        _load(text, f"`{PRINT_DATA}`")
        return Snapshot(format="config_db_json", text=text)

    def facts(self, outputs: dict[str, str]) -> DeviceFacts:
        """The facts in ``collect``'s outputs (an audit's)."""
        return parse_facts(outputs[VERSION], _print_data(outputs[PRINT_DATA]))

    def read_facts(self, conn: Any, current: Snapshot) -> DeviceFacts:
        """Release and HwSKU from ``show version``, ports from ``current`` (the CONFIG_DB just read)."""
        text = _send(conn, VERSION)
        if FAILURE.search(text):
            raise _failure(VERSION, text)
        return parse_facts(text, _load(current, f"`{PRINT_DATA}`"))

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        _check_txn(txn)
        out = _sudo(conn, f"config checkpoint {txn}")
        if "Checkpoint created successfully." not in out:  # refused before anything was sent: backup_refused
            raise BackupRefused(str(_failure(f"sudo config checkpoint {txn}", out)))
        _apply_patch(conn, change, f"/tmp/{txn}.json")

    def mode_problems(self, outputs: dict[str, str], intent: Intent) -> list[str]:
        """Modes the rendered config asks that the switch does not run (``facts.mode``; see modes.py)."""
        from roceops.platforms.sonic.render import buffer_model_of

        sw = _switch(intent)
        text = outputs.get(MODES_COMMAND)
        out = [] if text is None else mode_problems(text, buffer_model_of(sw))
        if PRINT_DATA in outputs:
            out += breakout_problems(_print_data(outputs[PRINT_DATA]), breakout_cfg(sw))
        return out

    def read_mode_problems(self, conn: Any, intent: Intent, current: Snapshot | None = None) -> list[str]:
        """Read the processes (and the breakout table, unless ``current`` is the CONFIG_DB just read) and say which
        modes are not in effect."""
        config = current.text if current is not None else _send(conn, PRINT_DATA)
        return self.mode_problems({MODES_COMMAND: _send(conn, MODES_COMMAND), PRINT_DATA: config}, intent)

    def bringup(self, conn: Any, current: Snapshot, change: Change, txn: str) -> None:
        """The bring-up path: a ``config checkpoint`` of the running CONFIG_DB (the backup on the device, as on
        day-2), then the whole CONFIG_DB (``current`` + ``change``) loaded by ``config reload``."""
        _check_txn(txn)
        target = full_target(_load(current, "the device's CONFIG_DB"), change)
        out = _sudo(conn, f"config checkpoint {txn}")
        if "Checkpoint created successfully." not in out:  # refused before anything was sent: backup_refused
            raise BackupRefused(str(_failure(f"sudo config checkpoint {txn}", out)))
        with self._lock:
            self._bringups.add(_device_key(conn, txn))
        _reload(conn, target, f"/tmp/{txn}-bringup.json")

    def confirm(self, conn: Any, txn: str) -> None:
        _check_txn(txn)
        with self._lock:
            self._saved.add(_device_key(conn, txn))
        out = _sudo(conn, "config save -y")
        if FAILURE.search(out):
            raise _failure("sudo config save -y", out)
        saved = _load(_send(conn, SAVED_DATA), "the saved /etc/sonic/config_db.json")
        running = _load(_send(conn, PRINT_DATA), "the running CONFIG_DB")
        if saved != running:
            changed = sorted({t for t in saved.keys() | running.keys() if saved.get(t) != running.get(t)})
            raise ConfirmNotTaken("`config save` reported success but /etc/sonic/config_db.json differs from the "
                                  f"running CONFIG_DB (tables: {', '.join(changed[:6])})")
        with self._lock:
            self._saved.discard(_device_key(conn, txn))
            self._bringups.discard(_device_key(conn, txn))
        _sudo(conn, f"config delete-checkpoint {txn}")  # housekeeping; the change is saved either way

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        _check_txn(txn)
        with self._lock:
            reloaded = _device_key(conn, txn) in self._bringups
            self._bringups.discard(_device_key(conn, txn))
        if reloaded:  # a bring-up: back the same way, the whole backup reloaded (unless nothing changed)
            if _load(self.read_config(conn), "the running CONFIG_DB") != _load(backup, "the backup"):
                _reload(conn, _load(backup, "the backup"), f"/tmp/{txn}-restore.json")
            self._resave(conn, txn)
            if txn in _checkpoints(conn):
                _sudo(conn, f"config delete-checkpoint {txn}")
            return
        present = txn in _checkpoints(conn)
        if present:
            _sudo(conn, f"config rollback {txn}")  # verified below, by content
        now = self.read_config(conn)
        if now.text.strip() != backup.text.strip():
            change = self.restore(now, backup)
            if not change.empty:
                _apply_patch(conn, change, f"/tmp/{txn}-restore.json")
        self._resave(conn, txn)
        if present:
            _sudo(conn, f"config delete-checkpoint {txn}")
        _send(conn, f"rm -f /tmp/{txn}.json")

    def _resave(self, conn: Any, txn: str) -> None:
        with self._lock:
            saved_by_us = _device_key(conn, txn) in self._saved
            self._saved.discard(_device_key(conn, txn))
        if saved_by_us:  # our confirm may have written the change to /etc/sonic/config_db.json: write it back
            _sudo(conn, "config save -y")

    def collect(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        return self._run(conn, intent, COLLECT)  # every read is device-wide: ``ports`` narrows nothing

    def collect_counters(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        return self._run(conn, intent, COUNTERS)

    def collect_rest(self, conn: Any, intent: Intent, counters: dict[str, str],
                     ports: Collection[str] | None = None) -> dict[str, str]:
        return first_sample(COLLECT, counters, lambda cmds: self._run(conn, intent, tuple(cmds)))

    @staticmethod
    def _run(conn: Any, intent: Intent, commands: tuple[str, ...]) -> dict[str, str]:
        if isinstance(intent, HostIntent):
            raise DriverError(f"the SONiC driver manages switches, not host {intent.name}")
        return {command: _send(conn, command) for command in commands}


DRIVER = SonicDriver()
