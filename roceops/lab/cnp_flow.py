"""The lab's congestion notifications between hosts, kept consistent across devices.

The lab simulates rail traffic: on each rail every host's NIC sends to every other host's NIC of the same name
(NCCL's NIC *i* to NIC *i*), so each NIC is a receiver (notification point: marks in, ``np_cnp_sent`` out) and a
sender (reaction point: ``rp_cnp_handled``). A sender handles the CNPs its receivers send it: its handled rate is the
mean of its rail peers' CNP rates (each receiver spreads its CNPs over its senders). A receiver that stops sending
CNPs (``ecn_no_cnp``) lowers every peer's handled rate; with two hosts on a rail the peer handles none.

A device takes part when its state has ``rail_nics()`` (the simulated hosts) and a ``physical`` layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.lab.physical import Physical, PortPhysics


def rebalance(states: Mapping[str, Any]) -> None:
    """Set every host NIC's ``cnp_handled`` rate from its rail peers' current ``cnp_sent`` rates."""
    rails: dict[str, list[tuple[Physical, PortPhysics]]] = {}
    for state in states.values():
        nics = getattr(state, "rail_nics", None)
        physical = getattr(state, "physical", None)
        if callable(nics) and isinstance(physical, Physical):
            for name in nics():
                rails.setdefault(name, []).append((physical, physical.ports[name]))
    for ends in rails.values():
        if len(ends) < 2:
            continue
        sent = [port.counter("cnp_sent").rate for _, port in ends]
        total = sum(sent)
        for (physical, port), own in zip(ends, sent, strict=True):
            rate = (total - own) / (len(ends) - 1)
            handled = port.counter("cnp_handled")
            if handled.rate != rate:
                handled.set_rate(physical.clock(), rate)
