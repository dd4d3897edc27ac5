"""Transport-layer faults of a simulated host's NICs, on top of the shared physical layer: extra RDMA
``hw_counters`` that climb while a fault holds (``retransmits``), and keep their value after it clears, as real
counters do.

==============  ==========================================================================================
fault           effect (``port=`` selects one NIC, default: all)
==============  ==========================================================================================
retransmits     out_of_sequence ~400/s, packet_seq_err ~50/s, local_ack_timeout_err ~10/s: a lossy path
                under a lossless class (silent drops, go-back-N retransmissions)
ecn_no_cnp      the NIC's notification point stops: np_cnp_sent stands still while the leaf keeps marking and
                np_ecn_marked_roce_packets keeps counting (firmware that broke CNP generation)
acs_on          ACS request/completion redirect on at the PCIe switch ports between the NIC and its GPU
                (``lspci``, pci.py)
rail_swap       a=, b= (default: the first two NICs): their cables swapped between their leaves, both ends
                (the lab server moves the far ends too: roceops/lab/rewire.py)
no_lldpd        lldpd is not installed: ``lldpcli`` is "command not found" and the host sends no LLDP, so its
                leaves' LLDP tables do not name it (the lab server tells the far ends: roceops/lab/rewire.py);
                the leaves' IPv6 neighbour tables still hold its NICs' MACs
==============  ==========================================================================================
"""

from __future__ import annotations

from roceops.lab.physical import Clock, RateCounter

# rail_swap, no_lldpd: roceops/lab/rewire.py changes the far ends too; acs_on: pci.py reads it
WIRE_FAULTS = frozenset({"retransmits", "rail_swap", "ecn_no_cnp", "acs_on", "no_lldpd"})
# their parameters (the lab's fault registry: lab inject --help)
WIRE_FAULT_PARAMS: dict[str, frozenset[str]] = {
    "retransmits": frozenset({"port"}), "ecn_no_cnp": frozenset({"port"}), "acs_on": frozenset({"port"}),
    "rail_swap": frozenset({"a", "b"}), "no_lldpd": frozenset(),
}
RETRANSMIT_RATES: dict[str, float] = {"out_of_sequence": 400.0, "packet_seq_err": 50.0,
                                      "local_ack_timeout_err": 10.0}


class WireCounters:
    """Per NIC, the hw_counters a wire fault adds to the physical layer's (0 for every counter no fault moved)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._added: dict[str, dict[str, RateCounter]] = {}

    def added(self, nic: str, counter: str) -> int:
        found = self._added.get(nic, {}).get(counter)
        return found.value(self.clock()) if found is not None else 0

    def start(self, nic: str, rates: dict[str, float]) -> None:
        now = self.clock()
        counters = self._added.setdefault(nic, {})
        for name, rate in rates.items():
            counters.setdefault(name, RateCounter(base=0.0, rate=0.0, since=now)).set_rate(now, rate)

    def stop(self) -> None:
        now = self.clock()
        for counters in self._added.values():
            for counter in counters.values():
                counter.set_rate(now, 0.0)
