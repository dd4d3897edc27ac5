"""What the simulated SONiC switch prints for its read-only commands, built on demand from the running
CONFIG_DB and the :class:`~roceops.lab.physical.Physical` counters, in the layouts of the sonic-utilities
code and of ``shared/fixtures/sonic`` (same headers, alignment, ``N/A`` markers and thousands separators).

Counters: queue and WRED/ECN counters are derived from the port's moving ``tx_packets``/``ecn_marked``
(90 % of the packets on the lossless queues, 8 % on queue 0, 2 % on the CNP queue 6); WRED/ECN counters
read ``N/A`` until ``FLEX_COUNTER_TABLE|WRED_ECN_QUEUE`` is enabled, as on a real switch.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any, NamedTuple

from roceops.lab import frr_reader
from roceops.lab.devices.sonic.format import comma, frr_uptime, speed_text, tabulate
from roceops.lab.devices.sonic.keys import port_id_keyed, port_keyed, priorities, unref
from roceops.lab.devices.sonic.state import Db, SonicState
from roceops.lab.personality import reported_fact
from roceops.lab.physical import STORM_RATE, link_local, port_mac
from roceops.util.sorting import natsorted

UNICAST_QUEUES = 8
MULTICAST_QUEUES = 8
CNP_QUEUE = 6
PACKET_BYTES = {"lossless": 4160, 0: 512, CNP_QUEUE: 64}
_TRANSCEIVERS = {800_000: "OSFP 8X Pluggable Transceiver", 400_000: "QSFP-DD Double Density 8X Pluggable Transceiver",
                 200_000: "QSFP56 or later", 100_000: "QSFP28 or later", 40_000: "QSFP+ or later",
                 25_000: "SFP28 or later", 10_000: "SFP/SFP+/SFP28"}


def _rate(phys: Any, key: str) -> float:
    """A counter's current rate, read without making the lazily-built counter object exist."""
    touched = getattr(phys, "touched", None)
    if touched and key in touched:
        return float(touched[key].rate)
    default = getattr(phys, "default", None)
    return float(default(key)[1]) if default is not None else float(phys.counters[key].rate)


def _ports(db: Db, only: str | None = None) -> list[str]:
    names = natsorted(db.get("PORT", {}))
    return [p for p in names if p == only] if only else names


def _lossless_queues(db: Db, port: str) -> set[int]:
    entry = port_keyed(db.get("PORT_QOS_MAP", {})).get(port, {})
    pfc_map = db.get("MAP_PFC_PRIORITY_TO_QUEUE", {}).get(unref(entry.get("pfc_to_queue_map")) or "", {})
    return {int(pfc_map.get(str(p), p)) for p in priorities(entry.get("pfc_enable"))}


# --------------------------------------------------------------------------- interfaces


def interfaces_status(st: SonicState, db: Db, args: list[str]) -> str:
    rows = []
    for name in _ports(db, args[0] if args else None):
        p = db["PORT"][name]
        speed = int(p.get("speed", "0") or 0)
        rows.append([name, p.get("lanes", "N/A"), speed_text(speed) if speed else "N/A", p.get("mtu", "9100"),
                     p.get("fec", "N/A"), p.get("alias", name), "routed",
                     "up" if st.oper_up(db, name) else "down", p.get("admin_status", "down"),
                     _TRANSCEIVERS.get(speed, "N/A") if name in st.physical.ports else "N/A",
                     p.get("pfc_asym", "off")])
    return tabulate(rows, ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type",
                           "Asym PFC"], stralign="right")


def _state_letter(st: SonicState, db: Db, port: str) -> str:
    if db["PORT"][port].get("admin_status", "down") != "up":
        return "X"
    return "U" if st.oper_up(db, port) else "D"


def counters_errors(st: SonicState, db: Db, args: list[str]) -> str:
    rows = [(name, _state_letter(st, db, name), comma(st.counter(name, "crc_errors")), "0", "0", "0", "0", "0")
            for name in _ports(db)]
    return tabulate(rows, ["IFACE", "STATE", "RX_ERR", "RX_DRP", "RX_OVR", "TX_ERR", "TX_DRP", "TX_OVR"],
                    stralign="right", text=True)


