"""The EOS lab's counter commands (``show interfaces counters errors``, ``... queue detail``, PFC, PFC watchdog
and ECN counters), text and ``| json``, from running-config and the shared physical layer.

The PFC and ECN ``| json`` answers of a whole switch are written as JSON text directly (:class:`Encoded`): the
same bytes as ``json.dumps`` of the dicts the text forms are built from, without building and encoding them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.eos.tree import Node, short_ifname

if TYPE_CHECKING:
    from roceops.lab.devices.eos.state import EosStateCore


def intf(st: EosStateCore, name: str) -> Node:
    node = st.running.children.get(f"interface {name}")
    return node if isinstance(node, Node) else Node(f"interface {name}")


def oper(st: EosStateCore, name: str) -> bool:
    """Whether port ``name`` is up (admin state from running-config, link from the physical layer)."""
    admin = "shutdown" not in intf(st, name).children
    return st.physical.oper_up(name, admin) if name in st.physical.ports else admin


def errors(st: EosStateCore) -> dict[str, Any]:
    out = {}
    for name in st.ports_sorted:
        crc, symbol = st.physical.value(name, "crc_errors"), st.physical.value(name, "symbol_errors")
        out[name] = {"inErrors": crc + symbol, "frameTooLongs": 0, "outErrors": 0,
                     "frameTooShorts": 0, "fcsErrors": crc, "alignmentErrors": 0, "symbolErrors": symbol}
    return {"interfaceErrorCounters": out}


def errors_text(data: dict[str, Any]) -> str:
    out = [f"{'Port':<10} {'FCS':>10} {'Align':>10} {'Symbol':>10} {'Rx':>10} {'Runts':>10} {'Giants':>10} {'Tx':>10}"]
    for name, c in data["interfaceErrorCounters"].items():
        out.append(f"{short_ifname(name):<10} {c['fcsErrors']:>10} {c['alignmentErrors']:>10} "
                   f"{c['symbolErrors']:>10} {c['inErrors']:>10} {c['frameTooShorts']:>10} {c['frameTooLongs']:>10} "
                   f"{c['outErrors']:>10}")
    return "\n".join(out)


def queue_detail(st: EosStateCore) -> str:
    """``show interfaces counters queue detail`` egress part, in the fixture's column layout (lab traffic split)."""
    out = ["Egress Queue Counters",
           f"{'Port':<18} {'Traffic':>7}{'DropPrec':>11}{'DestType':>11}{'OutEnqPkts':>18}{'OutEnqOctets':>18}"
           f"{'OutDropPkts':>18}{'OutDropOctets':>18}", " " * 20 + "Class"]
    for name in st.ports_sorted:
        tx = st.physical.value(name, "tx_packets")
        lossless = st.physical.lossless[0] if st.physical.lossless else 3
        for tc, share in sorted({0: 0.19, lossless: 0.8, 6: 0.01}.items()):
            pkts = int(tx * share)
            out.append(f"{short_ifname(name):<18} {f'TC{tc}':>7}{'DP0-3':>11}{'UC':>11}{pkts:>18}{pkts * 1100:>18}"
                       f"{0:>18}{0:>18}")
    return "\n".join(out)


# --------------------------------------------------------------------------- QoS counters


def _ecn_queues(node: Node) -> list[int]:
    return sorted(int(k.split()[1]) for k, v in node.children.items()
                  if k.startswith(("tx-queue", "uc-tx-queue")) and isinstance(v, Node)  # uc-: XGS profiles
                  and "random-detect ecn minimum-threshold" in v.children)


_PFC_RX = itemgetter(*(f"pfc_rx_{p}" for p in range(8)))
_PFC_TX = itemgetter(*(f"pfc_tx_{p}" for p in range(8)))
_QUEUES = tuple(str(q) for q in range(8))  # priority / queue numbers as JSON keys


SLOT = "\x00"  # a value (or key) filled in per answer: json.dumps writes it "\u0000"


def json_template(sample: dict[str, Any]) -> str:
    """``json.dumps(sample)`` without its outer braces, as a ``str.format`` template whose fields are the
    :data:`SLOT` keys and values (to be filled with already encoded JSON)."""
    return json.dumps(sample)[1:-1].replace("{", "{{").replace("}", "}}").replace('"\\u0000"', "{}")


ENCODE = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]  # json.dumps' string encoder (C)


def json_float(value: float) -> str:
    """A float as json.dumps writes it."""
    return float.__repr__(value) if math.isfinite(value) else json.dumps(value)


@dataclass(frozen=True, slots=True)
class Encoded:
    """A ``| json`` answer written as compact JSON text: ``json.dumps(data())``, byte for byte; ``data`` builds
    the dict itself for the answers EOS indents (see :func:`roceops.lab.devices.eos.show.show`)."""

    text: str
    data: Callable[[], dict[str, Any]]


