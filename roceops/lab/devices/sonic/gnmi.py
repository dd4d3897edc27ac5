"""What the simulated SONiC switch serves over gNMI: sonic-gnmi's COUNTERS_DB virtual paths, with the same values
``show`` prints (the counters come from the same :mod:`show` helpers and the shared physical layer).

The lab's own path table (data, with sources):

- ``COUNTERS/Ethernet*`` (target COUNTERS_DB): ``{port: {SAI_PORT_STAT_PFC_<p>_RX_PKTS: "n", ...}}``; a single
  port (``COUNTERS/Ethernet0``): its fields, not keyed by port; ``COUNTERS/<port>/<field>``: one field;
- ``COUNTERS/Ethernet*/Queues``: ``{"Ethernet0:3": {SAI_QUEUE_STAT_PACKETS, SAI_QUEUE_STAT_DROPPED_PACKETS, ...}}``;
- ``COUNTERS/Ethernet*/Pfcwd``: the PFC-watchdog queues, ``{"Ethernet0:3": {PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED,
  PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED, PFC_WD_STATUS}}``;
- ``PORT_TABLE`` (target APPL_DB): ``{port: {admin_status, oper_status, flap_count}}``, ``flap_count`` only once the
  port flapped (sonic-utilities show/interfaces/__init__.py@691b1bbc4fd2b71657d1b0b334c37136deb51526 reads it there
  for ``show interfaces flap``; sonic-gnmi db_client.go@5ec1c20b7865bbbfd30258f26e716a1e5e1bd259 keys a table's
  entries by the part after the ``:``).

Paths and their JSON shapes: sonic-net/sonic-gnmi sonic_data_client/virtual_db.go
@95f4400d96982c9f6a6a02ed62e30a9cb2454a85 (v2rEthPortStats, v2rEthPortFieldStats, v2rEthPortQueStats,
v2rEthPortPfcwdStats).
Field names: SAI_PORT_STAT_PFC_* and SAI_QUEUE_STAT_{PACKETS,DROPPED_PACKETS} as sonic-net/SONiC
doc/system-telemetry/grpc_telemetry.md@0fdbfb0b1b617ee1de408a028b1184656a6882f2 shows them; the WRED/ECN queue
counter (only while FLEX_COUNTER_TABLE|WRED_ECN_QUEUE is enabled) from sonic-net/SONiC
doc/qos/ECN_and_WRED_statistics_HLD.md@ebcd2a4a987f1d6027cd57677dc6806b8a9adcdb; the PFC watchdog fields from
sonic-gnmi gnmi_server/server_test.go@15422d280f2933cdcd258b3bfd958471fb878554 (the Pfcwd virtual path test).
Values are strings, as COUNTERS_DB holds them.
"""

from __future__ import annotations

from typing import Any

from roceops.lab.devices.sonic.keys import port_id_keyed, port_keyed, priorities, unref
from roceops.lab.devices.sonic.show import UNICAST_QUEUES, _ecn_queues, _ports, _queue_stats, pfcwd_queues
from roceops.lab.devices.sonic.state import Db, SonicState
from roceops.util.sorting import natsorted

TARGET, APPL_DB = "COUNTERS_DB", "APPL_DB"
WILDCARD = "Ethernet*"


class GnmiPathError(LookupError):
    """A path the switch does not serve (the server answers NOT_FOUND with this text)."""


def _port_fields(st: SonicState, port: str) -> dict[str, str]:
    c = st.counters(port)
    out = {f"SAI_PORT_STAT_PFC_{p}_{d.upper()}_PKTS": str(c.get(f"pfc_{d}_{p}", 0))
           for p in range(8) for d in ("rx", "tx")}
    out["SAI_PORT_STAT_IF_IN_ERRORS"] = str(c.get("crc_errors", 0))
    out["SAI_PORT_STAT_IF_IN_UCAST_PKTS"] = str(c.get("rx_packets", 0))
    out["SAI_PORT_STAT_IF_OUT_UCAST_PKTS"] = str(c.get("tx_packets", 0))
    return out