def _bytes_rate(bytes_per_s: float) -> str:
    for unit, scale in (("MB/s", 1e6), ("KB/s", 1e3)):
        if bytes_per_s >= scale:
            return f"{bytes_per_s / scale:.2f} {unit}"
    return f"{bytes_per_s:.2f} B/s"


def counters(st: SonicState, db: Db, args: list[str]) -> str:
    """``show interfaces counters`` (``portstat``): totals, rates from the moving counters, utilisation."""
    rows = []
    for name in _ports(db):
        c = st.counters(name)
        phys = st.physical.ports.get(name)
        speed = int(db["PORT"][name].get("speed", "0") or 0)
        rates = []
        for key in ("rx_packets", "tx_packets"):
            pps = _rate(phys, key) if phys and st.oper_up(db, name) else 0.0
            bps = pps * PACKET_BYTES["lossless"]
            util = f"{100 * bps * 8 / (speed * 1e6):.2f}%" if speed else "N/A"
            rates.append((_bytes_rate(bps), util))
        rows.append([name, _state_letter(st, db, name), comma(c.get("rx_packets", 0)), rates[0][0], rates[0][1],
                     comma(c.get("crc_errors", 0)), comma(0), "N/A", comma(c.get("tx_packets", 0)), rates[1][0],
                     rates[1][1], "N/A", "N/A", "N/A"])
    return tabulate(rows, ["IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK",
                           "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"], stralign="right")


def counters_fec(st: SonicState, db: Db, args: list[str]) -> str:
    rows = [(name, _state_letter(st, db, name), comma(st.counter(name, "fec_corrected")),
             comma(st.counter(name, "fec_uncorrected")), comma(st.counter(name, "symbol_errors")), "N/A", "N/A",
             "N/A", "N/A", "N/A", "N/A") for name in _ports(db)]
    return tabulate(rows, ["IFACE", "STATE", "FEC_CORR", "FEC_UNCORR", "FEC_SYMBOL_ERR", "FEC_PRE_BER", "FEC_POST_BER",
                           "FEC_PRE_BER_MAX", "FLR(O)", "FLR(P) (Accuracy)", "FEC_MAX_T"], stralign="right", text=True)


