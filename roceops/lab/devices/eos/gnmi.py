"""What the simulated EOS switch serves over gNMI: OpenConfig and Arista-augment leaves, the same counters its
``show`` commands print (the shared physical layer), one update per leaf with its keys (as EOS streams them: the
subscriptions of arista-netdevops-community/gnmi_demo_with_arista_eos README print one keyed leaf per line).

The lab's own table (paths from aristanetworks/yang EOS-4.34.2F/pathreport.csv
@63be023aa565c8943ff74e746dfefa215df1c8d5 and arista-intf-augments.yang there):

- ``interfaces/interface[name]/ethernet/pfc/priorities/priority[index]/state/in-frames``/``out-frames``:
  PFC frames received/sent per priority;
- ``qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/ecn-marked-pkts``: the port's marks on
  its first ECN queue (as ``show ... ecn counters`` here), 0 on the others; ``.../dropped-pkts``: 0 (no drops);
- ``interfaces/interface[name]/ethernet/pfc/watchdog/tx-queues/tx-queue[index][queue-type=UNICAST]/state/
  stuck-count``: the watchdog's stuck count of the port's PFC queues, listed once a storm happened (as the CLI);
- ``interfaces/interface[name]/state/counters/in-errors``: CRC errors; ``.../carrier-transitions``: link changes.

Queue names are the queue numbers here (the lab's choice: EOS's own names are unconfirmed).
"""

from __future__ import annotations

from typing import Any

from roceops.lab.devices.eos.counters import _ecn_queues, intf, watchdog
from roceops.lab.oc_gnmi import LabLeaf, eight, leaves, parse

_PFC = "interfaces/interface[name={port}]/ethernet/pfc"
_QUEUE = "qos/interfaces/interface[interface-id={port}]/output/queues/queue[name={i}]/state"


def _ecn(st: Any, port: str, i: str) -> int:
    queues = _ecn_queues(intf(st, port))
    first = next((q for q in queues if q in st.physical.lossless), queues[0] if queues else None)
    return int(st.physical.value(port, "ecn_marked")) if first is not None and str(first) == i else 0


def _stuck_queues(st: Any, port: str) -> list[str]:
    return sorted(watchdog(st)["interfaces"].get(port, {}).get("txQueues", {}))


def _stuck(st: Any, port: str, i: str) -> int:
    return int(watchdog(st)["interfaces"][port]["txQueues"][i]["stuckCount"])


TABLE = (
    LabLeaf(f"{_PFC}/priorities/priority[index={{i}}]/state/in-frames",
            lambda st, port, i: st.physical.value(port, f"pfc_rx_{i}"), eight),
    LabLeaf(f"{_PFC}/priorities/priority[index={{i}}]/state/out-frames",
            lambda st, port, i: st.physical.value(port, f"pfc_tx_{i}"), eight),
    LabLeaf(f"{_QUEUE}/ecn-marked-pkts", _ecn, eight),
    LabLeaf(f"{_QUEUE}/dropped-pkts", lambda st, port, i: 0, eight),
    LabLeaf(f"{_PFC}/watchdog/tx-queues/tx-queue[index={{i}}][queue-type=UNICAST]/state/stuck-count", _stuck,
            _stuck_queues),
    LabLeaf("interfaces/interface[name={port}]/state/counters/in-errors",
            lambda st, port, i: st.physical.value(port, "crc_errors")),
    LabLeaf("interfaces/interface[name={port}]/state/counters/carrier-transitions",
            lambda st, port, i: st.physical.value(port, "carrier_changes")),
)


def answer(state: Any, target: str, path: str) -> list[tuple[list[tuple[str, dict[str, str]]], str]]:
    """Every leaf under the subscription ``path`` (keys ``*`` or a value); LookupError for none."""
    return list(leaves(TABLE, state, list(state.ports_sorted), parse(path)))
