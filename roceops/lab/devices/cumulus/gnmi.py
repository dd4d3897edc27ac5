"""What the simulated Cumulus Linux switch (5.14+) serves over gNMI: OpenConfig leaves of its "gNMI Streaming"
metric tables, with the counters ``nv show`` prints (the shared physical layer), one update per leaf with its keys
(the page's gnmic example: ``qos/interfaces/interface[interface-id=swp1]/output/queues/queue[name=1]/state/...``).

The lab's own table (CumulusNetworks/docs ``content/cumulus-linux-514/Monitoring-and-Troubleshooting/gNMI
Streaming.md``@0dc9a0b249a82300940a9bc853a67344b6bb48cb, QoS and Interface tabs):

- ``qos/interfaces/interface[interface-id]/switch-priority[priority]/state/counters/in-pause-pkts`` /
  ``out-pause-pkts``: PFC frames per switch priority;
- ``qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/ecn-marked-pkts``: the port's marks on
  its first lossless traffic class, 0 on the others; ``.../no-buffer-uc-dropped-pkts``: 0 (no drops);
- ``interfaces/interface[name]/state/counters/in-errors`` (the ``in-errors`` of ``nv show interface ... counters``
  here) and ``.../carrier-transitions``.

No PFC watchdog leaf: the page lists none.
"""

from __future__ import annotations

from typing import Any

from roceops.lab.oc_gnmi import LabLeaf, eight, leaves, parse

_QOS = "qos/interfaces/interface[interface-id={port}]"


def _ecn(st: Any, port: str, i: str) -> int:
    lossless = st.view().lossless_tcs(port) or list(st.physical.lossless)
    return int(st.physical.value(port, "ecn_marked")) if str(lossless[0]) == i else 0


TABLE = (
    LabLeaf(f"{_QOS}/switch-priority[priority={{i}}]/state/counters/in-pause-pkts",
            lambda st, port, i: st.physical.value(port, f"pfc_rx_{i}"), eight),
    LabLeaf(f"{_QOS}/switch-priority[priority={{i}}]/state/counters/out-pause-pkts",
            lambda st, port, i: st.physical.value(port, f"pfc_tx_{i}"), eight),
    LabLeaf(f"{_QOS}/output/queues/queue[name={{i}}]/state/ecn-marked-pkts", _ecn, eight),
    LabLeaf(f"{_QOS}/output/queues/queue[name={{i}}]/state/no-buffer-uc-dropped-pkts", lambda st, port, i: 0, eight),
    LabLeaf("interfaces/interface[name={port}]/state/counters/in-errors",
            lambda st, port, i: st.physical.value(port, "crc_errors")),
    LabLeaf("interfaces/interface[name={port}]/state/counters/carrier-transitions",
            lambda st, port, i: st.physical.value(port, "carrier_changes")),
)


def answer(state: Any, target: str, path: str) -> list[tuple[list[tuple[str, dict[str, str]]], str]]:
    """Every leaf under the subscription ``path`` (keys ``*`` or a value); LookupError for none."""
    return list(leaves(TABLE, state, sorted(state.physical.ports, key=_port_key), parse(path)))


def _port_key(name: str) -> tuple[str, int]:
    digits = name.lstrip("abcdefghijklmnopqrstuvwxyz")
    return name[: len(name) - len(digits)], int(digits) if digits.isdigit() else 0