def _utc(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%a %b %d %H:%M:%S %Y")


def interfaces_flap(st: SonicState, db: Db, args: list[str]) -> str:
    rows = []
    started = _utc(st.started)
    for name in _ports(db, args[0] if args else None):
        flaps = st.counter(name, "carrier_changes")
        up = st.oper_up(db, name)
        rows.append([name, str(flaps) if flaps else "Never", db["PORT"][name].get("admin_status", "down").capitalize(),
                     "Up" if up else "Down", _utc(time.time()) if flaps > 1 and not up else "Never",
                     started if flaps else "Never"])
    return tabulate(rows, ["Interface", "Flap Count", "Admin", "Oper", "Link Down TimeStamp(UTC)",
                           "Link Up TimeStamp(UTC)"])


# --------------------------------------------------------------------------- PFC


def pfc_counters(st: SonicState, db: Db, args: list[str]) -> str:
    blocks = []
    snapshots = [(name, st.counters(name)) for name in _ports(db)]
    for direction, get in (("rx", _PFC_RX), ("tx", _PFC_TX)):
        rows = [(name, *map(_COMMA, get(c) if c else _NO_PFC)) for name, c in snapshots]
        header = f"Port {direction.capitalize()}"
        blocks.append(tabulate(rows, [header, *(f"PFC{p}" for p in range(8))], stralign="right", text=True))
    return "\n\n".join(blocks)


_PFC_RX = itemgetter(*(f"pfc_rx_{p}" for p in range(8)))
_PFC_TX = itemgetter(*(f"pfc_tx_{p}" for p in range(8)))
_NO_PFC = (0,) * 8  # a port without counters
_COMMA = "{:,}".format  # comma() of a counter that is there


def pfc_priority(st: SonicState, db: Db, args: list[str]) -> str:
    qos = db.get("PORT_QOS_MAP", {})
    if args and args[0] not in qos:
        return f"Cannot find interface {args[0]}"
    rows = [[k, qos[k].get("pfc_enable", "N/A")] for k in natsorted(qos) if not args or k == args[0]]
    return "\n" + tabulate(rows, ["Interface", "Lossless priorities"]) + "\n"


def pfc_asymmetric(st: SonicState, db: Db, args: list[str]) -> str:
    rows = [[k, db["PORT"][k].get("pfc_asym", "N/A")] for k in _ports(db, args[0] if args else None)]
    return "\n" + tabulate(rows, ["Interface", "Asymmetric"]) + "\n"


# --------------------------------------------------------------------------- queues


def _queue_stats(st: SonicState, db: Db, port: str,
                 lossless_queues: set[int] | None = None) -> list[tuple[str, str, str, str, str]]:
    """``lossless_queues``: the port's, when the caller already has them (gNMI answers every port at once)."""
    total = st.counter(port, "tx_packets")
    lossless = (_lossless_queues(db, port) if lossless_queues is None else lossless_queues) or {3}
    per_queue: dict[int, tuple[int, int]] = {}
    for q in range(UNICAST_QUEUES):
        pkts = 0
        if q in lossless:
            pkts += total * 90 // 100 // len(lossless)
        if q == 0:
            pkts += total * 8 // 100
        if q == CNP_QUEUE:
            pkts += total * 2 // 100
        size = PACKET_BYTES["lossless"] if q in lossless else PACKET_BYTES.get(q, 512)
        per_queue[q] = (pkts, pkts * size)
    out = [(f"UC{q}", str(p), str(b), "0", "0") for q, (p, b) in per_queue.items()]
    out += [(f"MC{UNICAST_QUEUES + i}", "0", "0", "0", "0") for i in range(MULTICAST_QUEUES)]
    return out


def queue_counters(st: SonicState, db: Db, args: list[str]) -> str:
    as_json = any(a in ("--json", "-j") for a in args)
    ports = [a for a in args if not a.startswith("-")]
    if ports and ports[0] not in db.get("PORT", {}):
        return f"Port doesn't exist! {ports[0]}"
    names = _ports(db, ports[0] if ports else None)
    if as_json:
        doc: dict[str, Any] = {}
        for name in names:
            entry: dict[str, Any] = {"time": datetime.now().isoformat()}
            for q, pkts, byts, dpkts, dbytes in _queue_stats(st, db, name):
                entry[q] = {"dropbytes": dbytes, "droppacket": dpkts, "totalbytes": byts, "totalpacket": pkts}
            doc[name] = entry
        return json.dumps(doc, indent=2, sort_keys=True)  # utilities_common.cli.json_dump
    blocks = []
    for name in names:
        rows = [[name, *stats] for stats in _queue_stats(st, db, name)]
        blocks.append("For namespace :\n" + tabulate(rows, ["Port", "TxQ", "Counter/pkts", "Counter/bytes",
                                                            "Drop/pkts", "Drop/bytes"], stralign="right") + "\n")
    return "\n".join(blocks)


_QUEUE_NAMES = tuple(f"{'UC' if q < UNICAST_QUEUES else 'MC'}{q}" for q in range(UNICAST_QUEUES + MULTICAST_QUEUES))


def queue_wredcounters(st: SonicState, db: Db, args: list[str]) -> str:
    enabled = db.get("FLEX_COUNTER_TABLE", {}).get("WRED_ECN_QUEUE", {}).get("FLEX_COUNTER_STATUS") == "enable"
    queues = port_id_keyed(db.get("QUEUE", {}), copy=False)
    ecn_queues = _ecn_queues(queues, db.get("WRED_PROFILE", {}))
    blocks = []
    for name in _ports(db, args[0] if args else None):
        if not name:  # no marker for an empty name: a plain table
            blocks.append(tabulate(_wred_rows(st, name, enabled, ecn_queues(name)), _WRED_HEADERS,
                                   stralign="right", text=True) + "\n")
            continue
        if not enabled:
            blocks.append(_wred_template(len(name), 0, 0).format(name) + "\n")
            continue
        marked = st.counter(name, "ecn_marked")
        ecn = ecn_queues(name)
        counts: list[str] = []
        for q in range(len(_QUEUE_NAMES)):
            pkts = marked // len(ecn) if q in ecn else 0
            counts += (str(pkts), str(pkts * PACKET_BYTES["lossless"]))
        template = _wred_template(len(name), max(map(len, counts[::2])), max(map(len, counts[1::2])))
        blocks.append(template.format(name, *counts) + "\n")
    return "\n".join(blocks)


def _wred_rows(st: SonicState, name: str, enabled: bool, ecn: list[int]) -> list[tuple[str, ...]]:
    if not enabled:
        return [(name, queue, "N/A", "N/A", "N/A", "N/A") for queue in _QUEUE_NAMES]
    marked = st.counter(name, "ecn_marked")
    return [(name, queue, "0", "0", str(pkts), str(pkts * PACKET_BYTES["lossless"]))
            for q, queue in enumerate(_QUEUE_NAMES) for pkts in [marked // len(ecn) if q in ecn else 0]]


_WRED_HEADERS = ["Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"]
_MARKS = re.compile("\x01+|\x02+|\x03+")


@lru_cache(maxsize=256)
def _wred_template(name_width: int, pkts_width: int, bytes_width: int) -> str:
    """One port's ``queue wredcounters`` table as a ``str.format`` template (field 0: the port name, then the
    EcnMarked packets and bytes of each queue; ``pkts_width`` 0: counters off, every cell N/A), made by
    :func:`tabulate` from rows with the values drawn as markers as wide as the widest value."""
    if pkts_width:
        rows = [("\x01" * name_width, queue, "0", "0", "\x02" * pkts_width, "\x03" * bytes_width)
                for queue in _QUEUE_NAMES]
    else:
        rows = [("\x01" * name_width, queue, "N/A", "N/A", "N/A", "N/A") for queue in _QUEUE_NAMES]
    text = tabulate(rows, _WRED_HEADERS, stralign="right", text=True).replace("{", "{{").replace("}", "}}")
    fields = iter(range(1, 2 * len(_QUEUE_NAMES) + 1))
    return _MARKS.sub(lambda m: f"{{{0 if m.group()[0] == chr(1) else next(fields)}:>{len(m.group())}}}", text)


def _ecn_queues(queues: dict[tuple[str, int], dict[str, str]],
                wred: dict[str, dict[str, str]]) -> Callable[[str], list[int]]:
    """port -> its unicast queues whose WRED profile marks ECN, from one pass over the QUEUE table."""
    ecn_profiles = {name for name, profile in wred.items() if profile.get("ecn", "ecn_none") != "ecn_none"}

    def of_queue(port: str, q: int) -> bool:
        return (unref(queues.get((port, q), {}).get("wred_profile")) or "") in ecn_profiles

    if "" in ecn_profiles:  # a profile named "": it also matches every queue without an entry
        return lambda port: [q for q in range(UNICAST_QUEUES) if of_queue(port, q)]
    by_port: dict[str, list[int]] = {}
    for port, q in queues:
        if 0 <= q < UNICAST_QUEUES and of_queue(port, q):
            by_port.setdefault(port, []).append(q)
    return lambda port: by_port.get(port, [])


# --------------------------------------------------------------------------- PFC watchdog, ECN, buffers


def pfcwd_config(st: SonicState, db: Db, args: list[str]) -> str:
    wd = db.get("PFC_WD", {})
    rows = [[p, wd[p].get("action", "drop"), wd[p].get("detection_time", "N/A"),
             wd[p].get("restoration_time", "infinite"), wd[p].get("pfc_stat_history", "disable")]
            for p in _ports(db) if wd.get(p)]
    lines = []
    if rows:
        glob = wd.get("GLOBAL", {})
        if "POLL_INTERVAL" in glob:
            lines.append(f"Changed polling interval to {glob['POLL_INTERVAL']}ms")
        if "BIG_RED_SWITCH" in glob:
            lines.append(f"BIG_RED_SWITCH status is {glob['BIG_RED_SWITCH']}")
    lines.append(tabulate(rows, ["PORT", "ACTION", "DETECTION TIME", "RESTORATION TIME", "HISTORY"],
                          stralign="right"))
    return "\n".join(lines)


class WatchedQueue(NamedTuple):
    port: str
    prio: int
    queue: int
    storms: int  # storms detected on the queue (the port's storm counter, on its lossless storm priority)
    stormed: bool  # a storm is on now


def pfcwd_queues(st: SonicState, db: Db, ports: list[str]) -> Iterator[WatchedQueue]:
    """The watched (PFC-enabled) queues of the ports with a PFC_WD entry, with their storm state."""
    wd = db.get("PFC_WD", {})
    qos = port_keyed(db.get("PORT_QOS_MAP", {}))
    for port in ports:
        if not wd.get(port):
            continue
        entry = qos.get(port, {})
        pfc_map = db.get("MAP_PFC_PRIORITY_TO_QUEUE", {}).get(unref(entry.get("pfc_to_queue_map")) or "", {})
        watched = priorities(entry.get("pfc_enable"))
        storm_prio = next((p for p in watched if p in st.physical.lossless), None)
        phys = st.physical.ports.get(port)
        for prio in watched:
            storms = st.counter(port, "pfcwd_storms") if prio == storm_prio else 0
            stormed = bool(phys and prio == storm_prio and _rate(phys, f"pfc_rx_{prio}") >= STORM_RATE)
            yield WatchedQueue(port, prio, int(pfc_map.get(str(prio), prio)), storms, stormed)


def pfcwd_stats(st: SonicState, db: Db, args: list[str]) -> str:
    show_empty = "-e" in args or "--empty" in args
    rows = []
    for q in pfcwd_queues(st, db, _ports(db)):
        last = st.counter(q.port, f"pfc_rx_{q.prio}") // 1000 if q.stormed else 0
        drops = q.storms * 1000 + last
        stats = [f"{q.storms}/{q.storms - 1 if q.stormed else q.storms}", f"0/{drops}", f"0/{drops}", f"0/{last}",
                 f"0/{last}"]
        if q.storms or show_empty:
            rows.append([f"{q.port}:{q.queue}", "stormed" if q.stormed else "operational" if q.storms else "N/A",
                         *stats])
    return tabulate(rows, ["QUEUE", "STATUS", "STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP",
                           "TX LAST OK/DROP", "RX LAST OK/DROP"], stralign="right", numalign="right")


def ecn_list(st: SonicState, db: Db, args: list[str]) -> str:
    wred = db.get("WRED_PROFILE", {})
    return "".join(f"Profile: {name}\n{tabulate(list(wred[name].items()))}\n\n" for name in natsorted(wred))


def buffer_information(st: SonicState, db: Db, args: list[str]) -> str:
    out = []
    for kind, table in (("Pool", "BUFFER_POOL"), ("Profile", "BUFFER_PROFILE")):
        entries = db.get(table, {})
        out += [f"{kind}: {name}\n{tabulate(list(entries[name].items()))}\n\n" for name in natsorted(entries)]
    return "".join(out)


# --------------------------------------------------------------------------- LLDP, BGP, version


def _is_switch_port(name: str) -> bool:
    return name.startswith(("Ethernet", "swp", "Et"))


def lldp_table(st: SonicState, db: Db, args: list[str]) -> str:
    rows = []
    for name in natsorted(st.physical.ports):
        neighbor = st.physical.lldp_neighbor(name)  # None: nothing cabled, or the far end sends no LLDP
        if neighbor is None or not st.oper_up(db, name):
            continue
        device, port = neighbor
        switch = _is_switch_port(port)
        rows.append([name, device, port, "BR" if switch else "", f"{st.hostname}:{name}" if switch else port])
    return ("Capability codes: (R) Router, (B) Bridge, (O) Other\n"
            + tabulate(rows, ["LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"])
            + "\n" + "-" * 50 + f"\nTotal entries displayed:  {len(rows)}")


def ndp_table(st: SonicState, db: Db, args: list[str]) -> str:
    """``show ndp`` (sonic-utilities scripts/nbrshow -6): the link-local neighbour at the far end of every cabled,
    up port (the lab's MACs, lab/physical.py), STALE as an entry learned from the neighbour's own packets is;
    rows ordered by address as nbrshow's natsorted does."""
    rows = []
    for name in natsorted(st.physical.ports):
        neighbor = st.physical.ports[name].neighbor
        if neighbor is not None and st.oper_up(db, name):
            mac = port_mac(*neighbor)
            rows.append((link_local(mac), mac, name, "-", "STALE"))
    rows.sort(key=lambda r: r[0])
    return (tabulate(rows, ["Address", "MacAddress", "Iface", "Vlan", "Status"], text=True)
            + f"\nTotal number of entries {len(rows)} ")


def bgp_summary(st: SonicState, db: Db, args: list[str]) -> str:
    vty = st.extra.get("bgp_vty")
    if vty:  # lab up --routing: this switch's real FRR answers
        return _bgp_summary_from_frr(db, str(vty))
    meta = db.get("DEVICE_METADATA", {}).get("localhost", {})
    asn = meta.get("bgp_asn")
    port_of = {k.split("|", 1)[1].split("/")[0]: k.split("|", 1)[0] for k in db.get("INTERFACE", {}) if "|" in k}
    now = time.time()
    rows = []
    neighbors = db.get("BGP_NEIGHBOR", {}) if asn else {}
    for key in natsorted(neighbors):
        f = neighbors[key]
        ip = key.rsplit("|", 1)[-1]
        port = port_of.get(f.get("local_addr", ""))
        up = f.get("admin_status", "up") == "up" and port is not None and st.oper_up(db, port)
        if up:
            since = st.bgp_up.setdefault(ip, now)
            uptime = now - since
            rows.append([ip, "4", f.get("asn", "0"), str(5 + int(uptime) // 60), str(6 + int(uptime) // 60), "0", "0",
                         "0", frr_uptime(uptime), str(1 + zlib.crc32(ip.encode()) % 48), f.get("name", "")])
        else:
            st.bgp_up.pop(ip, None)
            state = "Idle (Admin)" if f.get("admin_status", "up") != "up" else "Active"
            rows.append([ip, "4", f.get("asn", "0"), "0", "0", "0", "0", "0", "never", state, f.get("name", "")])
    return _bgp_summary_text(meta.get("bgp_router_id", "0.0.0.0"), asn or 0, rows)


def _bgp_summary_from_frr(db: Db, vty: str) -> str:
    """sonic-utilities' table (``show ip bgp summary`` formats bgpd's JSON) with bgpd's own states and counters."""
    found = frr_reader.bgp_peers(vty)
    if found is None:
        return "Error: connect to bgpd failed"
    doc, peers = found
    names = {k.rsplit("|", 1)[-1]: f.get("name", "") for k, f in db.get("BGP_NEIGHBOR", {}).items()}
    rows = []
    for ip in natsorted(peers):
        p = peers[ip]
        up = p.get("state") == "Established"
        rows.append([ip, "4", str(p.get("remoteAs", 0)), str(p.get("msgRcvd", 0)), str(p.get("msgSent", 0)),
                     str(p.get("tableVersion", 0)), str(p.get("inq", 0)), str(p.get("outq", 0)),
                     str(p.get("peerUptime", "never")), str(p.get("pfxRcd", 0)) if up else str(p.get("state", "?")),
                     names.get(ip, "")])
    return _bgp_summary_text(str(doc.get("routerId", "0.0.0.0")), doc.get("as", 0), rows)


def _bgp_summary_text(router_id: str, asn: object, rows: list[list[str]]) -> str:
    header = ["Neighbhor", "V", "AS", "MsgRcvd", "MsgSent", "TblVer", "InQ", "OutQ", "Up/Down", "State/PfxRcd",
              "NeighborName"]
    ribs = sum(int(r[9]) for r in rows if r[9].isdigit())
    return "\n".join([
        "", "IPv4 Unicast Summary:",
        f"BGP router identifier {router_id}, local AS number {asn} vrf-id 0",
        f"BGP table version {ribs * 2}", f"RIB entries {ribs}, using {ribs * 184} bytes of memory",
        f"Peers {len(rows)}, using {len(rows) * 20920} KiB of memory", "Peer groups 0, using 0 bytes of memory",
        "", "", tabulate(rows, header), "", f"Total number of neighbors {len(rows)}",
    ])


def version(st: SonicState, db: Db, args: list[str]) -> str:
    meta = db.get("DEVICE_METADATA", {}).get("localhost", {})
    software = f"SONiC.{reported_fact(st, 'version', st.release)}-roceops-lab"
    hwsku = reported_fact(st, "hwsku", meta.get("hwsku", "generic"))
    up = int(time.time() - st.started)
    now = datetime.now(UTC)
    serial = f"MT{zlib.crc32(st.name.encode()) % 10**10:010d}"
    return "\n".join([
        f"SONiC Software Version: {software}", "SONiC OS Version: 12", "Distribution: Debian 12.8",
        "Kernel: 6.1.0-22-2-amd64", "Build commit: 5c1f3e2", "Build date: Tue Feb 11 03:14:07 UTC 2025",
        "Built by: sonicbld@sonic-lab", "",
        f"Platform: {meta.get('platform', st.platform_name)}", f"HwSKU: {hwsku}",
        f"ASIC: {st.asic}", "ASIC Count: 1", f"Serial Number: {serial}", "Model Number: N/A",
        "Hardware Revision: N/A",
        f"Uptime: {now:%H:%M:%S} up {up // 86400} days, {up % 86400 // 3600:2d}:{up % 3600 // 60:02d},  1 user,  "
        "load average: 0.42, 0.38, 0.35",
        f"Date: {now:%a %d %b %Y %H:%M:%S}", "",
        "Docker images:",
        "REPOSITORY                    TAG                    IMAGE ID       SIZE",
        "docker-orchagent              latest                 6d4a91e2b8c3   412MB",
        "docker-fpm-frr                latest                 1b7c2d9e0f4a   367MB",
        "docker-lldp                   latest                 9681bbfea3ac   305MB",
        "docker-database               latest                 2db34c7bc6f4   301MB",
    ])


GROUPS = ("interfaces counters", "interfaces", "pfc", "queue", "pfcwd", "buffer", "lldp", "ip bgp", "ip")
SHOW: dict[str, Callable[[SonicState, Db, list[str]], str]] = {
    "interfaces status": interfaces_status,
    "interfaces counters": counters,
    "interfaces counters errors": counters_errors,
    "interfaces counters fec-stats": counters_fec,
    "interfaces flap": interfaces_flap,
    "pfc counters": pfc_counters,
    "pfc priority": pfc_priority,
    "pfc asymmetric": pfc_asymmetric,
    "queue counters": queue_counters,
    "queue wredcounters": queue_wredcounters,
    "pfcwd config": pfcwd_config,
    "pfcwd stats": pfcwd_stats,
    "ecn": ecn_list,
    "buffer information": buffer_information,
    "lldp table": lldp_table,
    "ndp": ndp_table,
    "ip bgp summary": bgp_summary,
    "version": version,
}
