"""``nv show`` output of the lab's Cumulus switch, built on demand from the applied tree and Physical.

Text layouts follow the captures in ``shared/fixtures/cumulus`` (column widths come from the
values, two spaces between columns, ``====`` under titles, trailing blanks trimmed). JSON shapes
are the lab's own (NVUE JSON is unconfirmed publicly): keys are the text labels; see
:mod:`roceops.platforms.cumulus.parsers` for the exact shapes the driver reads.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from roceops.lab.physical import STORM_RATE, Physical
from roceops.platforms.cumulus.lab_schema import Tree
from roceops.platforms.cumulus.lab_view import PROFILE, View, human_bytes, sub

BUILD = "Cumulus Linux 5.14.0"  # the release of the captures in shared/fixtures/cumulus
CNP_SP = 6
ROCE_SHARE = 0.6  # share of a port's traffic that is RoCE (lossless TC) in the lab's counters
MISSING = "The requested item does not exist."


@dataclass
class ShowContext:
    hostname: str
    model: str
    tree: Tree  # applied revision
    view: View
    physical: Physical
    uptime_s: float


# --------------------------------------------------------------------------- table helpers


def kv_table(rows: Sequence[tuple[str, ...]], headers: Sequence[str] = ("operational", "applied")) -> list[str]:
    """NVUE's key/value table: indented keys, one column per header, widths from the content."""
    ncols = len(headers)
    cells = [(r[0], *[(r[i] if i < len(r) else "") for i in range(1, ncols + 1)]) for r in rows]
    w0 = max([2, *(len(c[0]) for c in cells)])
    widths = [max([len(h), *(len(c[i + 1]) for c in cells)]) for i, h in enumerate(headers)]
    out = [(" " * w0 + "  " + "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))).rstrip(),
           "  ".join(["-" * w0, *("-" * w for w in widths)])]
    out += ["  ".join([c[0].ljust(w0), *(v.ljust(w) for v, w in zip(c[1:], widths, strict=True))]).rstrip()
            for c in cells]
    return out


def sub_table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]],
              min_widths: Sequence[int] = (), indent: int = 4) -> list[str]:
    """A titled table (``Title`` / ``=====`` / header / dashes / rows), indented by four spaces;
    ``title=None, indent=0`` gives the plain tables (``nv show interface``, ``counters errors``)."""
    widths = [max([len(h), *(len(r[i]) for r in rows), min_widths[i] if i < len(min_widths) else 1])
              for i, h in enumerate(headers)]
    pad = " " * indent
    out = [] if title is None else [title, "=" * (len(title) + 3)]
    out.append((pad + "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))).rstrip())
    out.append(pad + "  ".join("-" * w for w in widths))
    out += [(pad + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))).rstrip() for r in rows]
    return out


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
        ("enable", "", roce.get(("enable",), "on" if v.roce else "off")),
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


