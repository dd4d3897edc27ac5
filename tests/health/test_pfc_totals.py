"""A switch that shows PFC totals only (EOS without per-priority counts): its operational state reports the totals,
never a count credited to a priority, and health judges the pause rate on those totals."""

from __future__ import annotations

import json

from test_counter_reads import intents

from roceops.device.oper import OperState, PortOper, for_intent
from roceops.health.catalog import LinkContext, PauseStorm, Sample
from roceops.health.model import Thresholds
from roceops.platforms.eos import DRIVER
from roceops.platforms.eos import parsers as p


def _eos_totals(rx: int, tx: int) -> PortOper:
    host, leaf = intents()
    port = next(iter(host.nics.values())).leaf_port
    outputs = {p.CMD_PFC: json.dumps({"interfaceCounters": {port: {"rxFrames": rx, "txFrames": tx}}})}
    return for_intent(DRIVER.operational(outputs), leaf).ports[port]


def test_totals_only_are_reported_as_totals_not_as_a_priority() -> None:
    port = _eos_totals(120, 7)
    assert port.counters == {"pfc_rx_total": 120, "pfc_tx_total": 7}
    assert not any(name.startswith(("pfc_rx_", "pfc_tx_")) and name[-1].isdigit() for name in port.counters)


def test_health_judges_a_totals_only_port_on_its_totals() -> None:
    host, leaf = intents()
    nic = next(iter(host.nics.values()))
    hosts = OperState(device=host.name, ports={nic.netdev: PortOper(name=nic.netdev, counters={"pfc_rx_3": 0})})
    before, after = _eos_totals(0, 0), _eos_totals(5000, 0)  # 5000 pause frames in a 1 s window: a storm

    def result(first: PortOper, second: PortOper) -> str:
        ctx = LinkContext(node=host.name, nic=nic, host=Sample(first=hosts, second=hosts, window_s=1.0), leaf=leaf,
                          leaf_port=leaf.ports[nic.leaf_port], thresholds=Thresholds(),
                          switch=Sample(first=OperState(device=leaf.name, ports={first.name: first}),
                                        second=OperState(device=leaf.name, ports={second.name: second}),
                                        window_s=1.0))
        return PauseStorm().test(ctx)[1].status

    assert result(before, before) == "ok"
    assert result(before, after) == "fail"