def _queues(st: SonicState, db: Db, ports: list[str]) -> dict[str, dict[str, str]]:
    enabled = db.get("FLEX_COUNTER_TABLE", {}).get("WRED_ECN_QUEUE", {}).get("FLEX_COUNTER_STATUS") == "enable"
    ecn_of = _ecn_queues(port_id_keyed(db.get("QUEUE", {}), copy=False), db.get("WRED_PROFILE", {}))
    qos = port_keyed(db.get("PORT_QOS_MAP", {}))
    maps = db.get("MAP_PFC_PRIORITY_TO_QUEUE", {})
    out: dict[str, dict[str, str]] = {}
    for port in ports:
        entry = qos.get(port, {})  # the port's lossless queues, as show's _lossless_queues finds them
        pfc_map = maps.get(unref(entry.get("pfc_to_queue_map")) or "", {})
        lossless = {int(pfc_map.get(str(p), p)) for p in priorities(entry.get("pfc_enable"))}
        stats = _queue_stats(st, db, port, lossless)[:UNICAST_QUEUES]
        ecn = ecn_of(port)
        marked = st.counter(port, "ecn_marked")
        for q, (_, pkts, byts, dpkts, dbytes) in enumerate(stats):
            entry = {"SAI_QUEUE_STAT_PACKETS": pkts, "SAI_QUEUE_STAT_BYTES": byts,
                     "SAI_QUEUE_STAT_DROPPED_PACKETS": dpkts, "SAI_QUEUE_STAT_DROPPED_BYTES": dbytes}
            if enabled:
                entry["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] = str(marked // len(ecn) if q in ecn else 0)
            out[f"{port}:{q}"] = entry
    return out


def _pfcwd(st: SonicState, db: Db, ports: list[str]) -> dict[str, dict[str, str]]:
    """The watched (PFC-enabled) queues of ports with a PFC_WD entry, as ``show pfcwd stats`` counts them."""
    return {f"{q.port}:{q.queue}": {
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": str(q.storms),
        "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": str(q.storms - 1 if q.stormed else q.storms),
        "PFC_WD_STATUS": "stormed" if q.stormed else "operational"} for q in pfcwd_queues(st, db, ports)}


def _port_table(st: SonicState, db: Db) -> dict[str, dict[str, str]]:
    """APPL_DB ``PORT_TABLE``: each port's admin/oper status and, once it flapped, ``flap_count`` (the count
    ``show interfaces flap`` prints, "Never" while absent)."""
    out = {}
    for port in _ports(db):
        entry = {"admin_status": db["PORT"][port].get("admin_status", "down"),
                 "oper_status": "up" if st.oper_up(db, port) else "down"}
        flaps = st.counter(port, "carrier_changes")
        if flaps:
            entry["flap_count"] = str(flaps)
        out[port] = entry
    return out


def answer(state: Any, target: str, elems: list[str]) -> Any:
    """The JSON value of one path (``elems`` without the target); GnmiPathError for a path not served."""
    st: SonicState = state
    if target == APPL_DB and elems == ["PORT_TABLE"]:
        return _port_table(st, st.db_read())
    if target != TARGET or len(elems) < 2 or elems[0] != "COUNTERS":
        raise GnmiPathError(f"{target}/{'/'.join(elems)} not found in virtual path tree")
    db = st.db_read()
    every = elems[1] == WILDCARD
    ports = _ports(db) if every else [elems[1]]
    if not every and elems[1] not in db.get("PORT", {}):
        raise GnmiPathError(f"{elems[1]} not a valid sonic interface")
    tail = elems[2:]
    if tail == ["Queues"]:
        return _queues(st, db, ports)
    if tail == ["Pfcwd"]:
        return _pfcwd(st, db, ports)
    if len(tail) > 1:
        raise GnmiPathError(f"{'/'.join(elems)} not found in virtual path tree")
    per_port = {p: _port_fields(st, p) for p in natsorted(ports)}
    if tail:
        per_port = {p: {tail[0]: f[tail[0]]} for p, f in per_port.items() if tail[0] in f}
    return per_port if every else per_port.get(elems[1], {})