def json_entries(top: str, parts: list[str]) -> str:
    return f"{{{ENCODE(top)}: {{{', '.join(parts)}}}}}"


_PFC_PORT = json_template({SLOT: {"rxFrames": SLOT, "txFrames": SLOT}})
_PFC_PORT_DETAIL = json_template({SLOT: {"rxFrames": SLOT, "txFrames": SLOT, "priorities": {
    q: {"rxFrames": SLOT, "txFrames": SLOT} for q in _QUEUES}}})


def pfc_counters_json(st: EosStateCore, detail: bool) -> Encoded:
    """``pfc_counters`` as JSON text."""
    parts = []
    for name in st.ports_sorted:
        c = st.physical.snapshot(name)
        rx, tx = _PFC_RX(c), _PFC_TX(c)
        if detail:
            parts.append(_PFC_PORT_DETAIL.format(ENCODE(name), sum(rx), sum(tx),
                                                 *(v for pair in zip(rx, tx, strict=True) for v in pair)))
        else:
            parts.append(_PFC_PORT.format(ENCODE(name), sum(rx), sum(tx)))
    return Encoded(json_entries("interfaceCounters", parts), lambda: pfc_counters(st, detail))


def pfc_counters(st: EosStateCore, detail: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in st.ports_sorted:
        c = st.physical.snapshot(name)
        rx, tx = _PFC_RX(c), _PFC_TX(c)
        entry: dict[str, Any] = {"rxFrames": sum(rx), "txFrames": sum(tx)}
        if detail:  # (lab shape) per-priority frames
            entry["priorities"] = {p: {"rxFrames": r, "txFrames": t} for p, r, t in zip(_QUEUES, rx, tx, strict=True)}
        out[name] = entry
    return {"interfaceCounters": out}


def watchdog(st: EosStateCore) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in st.ports_sorted:
        node = intf(st, name)
        storms = st.physical.value(name, "pfcwd_storms")
        if not storms or "priority-flow-control pause watchdog" not in node.children:
            continue  # EOS lists an interface only after its first watchdog event
        prios = sorted(int(k.split()[-1]) for k in node.children if k.startswith("priority-flow-control priority "))
        out[name] = {"txQueues": {str(p): {"stuckCount": storms, "recoveryCount": storms} for p in prios}}
    return {"interfaces": out}


def watchdog_text(data: dict[str, Any]) -> str:
    out = [f"{'Port':<10} {'TxQ':>4} {'Stuck':>10} {'Recovered':>10}"]
    for name, entry in data["interfaces"].items():
        for q, c in entry["txQueues"].items():
            out.append(f"{short_ifname(name):<10} {q:>4} {c['stuckCount']:>10} {c['recoveryCount']:>10}")
    return "\n".join(out)


def ecn_counters(st: EosStateCore, detail: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    lossless = st.physical.lossless
    for name in st.ports_sorted:
        queues = _ecn_queues(intf(st, name))
        marked = st.physical.value(name, "ecn_marked")
        first = next((q for q in queues if q in lossless), queues[0] if queues else None)
        counters = {key: ("-" if q not in queues else str(marked if q == first else 0))
                    for q, key in enumerate(_QUEUES)}
        out[name] = {"queueCounters": counters}
    return {"intfQueueCounters": out}


_ECN_PORT = json_template({SLOT: {"queueCounters": dict.fromkeys(_QUEUES, SLOT)}})


def ecn_counters_json(st: EosStateCore, detail: bool) -> Encoded:
    """``ecn_counters`` as JSON text."""
    parts = []
    lossless = st.physical.lossless
    for name in st.ports_sorted:
        queues = _ecn_queues(intf(st, name))
        marked = st.physical.value(name, "ecn_marked")
        first = next((q for q in queues if q in lossless), queues[0] if queues else None)
        values = ["-" if q not in queues else str(marked if q == first else 0) for q in range(8)]
        parts.append(_ECN_PORT.format(ENCODE(name), *map(ENCODE, values)))
    return Encoded(json_entries("intfQueueCounters", parts), lambda: ecn_counters(st, detail))


def table(data: dict[str, Any]) -> str:
    """Text form of the PFC / ECN counter tables."""
    if "interfaceCounters" in data:
        rows = [f"{'Port':<10} {'RxPfc':>15} {'TxPfc':>15}"]
        rows += [f"{short_ifname(n):<10} {c['rxFrames']:>15} {c['txFrames']:>15}"
                 for n, c in data["interfaceCounters"].items()]
        return "\n".join(rows)
    rows = [f"{'Port':<10}" + "".join(f"{'TxQ' + str(q):>12}" for q in range(8))]
    for n, entry in data["intfQueueCounters"].items():
        rows.append(f"{short_ifname(n):<10}" + "".join(f"{entry['queueCounters'][str(q)]:>12}" for q in range(8)))
    return "\n".join(rows)
