"""``nv show`` output of the lab's Cumulus switch, built on demand from the applied tree and Physical.

Text layouts follow the captures in ``shared/fixtures/cumulus`` (column widths come from the
values, two spaces between columns, ``====`` under titles, trailing blanks trimmed). JSON shapes
are the lab's own (NVUE JSON is unconfirmed publicly): keys are the text labels; see
:mod:`roceops.platforms.cumulus.parsers` for the exact shapes the driver reads.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from roceops.lab import frr_reader
from roceops.lab.devices.cumulus.schema import Tree
from roceops.lab.devices.cumulus.state import RELEASE
from roceops.lab.devices.cumulus.table import Layout, kv_table, sub_table
from roceops.lab.devices.cumulus.view import PROFILE, View, human_bytes, sub
from roceops.lab.physical import STORM_RATE, Physical
from roceops.util.sorting import ip_sort_key

BUILD = f"Cumulus Linux {RELEASE}"
CNP_SP = 6
ROCE_SHARE = 0.6  # share of a port's traffic that is RoCE (lossless TC) in the lab's counters
MISSING = "The requested item does not exist."


@dataclass(slots=True)
class ShowContext:
    hostname: str
    model: str
    tree: Tree  # applied revision
    view: View
    physical: Physical
    uptime_s: float
    release: str = RELEASE  # product-release, e.g. 5.14.0
    new_words: bool = False  # a 5.15+ switch: `nv show qos roce` prints `state enabled` (releases.py)
    platform: str = "generic"  # what `nv show system` prints as platform
    bgp_vty: str | None = None  # lab up --routing: the switch's real bgpd answers BGP shows


# --------------------------------------------------------------------------- table helpers


def _list(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values) or "-"


def _counters(ctx: ShowContext, port: str) -> dict[str, int]:
    return ctx.physical.snapshot(port)


# --------------------------------------------------------------------------- qos (global)


def qos_roce(ctx: ShowContext) -> str:
    v, roce = ctx.view, sub(ctx.tree, ("qos", "roce"))
    pfc = v.pfc.get(PROFILE)
    ecn_tcs = [tc for tc, e in v.ecn.items() if e.ecn]
    lossless = v.lossless_tcs()
    main = next((v.ecn[tc] for tc in lossless if tc in ecn_tcs), v.ecn[ecn_tcs[0]] if ecn_tcs else None)
    rows: list[tuple[str, ...]] = [
        # 5.16 docs, "Verify RoCE Configuration": `state ... enabled` (CumulusNetworks/docs content/cumulus-linux-516/
        # Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md @ 0da900a5)
        ("state", "", {"on": "enabled", "off": "disabled"}[roce.get(("enable",), "on" if v.roce else "off")])
        if ctx.new_words else ("enable", "", roce.get(("enable",), "on" if v.roce else "off")),
        ("mode", v.roce_mode or "", roce.get(("mode",), "")),
        ("pfc",),
        ("  pfc-priority", _list(pfc.priorities) if pfc and pfc.priorities else ""),
        ("  rx-enabled", ("enabled" if pfc.rx else "disabled") if pfc else ""),
        ("  tx-enabled", ("enabled" if pfc.tx else "disabled") if pfc else ""),
        ("  cable-length", str(pfc.cable_length or "") if pfc else ""),
        ("congestion-control",),
        ("  congestion-mode", "ECN" if ecn_tcs else ""),
        ("  enabled-tc", _list(ecn_tcs) if ecn_tcs else ""),
        ("  min-threshold", human_bytes(main.min_bytes) if main and main.min_bytes is not None else ""),
        ("  max-threshold", human_bytes(main.max_bytes) if main and main.max_bytes is not None else ""),
        ("  probability", str(main.probability) if main and main.probability is not None else ""),
        ("trust",),
        ("  trust-mode", v.trust),
        ("lldp-app-tlv",),
        ("  priority", str(pfc.priorities[0]) if pfc and pfc.priorities else ""),
        ("  protocol-id", "4791"),
        ("  selector", "UDP"),
    ]
    out = kv_table(rows)
    out += sub_table("RoCE PCP/DSCP->SP mapping configurations", ["", "pcp", "dscp", "switch-prio"], [
        [str(sp), _list([p for p, s in v.pcp_to_sp.items() if s == sp]),
         _list([d for d, s in sorted(v.dscp_to_sp.items()) if s == sp]), str(sp)] for sp in range(8)])
    out += sub_table("RoCE SP->TC mapping and ETS configurations",
                     ["", "switch-prio", "traffic-class", "scheduler-weight"],
                     [[str(sp), str(sp), str(v.sp_to_tc[sp]), v.ets_label(v.sp_to_tc[sp])] for sp in range(8)])
    out += sub_table("RoCE pool config", ["", "name", "mode", "size", "switch-priorities", "traffic-class"],
                     [[str(i), name, "Dynamic", size, sps, tcs] for i, name, size, sps, tcs in _pools(v)])
    out += ["Exception List", "=================", "No Data"]
    return "\n".join(out)


def _pools(v: View) -> list[tuple[int, str, str, str, str]]:
    pfc = v.pfc.get(PROFILE)
    lossless_sps = pfc.priorities if pfc and v.roce else []
    lossless_tcs = sorted({v.sp_to_tc[sp] for sp in lossless_sps})
    other_tcs = sorted({tc for tc in v.sp_to_tc.values() if tc not in lossless_tcs})
    if v.roce_mode == "lossless-single-ipool" or not lossless_sps:
        rows = [(0, "lossy-default-ingress", "100%", _list(list(range(8))), "-")]
    else:
        rows = [(0, "lossy-default-ingress", "50%", _list([s for s in range(8) if s not in lossless_sps]), "-"),
                (1, "roce-reserved-ingress", "50%", _list(lossless_sps), "-")]
    rows.append((2, "lossy-default-egress", "100%", "-", _list(other_tcs)))
    if lossless_tcs:
        rows.append((3, "roce-reserved-egress", "inf", "-", _list(lossless_tcs)))
    return rows


def qos_pfc(ctx: ShowContext, profile: str) -> str | None:
    prof = ctx.view.pfc.get(profile)
    applied = sub(ctx.tree, ("qos", "pfc", profile))
    if prof is None:
        return None

    def row(key: str, label: str, op: str, unit: str = "") -> tuple[str, ...]:
        raw = applied.get((key,), "")
        return (label, f"{op}{unit}" if op else "", f"{raw}{unit}" if raw else "")

    rows = [row("cable-length", "cable-length", str(prof.cable_length or "")),
            row("port-buffer", "port-buffer", str(prof.port_buffer or ""), " B"),
            row("rx", "rx", "enable" if prof.rx else "disable"),
            row("tx", "tx", "enable" if prof.tx else "disable"),
            row("xoff-threshold", "xoff-threshold", str(prof.xoff or ""), " B"),
            row("xon-threshold", "xon-threshold", str(prof.xon or ""), " B")]
    rows = [r for r in rows if r[1] or r[2]]
    desc = {"cable-length": "Cable Length (in meters)", "port-buffer": "Port Buffer (in bytes)",
            "rx": "PFC Rx State", "tx": "PFC Tx State", "xoff-threshold": "Xoff Threshold (in bytes)",
            "xon-threshold": "Xon Threshold (in bytes)"}
    full = [(*r, desc[r[0]]) for r in rows]
    for sp in prof.priorities:
        configured = (("switch-priority", str(sp)) in applied)
        full.append(("[switch-priority]", str(sp), str(sp) if configured else "", "Collection of switch priorities."))
    return "\n".join(kv_table(full, ("operational", "applied", "description")))


def qos_congestion(ctx: ShowContext, profile: str) -> str | None:
    if profile != PROFILE:
        return None
    rows = [[str(tc), "enable" if e.ecn else "disable", "enable" if e.red else "disable",
             f"{e.min_bytes} B" if e.min_bytes is not None else "-",
             f"{e.max_bytes} B" if e.max_bytes is not None else "-",
             str(e.probability) if e.probability is not None else "-"]
            for tc, e in ctx.view.ecn.items() if e.ecn or e.red]
    out = kv_table([], ("operational", "applied", "description"))
    out += ["", *sub_table("ECN Configurations", ["traffic-class", "ECN", "RED", "Min Th", "Max Th", "Probability"],
                           rows)]
    return "\n".join(out)


def qos_egress_queue_mapping(ctx: ShowContext, profile: str) -> str | None:
    if profile != PROFILE:
        return None
    out = kv_table([], ("operational", "applied", "description"))
    out += ["", *sub_table("SP->TC mapping configuration", ["switch-priority", "traffic-class"],
                           [[str(sp), str(tc)] for sp, tc in sorted(ctx.view.sp_to_tc.items())])]
    return "\n".join(out)


# --------------------------------------------------------------------------- per interface


def _split(total: int, lossless: bool) -> tuple[int, int]:
    roce = int(total * ROCE_SHARE) if lossless else 0
    return roce, total - roce


def _counters_qos_render(rows: list[list[str]]) -> str:
    out = sub_table("Ingress Buffer Statistics",
                    ["priority-group", "rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"], rows[:8])
    out += ["", *sub_table("Egress Queue Statistics",
                           ["traffic-class", "tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"],
                           rows[8:16])]
    out += ["", *sub_table("PFC Statistics", ["switch-priority", "rx-pause-frames", "rx-pause-duration",
                                              "tx-pause-frames", "tx-pause-duration"], rows[16:24])]
    out += ["", *sub_table("Qos Port Statistics", ["Counter", "Receive", "Transmit"], rows[24:])]
    return "\n".join(out)


# slots (ints: width groups): ingress rx-frames; egress tx-frames, tx-bytes; PFC rx, rx duration, tx, tx duration; ECN
def _row(*cells: str | int) -> list[str | int]:
    return list(cells)


_COUNTERS_QOS = Layout(_counters_qos_render, [
    *(_row(str(pg), 0, "0 Bytes", "0 Bytes") for pg in range(8)),
    *(_row(str(tc), 1, 2, "0 Bytes", "0") for tc in range(8)),
    *(_row(str(p), 3, 4, 5, 6) for p in range(8)),
    ["ecn-marked-packets", "n/a", 7], ["mc-buffer-discards", "n/a", "0"], ["pause-frames", "0", "0"],
])


def counters_qos(ctx: ShowContext, port: str) -> str:
    c = _counters(ctx, port)
    lossless = ctx.view.lossless_tcs(port)
    rx_roce, rx_other = _split(c["rx_packets"], bool(lossless))
    tx_roce, tx_other = _split(c["tx_packets"], bool(lossless))
    pg_frames = {0: rx_other, **{tc: rx_roce // len(lossless) for tc in lossless}}
    tc_frames = {0: tx_other, CNP_SP: c["cnp_sent"], **{tc: tx_roce // len(lossless) for tc in lossless}}
    values = [str(pg_frames.get(pg, 0)) for pg in range(8)]
    for tc in range(8):
        frames = tc_frames.get(tc, 0)
        values += (str(frames), human_bytes(frames * 1100))
    for rx, tx in zip(_PFC_RX(c), _PFC_TX(c), strict=True):
        values += (str(rx), str(rx * 3), str(tx), str(tx * 3))
    values.append(str(c["ecn_marked"]))
    return _COUNTERS_QOS.text(values)


_PFC_RX = itemgetter(*(f"pfc_rx_{p}" for p in range(8)))
_PFC_TX = itemgetter(*(f"pfc_tx_{p}" for p in range(8)))


def _counters_errors_render(rows: list[list[str]]) -> str:
    return "\n".join(sub_table(None, ["Counter", "Receive", "Transmit"], rows, indent=0))


_COUNTERS_ERRORS = Layout(_counters_errors_render, [  # slot 0: the Receive counts
    ["Alignment Errors", "0", "n/a"], ["FCS Errors", 0, "n/a"], ["Jabber Errors", "0", "n/a"],
    ["Length Errors", "0", "n/a"], ["Oversize Errors", "0", "n/a"], ["Symbol Errors", 0, "n/a"],
    ["Total Errors", 0, "0"], ["Undersize Errors", "0", "n/a"]])


def counters_errors(ctx: ShowContext, port: str) -> str:
    crc, symbol = ctx.physical.value(port, "crc_errors"), ctx.physical.value(port, "symbol_errors")
    return _COUNTERS_ERRORS.text([str(crc), str(symbol), str(crc + symbol)])


def pfc_watchdog(ctx: ShowContext, port: str) -> str:
    pv = ctx.view.ports[port]
    key = ("pfc_watchdog", port)
    head = ctx.view.memo.get(key)
    if head is None:
        applied = ctx.tree.get(("interface", port, "qos", "pfc-watchdog", "state"), "")
        state = "enabled" if pv.watchdog else "disabled"
        head = ctx.view.memo[key] = "\n".join(kv_table([("state", state, f"{applied}d" if applied else "")]))
    if not pv.watchdog:
        return head
    storms = ctx.physical.value(port, "pfcwd_storms")
    lossless = ctx.view.lossless_tcs(port)
    storm = any(ctx.physical.ports[port].counters[f"pfc_rx_{sp}"].rate >= STORM_RATE
                for sp in ctx.view.port_pfc(port))
    values: list[str] = []
    for tc in range(8):
        values += ("DEADLOCK" if storm and tc in lossless else "OK", str(storms if tc in lossless else 0))
    return f"{head}\n\n{_WATCHDOG_STATUS.text(values)}"


def _watchdog_status_render(rows: list[list[str]]) -> str:
    return "\n".join(sub_table("PFC WD Status", ["traffic-class", "status", "deadlock-count"], rows))


_WATCHDOG_STATUS = Layout(_watchdog_status_render, [_row(str(tc), 0, 1) for tc in range(8)])  # status, deadlocks


def _roce_counters_render(rows: list[list[str]]) -> str:
    return "\n".join(kv_table(rows, ("operational", "applied", "description")))


# slot 0: the counter values, in the operational column
_ROCE_COUNTERS = Layout(_roce_counters_render, [
    ("rx-stats",), ("  rx-non-roce-stats",),
    ("    buffer-max-usage", "144 Bytes", "", "Max Ingress Pool-buffer usage for non-RoCE traffic"),
    ("    buffer-usage", "0 Bytes", "", "Current Ingress Pool-buffer usage for non-RoCE traffic"),
    ("    no-buffer-discard", "0", "", "Rx buffer discards for non-RoCE traffic"),
    ("    non-roce-bytes", 0, "", "non-roce rx bytes"),
    ("    non-roce-packets", 0, "", "non-roce rx packets"),
    ("    pg-max-usage", "144 Bytes", "", "Max PG-buffer usage for non-RoCE traffic"),
    ("    pg-usage", "0 Bytes", "", "Current PG-buffer usage for non-RoCE traffic"),
    ("  rx-pfc-stats",),
    ("    pause-duration", 0, "", "Rx PFC pause duration for RoCE traffic"),
    ("    pause-packets", 0, "", "Rx PFC pause packets for RoCE traffic"),
    ("  rx-roce-stats",),
    ("    buffer-max-usage", "0 Bytes", "", "Max Ingress Pool-buffer usage for RoCE traffic"),
    ("    buffer-usage", "0 Bytes", "", "Current Ingress Pool-buffer usage for RoCE traffic"),
    ("    no-buffer-discard", "0", "", "Rx buffer discards for RoCE traffic"),
    ("    pg-max-usage", "0 Bytes", "", "Max PG-buffer usage for RoCE traffic"),
    ("    pg-usage", "0 Bytes", "", "Current PG-buffer usage for RoCE traffic"),
    ("    roce-bytes", 0, "", "Rx RoCE Bytes"),
    ("    roce-packets", 0, "", "Rx RoCE Packets"),
    ("tx-stats",), ("  tx-cnp-stats",),
    ("    buffer-max-usage", "0 Bytes", "", "Max Egress Pool-buffer usage for CNP traffic"),
    ("    buffer-usage", "0 Bytes", "", "Current Egress Pool-buffer usage for CNP traffic"),
    ("    cnp-bytes", 0, "", "Tx CNP Packet Bytes"),
    ("    cnp-packets", 0, "", "Tx CNP Packets"),
    ("    tc-max-usage", "0 Bytes", "", "Max TC-buffer usage for CNP traffic"),
    ("    tc-usage", "0 Bytes", "", "Current TC-buffer usage for CNP traffic"),
    ("    unicast-no-buffer-discard", "0", "", "Tx buffer discards for CNP traffic"),
    ("  tx-ecn-stats",),
    ("    ecn-marked-packets", 0, "", "Tx ECN marked packets"),
    ("  tx-pfc-stats",),
    ("    pause-duration", 0, "", "Tx PFC pause duration for RoCE traffic"),
    ("    pause-packets", 0, "", "Tx PFC pause packets for RoCE traffic"),
    ("  tx-roce-stats",),
    ("    buffer-max-usage", "0 Bytes", "", "Max Egress Pool-buffer usage for RoCE traffic"),
    ("    buffer-usage", "0 Bytes", "", "Current Egress Pool-buffer usage for RoCE traffic"),
    ("    roce-bytes", 0, "", "Tx RoCE Packet bytes"),
    ("    roce-packets", 0, "", "Tx RoCE Packets"),
    ("    tc-max-usage", "0 Bytes", "", "Max TC-buffer usage for RoCE traffic"),
    ("    tc-usage", "0 Bytes", "", "Current TC-buffer usage for RoCE traffic"),
    ("    unicast-no-buffer-discard", "0", "", "Tx buffer discards for RoCE traffic"),
])


def roce_counters(ctx: ShowContext, port: str) -> str:
    c = _counters(ctx, port)
    sps = ctx.view.port_pfc(port)
    rx_roce, rx_other = _split(c["rx_packets"], bool(sps))
    tx_roce, _ = _split(c["tx_packets"], bool(sps))
    rx_pause, tx_pause = sum(c[f"pfc_rx_{p}"] for p in sps), sum(c[f"pfc_tx_{p}"] for p in sps)
    return _ROCE_COUNTERS.text([
        human_bytes(rx_other * 1100), str(rx_other), str(rx_pause * 3), str(rx_pause), human_bytes(rx_roce * 4200),
        str(rx_roce), human_bytes(c["cnp_sent"] * 64), str(c["cnp_sent"]), str(c["ecn_marked"]), str(tx_pause * 3),
        str(tx_pause), human_bytes(tx_roce * 4200), str(tx_roce)])


def roce_status(ctx: ShowContext, port: str) -> str:
    v = ctx.view
    sps = v.port_pfc(port)
    key = ("roce_status", tuple(sps))
    head = v.memo.get(key)
    if head is None:
        head = v.memo[key] = _roce_status_head(v, port, sps)
    pools = v.memo.get("roce_pools")
    if pools is None:
        pools = v.memo["roce_pools"] = _roce_pools_layout(v)
    usage = human_bytes((ctx.physical.value(port, "rx_packets") % 4096) * 1900)
    return f"{head}\n \n \n{pools.text([usage] * pools.slots)}"


def _roce_pools_layout(v: View) -> Layout:
    """The ``RoCE Pool Status`` table of this configuration; slot 0: current usage of the RoCE pools."""
    rows: list[list[str | int]] = [
        [str(i), name, "DYNAMIC", str(pid), sps_, tcs, "inf" if size == "inf" else "15.16 MB",
         0 if i in (1, 3) else "0 Bytes", "16.00 MB"]
        for (i, name, size, sps_, tcs), pid in zip(_pools(v), (2, 3, 13, 14), strict=False)]
    return Layout(_roce_pools_render, rows)


def _roce_pools_render(rows: list[list[str]]) -> str:
    return "\n".join(sub_table("RoCE Pool Status", ["", "name", "mode", "pool-id", "switch-priorities",
                                                    "traffic-class", "size", "current-usage", "max-usage"],
                                rows, min_widths=(2,)))


def _roce_status_head(v: View, port: str, sps: list[int]) -> str:
    """Everything ``qos roce status`` prints before the pool table: configuration only (the same for every port
    with these PFC priorities)."""
    ecn_tcs = [tc for tc, e in v.ecn.items() if e.ecn]
    lossless = v.lossless_tcs(port)
    main = next((v.ecn[tc] for tc in lossless if tc in ecn_tcs), v.ecn[ecn_tcs[0]] if ecn_tcs else None)
    rows: list[tuple[str, ...]] = [
        ("congestion-control",),
        ("  congestion-mode", "ecn, absolute" if ecn_tcs else "", "", "Congestion config mode"),
        ("  enabled-tc", _list(ecn_tcs) if ecn_tcs else "", "", "Congestion config enabled Traffic Class"),
        ("  max-threshold", human_bytes(main.max_bytes) if main and main.max_bytes is not None else "", "",
         "Congestion config max-threshold"),
        ("  min-threshold", human_bytes(main.min_bytes) if main and main.min_bytes is not None else "", "",
         "Congestion config min-threshold"),
        ("  probability", str(main.probability) if main and main.probability is not None else ""),
        ("lldp-app-tlv",), ("  priority", str(sps[0]) if sps else ""), ("  protocol-id", "4791"),
        ("  selector", "UDP"),
        ("pfc",),
        ("  pfc-priority", _list(sps) if sps else "", "", "switch-prio on which PFC is enabled"),
        ("  rx-enabled", "yes" if sps else "no", "", "PFC Rx Enabled status"),
        ("  tx-enabled", "yes" if sps else "no", "", "PFC Tx Enabled status"),
        ("trust",), ("  trust-mode", v.trust, "", "Trust Setting on the port for packet classification"),
        ("mode", v.roce_mode or "", "", "Roce Mode"),
    ]
    out = kv_table(rows, ("operational", "applied", "description"))
    roce_sp = sps[0] if sps else 3
    kinds = [("cnp", CNP_SP), ("roce", roce_sp)]
    out += [" ", " ", *sub_table("RoCE PCP/DSCP->SP mapping configurations", ["", "pcp", "dscp", "switch-prio"], [
        [name, _list([p for p, s in v.pcp_to_sp.items() if s == sp]),
         _list([d for d, s in sorted(v.dscp_to_sp.items()) if s == sp]), str(sp)] for name, sp in kinds])]
    out += [" ", " ", *sub_table("RoCE SP->TC mapping and ETS configurations",
                                 ["", "switch-prio", "traffic-class", "scheduler-weight"],
                                 [[name, str(sp), str(v.sp_to_tc[sp]),
                                   v.ets_label(v.sp_to_tc[sp]).lower().replace("strict-priority", "strict priority")]
                                  for name, sp in kinds])]
    return "\n".join(out)


# --------------------------------------------------------------------------- interface summary / JSON


def interface_json(ctx: ShowContext, name: str) -> dict[str, Any]:
    pv = ctx.view.ports[name]
    entry: dict[str, Any] = {"type": "loopback" if name == "lo" else "eth" if name.startswith("eth") else "swp"}
    if pv.description:
        entry["description"] = pv.description
    if pv.addresses:
        entry["ip"] = {"address": {a: {} for a in pv.addresses}}
    phys = ctx.physical.ports.get(name)
    if phys is None:
        entry["link"] = {"admin-status": "up" if pv.admin_up else "down", "oper-status": "up" if pv.admin_up else
                         "down", "state": "up" if pv.admin_up else "down", "mtu": pv.mtu}
        return entry
    up = ctx.physical.oper_up(name, pv.admin_up)
    c = _counters(ctx, name)
    entry["link"] = {
        "admin-status": "up" if pv.admin_up else "down", "oper-status": "up" if up else "down",
        "state": "up" if pv.admin_up else "down", "speed": pv.speed or "", "mtu": pv.mtu,
        "stats": {"carrier-transitions": c["carrier_changes"], "in-bytes": c["rx_packets"] * 1100,
                  "in-pkts": c["rx_packets"], "in-drops": 0, "in-errors": c["crc_errors"],
                  "out-bytes": c["tx_packets"] * 1100, "out-pkts": c["tx_packets"], "out-drops": 0,
                  "out-errors": 0},
    }
    heard = ctx.physical.lldp_neighbor(name)  # None: nothing cabled, or the far end sends no LLDP
    if up and heard:
        entry["lldp"] = {"neighbor": {heard[0]: {"port": {"name": heard[1]}}}}
    return entry


def dump_json(data: Any) -> str:
    """Indented like NVUE for small objects; big ones on one line (the C encoder: this runs on the lab's loop)."""
    text = json.dumps(data)
    return text if len(text) > 4096 else json.dumps(data, indent=2)


def interfaces_json(ctx: ShowContext) -> str:
    return dump_json({n: interface_json(ctx, n) for n in ctx.view.ports})


def interfaces_text(ctx: ShowContext) -> str:
    rows = []
    for name, pv in ctx.view.ports.items():
        phys = ctx.physical.ports.get(name)
        up = ctx.physical.oper_up(name, pv.admin_up) if phys else pv.admin_up
        heard = ctx.physical.lldp_neighbor(name) if phys else None
        remote = heard if up and heard else ("", "")
        kind = interface_json(ctx, name)["type"]
        summary = f"IP Address: {pv.addresses[0]}" if pv.addresses else ""
        rows.append([name, "up" if up else "down", (pv.speed or "") if phys else "", str(pv.mtu), kind,
                     remote[0], remote[1], summary])
    return "\n".join(sub_table(None, ["Interface", "State", "Speed", "MTU", "Type", "Remote Host", "Remote Port",
                                      "Summary"], rows, indent=0))


def interface_link(ctx: ShowContext, name: str) -> str:
    link = interface_json(ctx, name)["link"]
    applied = sub(ctx.tree, ("interface", name, "link"))
    rows: list[tuple[str, ...]] = [("admin-status", link["admin-status"]), ("oper-status", link["oper-status"]),
                                   ("speed", str(link.get("speed", "")), applied.get(("speed",), "")),
                                   ("mtu", str(link["mtu"]), applied.get(("mtu",), "")),
                                   ("state", link["state"], applied.get(("state",), ""))]
    if "stats" in link:
        rows.append(("stats",))
        rows += [(f"  {k}", str(v)) for k, v in link["stats"].items()]
    return "\n".join(kv_table(rows))


def ber_view(ctx: ShowContext) -> str:
    rows = []
    for name, phys in ctx.physical.ports.items():
        c = _counters(ctx, name)
        bits = max(1.0, ctx.uptime_s * phys.speed * 1e6)
        rows.append([name, _ber(c["fec_uncorrected"], bits), _ber(c["fec_corrected"] + c["symbol_errors"], bits),
                     _ber(c["symbol_errors"], bits), str(c["symbol_errors"]), str(c["fec_uncorrected"]),
                     str(int(ctx.uptime_s // 60))])
    return "\n".join(sub_table(None, ["Interface", "Eff-BER", "Raw-BER", "Sym-BER", "Sym-Errs", "Eff-Errs",
                                      "Last-Clr(min)"], rows, indent=0))


def _ber(errors: int, bits: float) -> str:
    return "15E-255" if errors == 0 else f"{errors / bits:.0E}".replace("E-0", "E-")


def bgp_neighbors(ctx: ShowContext, vrf: str) -> dict[str, Any]:
    v = ctx.view
    key = ("bgp_neighbors", vrf)
    plan = v.memo.get(key)
    if plan is None:
        plan = v.memo[key] = _bgp_plan(ctx.tree, v, vrf)
    on, neighbors = plan
    out: dict[str, Any] = {}
    for ip, port, admin_up, enabled, remote_as, kind, description in neighbors:
        up = port is not None and admin_up and ctx.physical.oper_up(port, True)
        state = "established" if on and up and enabled else "active" if on else "idle"
        entry: dict[str, Any] = {"remote-as": remote_as, "state": state, "type": kind}
        if description is not None:
            entry["description"] = description
        if port:
            entry["interface"] = port
        out[ip] = entry
    if ctx.bgp_vty:  # states from the real bgpd (NVUE prints FRR's state names in lower case)
        found = frr_reader.bgp_peers(ctx.bgp_vty)
        peers = found[1] if found is not None else {}
        for ip, entry in out.items():
            entry["state"] = str(peers.get(ip, {}).get("state", "idle")).lower()
    return out


_Neighbor = tuple[str, str | None, bool, bool, int | str, str, str | None]


def _bgp_plan(tree: Tree, v: View, vrf: str) -> tuple[bool, list[_Neighbor]]:
    """What ``bgp_neighbors`` prints that the configuration alone decides: whether BGP runs in ``vrf`` and per
    neighbour (IP, interface, its admin state, enabled, remote-as, type, description)."""
    global_on = tree.get(("router", "bgp", "enable")) == "on" and ("router", "bgp", "autonomous-system") in tree
    vrf_bgp = sub(tree, ("vrf", vrf, "router", "bgp"))
    on = global_on and vrf_bgp.get(("enable",), "on") == "on"
    per_neighbor: dict[str, dict[tuple[str, ...], str]] = {}
    for k, val in vrf_bgp.items():
        if k[0] == "neighbor" and len(k) > 2:
            per_neighbor.setdefault(k[1], {})[k[2:]] = val
    networks = _networks(v)
    out: list[_Neighbor] = []
    for ip in sorted(per_neighbor, key=ip_sort_key):
        nb = per_neighbor[ip]
        port = _port_for(networks, ip)
        remote = nb.get(("remote-as",), "")
        out.append((ip, port, port is not None and v.ports[port].admin_up, nb.get(("enable",), "on") == "on",
                    int(remote) if remote.isdigit() else remote, nb.get(("type",), "numbered"),
                    nb.get(("description",))))
    return on, out


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"({_OCTET})\.({_OCTET})\.({_OCTET})\.({_OCTET})(?:/(3[0-2]|[12]?\d))?")  # canonical only
_Net = tuple[int, int, int]  # (IP version, network address as an int, prefix length)


def _parse(text: str, interface: bool) -> tuple[int, int, int] | None:
    """(IP version, address as an int, prefix length or bit count) of an address (``interface``: with an optional
    ``/len``) as ipaddress reads it, None where ipaddress refuses it; canonical IPv4 without building objects."""
    m = _IPV4.fullmatch(text)
    if m is not None and (interface or m.group(5) is None):
        a, b, c, d = (int(g) for g in m.group(1, 2, 3, 4))
        return 4, a << 24 | b << 16 | c << 8 | d, int(m.group(5) or 32)
    try:
        if interface:
            iface = ipaddress.ip_interface(text)
            return iface.version, int(iface.ip), iface.network.prefixlen
        addr = ipaddress.ip_address(text)
    except ValueError:
        return None
    return addr.version, int(addr), addr.max_prefixlen


def _networks(v: View) -> list[tuple[_Net, str]]:
    out = []
    for name, pv in v.ports.items():
        for a in pv.addresses:
            parsed = _parse(a, interface=True)
            if parsed is not None:
                version, value, plen = parsed
                host = (32 if version == 4 else 128) - plen
                out.append(((version, value >> host << host, plen), name))
    return out


def _port_for(networks: list[tuple[_Net, str]], ip: str) -> str | None:
    parsed = _parse(ip, interface=False)
    if parsed is None:
        return ip if any(name == ip for _, name in networks) else None  # unnumbered: the interface itself
    version, value, bits = parsed
    return next((name for (net_version, net, plen), name in networks
                 if net_version == version and value >> (bits - plen) == net >> (bits - plen)), None)


def bgp_text(neighbors: dict[str, Any]) -> str:
    rows = [[ip, str(n["remote-as"]), n["state"].capitalize(), n.get("interface", ""), n.get("description", "")]
            for ip, n in neighbors.items()]
    return "\n".join(sub_table(None, ["Neighbor", "AS", "State", "Interface", "Description"], rows, indent=0))


def system_json(ctx: ShowContext) -> str:
    return dump_json({"hostname": ctx.hostname, "build": f"Cumulus Linux {ctx.release}",
                      "product-name": "Cumulus Linux", "product-release": ctx.release, "platform": ctx.platform,
                      "uptime": int(ctx.uptime_s), "timezone": "Etc/UTC"})


def system_text(ctx: ShowContext) -> str:
    applied = ctx.tree.get(("system", "hostname"), "")
    return "\n".join(kv_table([("hostname", ctx.hostname, applied), ("build", f"Cumulus Linux {ctx.release}"),
                                ("uptime", f"{int(ctx.uptime_s)} seconds"), ("timezone", "Etc/UTC")]))