def counters_qos(ctx: ShowContext, port: str) -> str:
    c = _counters(ctx, port)
    lossless = ctx.view.lossless_tcs(port)
    rx_roce, rx_other = _split(c["rx_packets"], bool(lossless))
    tx_roce, tx_other = _split(c["tx_packets"], bool(lossless))
    pg_frames = {0: rx_other, **{tc: rx_roce // len(lossless) for tc in lossless}}
    tc_frames = {0: tx_other, CNP_SP: c["cnp_sent"], **{tc: tx_roce // len(lossless) for tc in lossless}}
    out = sub_table("Ingress Buffer Statistics",
                    ["priority-group", "rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"],
                    [[str(pg), str(pg_frames.get(pg, 0)), "0 Bytes", "0 Bytes"] for pg in range(8)])
    out += ["", *sub_table("Egress Queue Statistics",
                           ["traffic-class", "tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"],
                           [[str(tc), str(tc_frames.get(tc, 0)), human_bytes(tc_frames.get(tc, 0) * 1100),
                             "0 Bytes", "0"] for tc in range(8)])]
    out += ["", *sub_table("PFC Statistics", ["switch-priority", "rx-pause-frames", "rx-pause-duration",
                                              "tx-pause-frames", "tx-pause-duration"],
                           [[str(p), str(c[f"pfc_rx_{p}"]), str(c[f"pfc_rx_{p}"] * 3), str(c[f"pfc_tx_{p}"]),
                             str(c[f"pfc_tx_{p}"] * 3)] for p in range(8)])]
    out += ["", *sub_table("Qos Port Statistics", ["Counter", "Receive", "Transmit"],
                           [["ecn-marked-packets", "n/a", str(c["ecn_marked"])],
                            ["mc-buffer-discards", "n/a", "0"], ["pause-frames", "0", "0"]])]
    return "\n".join(out)


def counters_errors(ctx: ShowContext, port: str) -> str:
    c = _counters(ctx, port)
    rows = [["Alignment Errors", "0", "n/a"], ["FCS Errors", str(c["crc_errors"]), "n/a"],
            ["Jabber Errors", "0", "n/a"], ["Length Errors", "0", "n/a"], ["Oversize Errors", "0", "n/a"],
            ["Symbol Errors", str(c["symbol_errors"]), "n/a"],
            ["Total Errors", str(c["crc_errors"] + c["symbol_errors"]), "0"], ["Undersize Errors", "0", "n/a"]]
    return "\n".join(sub_table(None, ["Counter", "Receive", "Transmit"], rows, indent=0))


def pfc_watchdog(ctx: ShowContext, port: str) -> str:
    pv = ctx.view.ports[port]
    applied = sub(ctx.tree, ("interface", port, "qos", "pfc-watchdog")).get(("state",), "")
    state = "enabled" if pv.watchdog else "disabled"
    out = kv_table([("state", state, f"{applied}d" if applied else "")])
    if pv.watchdog:
        c = _counters(ctx, port)
        lossless = ctx.view.lossless_tcs(port)
        storm = any(ctx.physical.ports[port].counters[f"pfc_rx_{sp}"].rate >= STORM_RATE
                    for sp in ctx.view.port_pfc(port))
        rows = [[str(tc), "DEADLOCK" if storm and tc in lossless else "OK",
                 str(c["pfcwd_storms"] if tc in lossless else 0)] for tc in range(8)]
        out += ["", *sub_table("PFC WD Status", ["traffic-class", "status", "deadlock-count"], rows)]
    return "\n".join(out)


def roce_counters(ctx: ShowContext, port: str) -> str:
    c = _counters(ctx, port)
    sps = ctx.view.port_pfc(port)
    rx_roce, rx_other = _split(c["rx_packets"], bool(sps))
    tx_roce, _ = _split(c["tx_packets"], bool(sps))
    rows: list[tuple[str, ...]] = [
        ("rx-stats",), ("  rx-non-roce-stats",),
        ("    buffer-max-usage", "144 Bytes", "", "Max Ingress Pool-buffer usage for non-RoCE traffic"),
        ("    buffer-usage", "0 Bytes", "", "Current Ingress Pool-buffer usage for non-RoCE traffic"),
        ("    no-buffer-discard", "0", "", "Rx buffer discards for non-RoCE traffic"),
        ("    non-roce-bytes", human_bytes(rx_other * 1100), "", "non-roce rx bytes"),
        ("    non-roce-packets", str(rx_other), "", "non-roce rx packets"),
        ("    pg-max-usage", "144 Bytes", "", "Max PG-buffer usage for non-RoCE traffic"),
        ("    pg-usage", "0 Bytes", "", "Current PG-buffer usage for non-RoCE traffic"),
        ("  rx-pfc-stats",),
        ("    pause-duration", str(sum(c[f"pfc_rx_{p}"] for p in sps) * 3), "",
         "Rx PFC pause duration for RoCE traffic"),
        ("    pause-packets", str(sum(c[f"pfc_rx_{p}"] for p in sps)), "", "Rx PFC pause packets for RoCE traffic"),
        ("  rx-roce-stats",),
        ("    buffer-max-usage", "0 Bytes", "", "Max Ingress Pool-buffer usage for RoCE traffic"),
        ("    buffer-usage", "0 Bytes", "", "Current Ingress Pool-buffer usage for RoCE traffic"),
        ("    no-buffer-discard", "0", "", "Rx buffer discards for RoCE traffic"),
        ("    pg-max-usage", "0 Bytes", "", "Max PG-buffer usage for RoCE traffic"),
        ("    pg-usage", "0 Bytes", "", "Current PG-buffer usage for RoCE traffic"),
        ("    roce-bytes", human_bytes(rx_roce * 4200), "", "Rx RoCE Bytes"),
        ("    roce-packets", str(rx_roce), "", "Rx RoCE Packets"),
        ("tx-stats",), ("  tx-cnp-stats",),
        ("    buffer-max-usage", "0 Bytes", "", "Max Egress Pool-buffer usage for CNP traffic"),
        ("    buffer-usage", "0 Bytes", "", "Current Egress Pool-buffer usage for CNP traffic"),
        ("    cnp-bytes", human_bytes(c["cnp_sent"] * 64), "", "Tx CNP Packet Bytes"),
        ("    cnp-packets", str(c["cnp_sent"]), "", "Tx CNP Packets"),
        ("    tc-max-usage", "0 Bytes", "", "Max TC-buffer usage for CNP traffic"),
        ("    tc-usage", "0 Bytes", "", "Current TC-buffer usage for CNP traffic"),
        ("    unicast-no-buffer-discard", "0", "", "Tx buffer discards for CNP traffic"),
        ("  tx-ecn-stats",),
        ("    ecn-marked-packets", str(c["ecn_marked"]), "", "Tx ECN marked packets"),
        ("  tx-pfc-stats",),
        ("    pause-duration", str(sum(c[f"pfc_tx_{p}"] for p in sps) * 3), "",
         "Tx PFC pause duration for RoCE traffic"),
        ("    pause-packets", str(sum(c[f"pfc_tx_{p}"] for p in sps)), "", "Tx PFC pause packets for RoCE traffic"),
        ("  tx-roce-stats",),
        ("    buffer-max-usage", "0 Bytes", "", "Max Egress Pool-buffer usage for RoCE traffic"),
        ("    buffer-usage", "0 Bytes", "", "Current Egress Pool-buffer usage for RoCE traffic"),
        ("    roce-bytes", human_bytes(tx_roce * 4200), "", "Tx RoCE Packet bytes"),
        ("    roce-packets", str(tx_roce), "", "Tx RoCE Packets"),
        ("    tc-max-usage", "0 Bytes", "", "Max TC-buffer usage for RoCE traffic"),
        ("    tc-usage", "0 Bytes", "", "Current TC-buffer usage for RoCE traffic"),
        ("    unicast-no-buffer-discard", "0", "", "Tx buffer discards for RoCE traffic"),
    ]
    return "\n".join(kv_table(rows, ("operational", "applied", "description")))


def roce_status(ctx: ShowContext, port: str) -> str:
    v = ctx.view
    sps = v.port_pfc(port)
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
    c = _counters(ctx, port)
    usage = human_bytes((c["rx_packets"] % 4096) * 1900)
    pools = [[str(i), name, "DYNAMIC", str(pid), sps_, tcs, "inf" if size == "inf" else "15.16 MB",
              usage if i in (1, 3) else "0 Bytes", "16.00 MB"]
             for (i, name, size, sps_, tcs), pid in zip(_pools(v), (2, 3, 13, 14), strict=False)]
    out += [" ", " ", *sub_table("RoCE Pool Status", ["", "name", "mode", "pool-id", "switch-priorities",
                                                      "traffic-class", "size", "current-usage", "max-usage"],
                                 pools, min_widths=(2,))]
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
    if up and phys.neighbor:
        entry["lldp"] = {"neighbor": {phys.neighbor[0]: {"port": {"name": phys.neighbor[1]}}}}
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
        remote = phys.neighbor if phys and up and phys.neighbor else ("", "")
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
    tree, v = ctx.tree, ctx.view
    global_on = tree.get(("router", "bgp", "enable")) == "on" and ("router", "bgp", "autonomous-system") in tree
    vrf_bgp = sub(tree, ("vrf", vrf, "router", "bgp"))
    on = global_on and vrf_bgp.get(("enable",), "on") == "on"
    out: dict[str, Any] = {}
    per_neighbor: dict[str, dict[tuple[str, ...], str]] = {}
    for k, val in vrf_bgp.items():
        if k[0] == "neighbor" and len(k) > 2:
            per_neighbor.setdefault(k[1], {})[k[2:]] = val
    networks = _networks(v)
    for ip in sorted(per_neighbor, key=_ip_key):
        nb = per_neighbor[ip]
        port = _port_for(networks, ip)
        up = port is not None and v.ports[port].admin_up and ctx.physical.oper_up(port, True)
        state = "established" if on and up and nb.get(("enable",), "on") == "on" else "active" if on else "idle"
        remote = nb.get(("remote-as",), "")
        entry: dict[str, Any] = {"remote-as": int(remote) if remote.isdigit() else remote, "state": state,
                                 "type": nb.get(("type",), "numbered")}
        if ("description",) in nb:
            entry["description"] = nb[("description",)]
        if port:
            entry["interface"] = port
        out[ip] = entry
    return out


def _networks(v: View) -> list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]]:
    out = []
    for name, pv in v.ports.items():
        for a in pv.addresses:
            try:
                out.append((ipaddress.ip_interface(a).network, name))
            except ValueError:
                continue
    return out


def _ip_key(ip: str) -> tuple[int, int | str]:
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return 9, ip
    return addr.version, int(addr)


def _port_for(networks: list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]], ip: str) -> str | None:
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip if any(name == ip for _, name in networks) else None  # unnumbered: the interface itself
    return next((name for net, name in networks if addr in net), None)


def bgp_text(neighbors: dict[str, Any]) -> str:
    rows = [[ip, str(n["remote-as"]), n["state"].capitalize(), n.get("interface", ""), n.get("description", "")]
            for ip, n in neighbors.items()]
    return "\n".join(sub_table(None, ["Neighbor", "AS", "State", "Interface", "Description"], rows, indent=0))


def system_json(ctx: ShowContext) -> str:
    return dump_json({"hostname": ctx.hostname, "build": BUILD, "product-name": "Cumulus Linux",
                      "platform": ctx.model, "uptime": int(ctx.uptime_s), "timezone": "Etc/UTC"})


def system_text(ctx: ShowContext) -> str:
    applied = ctx.tree.get(("system", "hostname"), "")
    return "\n".join(kv_table([("hostname", ctx.hostname, applied), ("build", BUILD),
                                ("uptime", f"{int(ctx.uptime_s)} seconds"), ("timezone", "Etc/UTC")]))
