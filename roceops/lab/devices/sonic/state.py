"""State of one simulated SONiC switch: running CONFIG_DB, the saved ``/etc/sonic/config_db.json``, GCU
checkpoints, a tiny file store, the shared :class:`~roceops.lab.physical.Physical` layer, and faults.

Memory: a 64-port leaf's CONFIG_DB is ~75 kB as compact JSON but ~320 kB as Python dicts, so the running
config is kept as compact JSON text and parsed per command (C json, well under a millisecond); the saved
copy and checkpoints are references to such texts (unchanged configs share one string).

Every change goes through the functions here, used both by the CLI (:mod:`roceops.lab.devices.sonic.device`)
and by fault injection, so a fault is exactly "what an operator typing the command would have done".
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import jsonpatch

from roceops.lab.devices.sonic.gcu import GcuRefused
from roceops.lab.devices.sonic.gcu import check as gcu_check
from roceops.lab.devices.sonic.keys import port_id_keyed, port_keyed, priorities, unref
from roceops.lab.personality import (
    FACTS_FAULT,
    FACTS_PARAMS,
    DeviceState,
    LabError,
    canonical_fault_name,
    lab_release,
)
from roceops.lab.physical import OPER_FAULTS, Physical
from roceops.util.sorting import natsorted

Db = dict[str, dict[str, dict[str, str]]]

CONFIG_FILE = "/etc/sonic/config_db.json"
CONFIG_FAULTS = frozenset({"pfc_off", "ecn_changed", "mtu_mismatch"})
FLAG_FAULTS = frozenset({"reject_config", "confirm_lost"})
FAULT_PARAMS: dict[str, frozenset[str]] = {
    "pfc_off": frozenset({"port", "priority"}), "ecn_changed": frozenset({"min", "max"}),
    "mtu_mismatch": frozenset({"port", "mtu"}), "reject_config": frozenset(), "confirm_lost": frozenset(),
    FACTS_FAULT: FACTS_PARAMS,
    **{f: frozenset({"port"}) for f in OPER_FAULTS},
}
DEFAULT_MTU = "9100"
LAB_RELEASE = "202411.1"  # SONiC branch and build the lab runs when the fabric pins none
PARSED_CACHE = 32  # parsed running CONFIG_DBs kept for the most recently read devices (~320 kB each)
_parsed: OrderedDict[int, tuple[str, Db]] = OrderedDict()  # device serial -> (running text, its parse)
_parsed_lock = threading.Lock()
_serials = itertools.count()
MTU_RANGE = (68, 9216)
# DEVICE_METADATA fields a SONiC service reads only when it starts (buffermgrd.sh, docker-fpm-frr docker_init.sh)
RESTART_MODES = ("buffer_model", "docker_routing_config_mode", "frr_mgmt_framework_config")


class CommandFailed(Exception):
    """A CONFIG_DB operation was refused; ``str()`` is the reason the real tool would print."""


def dumps(db: Mapping[str, Any]) -> str:
    return json.dumps(db, separators=(",", ":"), sort_keys=True)


@lru_cache(maxsize=64)
def _yang_errors(text: str) -> tuple[str, ...] | None:
    """YANG errors of a compact CONFIG_DB text (cached: rollbacks re-validate known configs); None = no libyang."""
    try:
        from roceops.platforms.sonic.yang import YangUnavailable, get_validator
    except ImportError:  # pragma: no cover - module always present
        return None
    try:
        validator = get_validator()
    except YangUnavailable:
        return None
    return tuple(validator.validate(json.loads(text)))


@lru_cache(maxsize=1)
def _yang_tables() -> frozenset[str] | None:
    try:
        from roceops.platforms.sonic.yang import YangUnavailable, get_validator

        return frozenset(get_validator().tables)
    except (ImportError, YangUnavailable):
        return None


def _platform_of(hwsku: str) -> tuple[str, str]:
    """(DEVICE_METADATA platform, ASIC family) for a HwSKU; generic SKUs run the SONiC virtual switch."""
    sku = hwsku.lower()
    if sku.startswith(("mellanox-sn", "nvidia-sn")):
        model = sku.split("-")[1]
        if model.startswith("sn5"):
            return f"x86_64-nvidia_{model}-r0", "mellanox"
        return f"x86_64-mlnx_m{model}-r0", "mellanox"
    return "x86_64-kvm_x86_64-r0", "vs"


def _port_entry(port: Mapping[str, Any], position: int) -> dict[str, str]:
    """PORT as the switch boots it from its SKU's port_config.ini (lanes/alias/index given by the lab spec);
    a port without SKU facts gets one made-up lane per position (a lab-only generic switch)."""
    index = int(port.get("index", position + 1))
    lane_text = ",".join(str(lane) for lane in port.get("lanes", [position]))
    return {"admin_status": "down", "alias": str(port.get("alias", f"etp{index}")), "index": str(index),
            "lanes": lane_text, "mtu": DEFAULT_MTU, "speed": str(int(port.get("speed", 400_000)))}


def _boot_port_table(ports: list[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """PORT at first boot: a port the fabric gets only by breaking its cage out (``boot_port``) is still the
    cage's SKU port in its default mode (sonic-cfggen's PORT from port_config/hwsku.json), every other port as
    :func:`_port_entry` gives it."""
    table: dict[str, dict[str, str]] = {}
    for i, p in enumerate(ports):
        boot = p.get("boot_port")
        if boot is not None:
            table[str(boot["name"])] = _port_entry(boot, i)
        else:
            table[str(p["name"])] = _port_entry(p, i)
    return table


class SonicState(DeviceState):
    """One SONiC switch. ``extra``: hostname, hwsku, ports [{name, speed, neighbor}], lossless, preload_files."""

    PERSONALITY_FAULTS: ClassVar[frozenset[str]] = frozenset(FAULT_PARAMS)
    FAULT_PARAMS = FAULT_PARAMS

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, platform, extra)
        preload = dict(self.extra.pop("preload_files", None) or {})
        self.hostname = str(self.extra.get("hostname", name))
        ports = list(self.extra.get("ports", []))
        self.physical = Physical(name, ports, self.extra.get("lossless", (3,)))
        hwsku = str(self.extra.get("hwsku") or "generic")
        self.platform_name, self.asic = _platform_of(hwsku)
        # the SKU's own platform string when the lab spec carries it (from the hardware profile)
        self.platform_name = str(self.extra.get("sku_platform") or self.platform_name)
        self.release = lab_release(self.extra.get("nos_version"), LAB_RELEASE, "")  # without "SONiC."
        seed = zlib.crc32(name.encode())
        mac = "0c:42:a1:" + ":".join(f"{(seed >> s) & 0xFF:02x}" for s in (16, 8, 0))
        db: Db = {
            "DEVICE_METADATA": {"localhost": {"hostname": self.hostname, "hwsku": hwsku, "mac": mac,
                                              "platform": self.platform_name}},
            "PORT": _boot_port_table(ports),
            "BREAKOUT_CFG": {cage: {"brkout_mode": str(mode)}
                             for cage, mode in dict(self.extra.get("boot_breakout") or {}).items()},
        }
        for table in ("PORT", "BREAKOUT_CFG"):
            if not db[table]:
                del db[table]
        self.started = time.time()
        self._serial = next(_serials)
        self.running = dumps(db)
        self.saved = self.running
        self.checkpoints: dict[str, tuple[str, float]] = {}
        self.files: dict[str, str] = {}
        self.bgp_up: dict[str, float] = {}
        if preload.get("config_db.json"):  # a configured switch: loaded as `config load` would, then saved
            self.load_config(json.loads(preload["config_db.json"]))
            self.saved = self.running
        self.modes = self._modes_of(self.db_read())  # what the services read when this switch booted

    # ---------------------------------------------------------------- CONFIG_DB access

    def db(self) -> Db:
        """A private copy of the running CONFIG_DB (mutate freely, then :meth:`commit`)."""
        return json.loads(self.running)  # type: ignore[no-any-return]

    def db_read(self) -> Db:
        """The running CONFIG_DB for reading only (show commands): parsed once per running text and shared
        through a small LRU of all devices; never mutate it (use :meth:`db`)."""
        running = self.running
        with _parsed_lock:
            found = _parsed.get(self._serial)
            if found is not None and found[0] is running:
                _parsed.move_to_end(self._serial)
                return found[1]
        db: Db = json.loads(running)
        with _parsed_lock:
            _parsed[self._serial] = (running, db)
            while len(_parsed) > PARSED_CACHE:
                _parsed.popitem(last=False)
        return db

    def commit(self, db: Db) -> None:
        self.running = dumps({t: e for t, e in db.items() if e})

    def read_file(self, path: str) -> str | None:
        if path == CONFIG_FILE:
            return json.dumps(json.loads(self.saved), indent=4, sort_keys=True) + "\n"
        return self.files.get(path)

    # ---------------------------------------------------------------- GCU and config load/save

    def apply_patch(self, text: str, *, dry_run: bool = False, ignore_non_yang: bool = False) -> None:
        """``config apply-patch``: RFC 6902 on CONFIG_DB, refused (nothing changed) if the result is invalid."""
        try:
            ops = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandFailed(str(exc)) from None
        if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
            raise CommandFailed("Invalid patch: a JSON Patch is a list of operations")
        for op in ops:
            if not str(op.get("path", "")).strip("/"):
                raise CommandFailed("Wrong patch with empty path.")
        current = self.db()
        try:
            target = jsonpatch.JsonPatch(ops).apply(current)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            raise CommandFailed(str(exc)) from None
        if not isinstance(target, dict):
            raise CommandFailed("Given patch will produce invalid config. Error: the config must be an object")
        empty = [t for t, e in target.items() if isinstance(e, dict) and not e]
        if empty:
            raise CommandFailed("localhost: given patch is not valid because it will result in empty tables which "
                                f"is not allowed in ConfigDb. Table{'s' if len(empty) != 1 else ''}: "
                                f"{', '.join(empty)}")
        try:
            gcu_check(current, target, self.release, self.asic, str(current.get("DEVICE_METADATA", {}).get(
                "localhost", {}).get("hwsku", "")))
        except GcuRefused as exc:
            raise CommandFailed(str(exc)) from None
        touched = {str(op["path"]).split("/")[1].replace("~1", "/").replace("~0", "~") for op in ops}
        yang_tables = _yang_tables()
        if yang_tables is not None and not ignore_non_yang and touched - yang_tables:
            raise CommandFailed("Given patch is not valid because it has changes to tables without YANG models")
        self._check_shape(target)
        errors = _yang_errors(dumps(target))
        if errors:
            raise CommandFailed(f"Given patch will produce invalid config. Error: {errors[0]}")
        if not dry_run:
            self.commit(target)

    @staticmethod
    def _check_shape(doc: Mapping[str, Any]) -> None:
        for table, entries in doc.items():
            if not isinstance(entries, dict):
                raise CommandFailed(f"Given patch will produce invalid config. Error: table {table} is not an object")
            for key, fields in entries.items():
                # config_db.json form: string fields, leaf-lists as lists of strings ("field@" in redis)
                if not isinstance(fields, dict) or not all(
                        isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
                        for v in fields.values()):
                    raise CommandFailed(f"Given patch will produce invalid config. Error: {table}|{key}: CONFIG_DB "
                                        "entries hold string (or leaf-list of string) fields only")

    def checkpoint(self, name: str) -> None:
        self.checkpoints[name] = (self.running, time.time())

    def rollback(self, name: str, *, dry_run: bool = False) -> None:
        """``config rollback``: replace the running config with exactly the checkpoint."""
        if name not in self.checkpoints:
            raise CommandFailed(f"Checkpoint '{name}' does not exist")
        if not dry_run:
            self.running = self.checkpoints[name][0]

    def delete_checkpoint(self, name: str) -> None:
        if name not in self.checkpoints:
            raise CommandFailed(f"Checkpoint '{name}' does not exist")
        del self.checkpoints[name]

    def save(self) -> None:
        if "confirm_lost" in self.faults.extra:  # read-only overlay: the tool says nothing, the file stays old
            return
        self.saved = self.running

    def reload(self, doc: Mapping[str, Any], *, restart: bool = True) -> None:
        """``config reload -y FILE``: CONFIG_DB flushed and loaded from the file, services restarted: the
        restart-only modes take effect now and the routing container's sessions start over. ``restart=False``
        is ``-n/--no_service_restart``: the services keep running with the modes they started with."""
        self._check_shape(doc)
        self.commit(json.loads(dumps(doc)))
        if restart:
            self.modes = self._modes_of(self.db_read())
            self.bgp_up = {}

    @staticmethod
    def _modes_of(db: Mapping[str, Any]) -> dict[str, str]:
        """The restart-only DEVICE_METADATA settings as the services read them at their start."""
        meta = (db.get("DEVICE_METADATA") or {}).get("localhost") or {}
        return {f: str(meta.get(f, "")) for f in RESTART_MODES}

    def load_config(self, doc: Mapping[str, Any]) -> None:
        """``config load`` / ``sonic-cfggen -j F --write-to-db``: merge field by field, delete nothing."""
        self._check_shape(doc)
        db = self.db()
        for table, entries in doc.items():
            target = db.setdefault(table, {})
            for key, fields in entries.items():
                target.setdefault(key, {}).update(fields)
        self.commit(db)

    # ---------------------------------------------------------------- per-item CLIs

    def set_port_field(self, port: str, field: str, value: str) -> None:
        db = self.db()
        if port not in db.get("PORT", {}):
            raise CommandFailed("Interface name is invalid. Please enter a valid interface name!!")
        db["PORT"][port][field] = value
        self.commit(db)

    def set_mtu(self, port: str, mtu: int) -> None:
        if not MTU_RANGE[0] <= mtu <= MTU_RANGE[1]:
            raise CommandFailed(f"Invalid MTU {mtu}: valid range is {MTU_RANGE[0]}-{MTU_RANGE[1]}")
        self.set_port_field(port, "mtu", str(mtu))

    def pfc_priority(self, port: str, priority: int, on: bool) -> str:
        """``config interface pfc priority``; returns the tool's message ("" when it changed something)."""
        db = self.db()
        qos = db.get("PORT_QOS_MAP", {})
        if port not in qos:
            return f"Cannot find interface {port}"
        enabled = [p.strip() for p in qos[port].get("pfc_enable", "").split(",") if p.strip()]
        if on and str(priority) in enabled:
            return f"Priority {priority} has already been enabled on {port}"
        if not on and str(priority) not in enabled:
            return f"Priority {priority} is not enabled on {port}"
        if on:
            enabled.append(str(priority))
        else:
            enabled.remove(str(priority))
        qos[port]["pfc_enable"] = ",".join(sorted(enabled))
        self.commit(db)
        return ""

    def set_ecn(self, profile: str, values: Mapping[str, str]) -> None:
        """``ecnconfig -p PROFILE -gmin ... -rdrop ...``: WRED_PROFILE fields."""
        db = self.db()
        wred = db.get("WRED_PROFILE", {})
        if profile not in wred:
            raise CommandFailed(f"Profile {profile} does not exist")
        wred[profile].update(values)
        self.commit(db)

    # ---------------------------------------------------------------- faults

    def apply_fault(self, name: str, **params: Any) -> None:
        fault = canonical_fault_name(name)
        if fault in FAULT_PARAMS:
            bad = sorted(set(params) - FAULT_PARAMS[fault])
            if bad:
                allowed = ", ".join(sorted(FAULT_PARAMS[fault])) or "no parameters"
                raise LabError(f"fault '{fault}' takes {allowed} (got: {', '.join(bad)})")
        if fault in OPER_FAULTS:
            try:
                self.physical.apply(fault, params.get("port"))
            except KeyError as exc:
                raise LabError(str(exc).strip("'\"")) from None
        elif fault == "pfc_off":
            self._fault_pfc_off(params.get("port"), params.get("priority"))
        elif fault == "ecn_changed":
            self._fault_ecn(params.get("min"), params.get("max"))
        elif fault == "mtu_mismatch":
            self._fault_mtu(params.get("port"), params.get("mtu", 1500))
        super().apply_fault(name, **params)

    def clear_faults(self) -> None:
        """Operational faults and rejection stop; configuration changes stay (a re-deploy fixes them)."""
        super().clear_faults()
        self.physical.clear()

    def _fault_pfc_off(self, port: Any, priority: Any) -> None:
        qos = port_keyed(self.db().get("PORT_QOS_MAP", {}))
        with_pfc = [p for p in natsorted(qos) if priorities(qos[p].get("pfc_enable"))]
        if port is None:
            if not with_pfc:
                raise LabError(f"pfc_off: no port of {self.name} has PFC enabled (deploy it first)")
            port = with_pfc[0]
        if str(port) not in with_pfc:
            raise LabError(f"pfc_off: {self.name} {port} has no PFC priority enabled")
        enabled = priorities(qos[str(port)].get("pfc_enable"))
        prio = enabled[0] if priority is None else int(priority)
        message = self.pfc_priority(str(port), prio, on=False)
        if message:
            raise LabError(f"pfc_off: {message}")

    def _lossless_wred_profiles(self, db: Db) -> list[str]:
        qos = port_keyed(db.get("PORT_QOS_MAP", {}))
        names: set[str] = set()
        for (port, qid), entry in port_id_keyed(db.get("QUEUE", {})).items():
            pfc_map = db.get("MAP_PFC_PRIORITY_TO_QUEUE", {}).get(
                unref(qos.get(port, {}).get("pfc_to_queue_map")) or "", {})
            lossless = {int(pfc_map.get(str(p), p)) for p in priorities(qos.get(port, {}).get("pfc_enable"))}
            profile = unref(entry.get("wred_profile"))
            if qid in lossless and profile in db.get("WRED_PROFILE", {}):
                names.add(profile)
        return sorted(names)

    def _fault_ecn(self, lo: Any, hi: Any) -> None:
        db = self.db()
        profiles = self._lossless_wred_profiles(db)
        if not profiles:
            raise LabError(f"ecn_changed: {self.name} has no WRED/ECN profile on a lossless queue (deploy it first)")
        for name in profiles:
            wred = db["WRED_PROFILE"][name]
            new_lo = int(lo) if lo is not None else 2 * int(wred.get("green_min_threshold", "0") or 0) or 1_048_576
            new_hi = int(hi) if hi is not None else max(2 * int(wred.get("green_max_threshold", "0") or 0), new_lo + 1)
            values = {f"{c}_{k}": str(v) for c in ("green", "yellow", "red")
                      for k, v in (("min_threshold", new_lo), ("max_threshold", new_hi))}
            self.set_ecn(name, values)

    def _fault_mtu(self, port: Any, mtu: Any) -> None:
        ports = natsorted(self.db().get("PORT", {}))
        if not ports:
            raise LabError(f"mtu_mismatch: {self.name} has no ports")
        try:
            self.set_mtu(str(port) if port is not None else ports[0], int(mtu))
        except CommandFailed as exc:
            raise LabError(f"mtu_mismatch: {exc}") from None

    # ---------------------------------------------------------------- operational helpers

    def oper_up(self, db: Db, port: str) -> bool:
        admin = db.get("PORT", {}).get(port, {}).get("admin_status", "down") == "up"
        return port in self.physical.ports and self.physical.oper_up(port, admin)

    def counters(self, port: str) -> dict[str, int]:
        return self.physical.snapshot(port) if port in self.physical.ports else {}

    def counter(self, port: str, key: str) -> int:
        """``counters(port).get(key, 0)`` without reading the port's other counters."""
        return self.physical.value(port, key) if port in self.physical.ports else 0

    def rejecting(self) -> bool:
        return "reject_config" in self.faults.extra
