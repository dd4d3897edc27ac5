"""The intent as EOS shows it: the :class:`~roceops.device.observed.ObservedSwitch` that
:func:`roceops.platforms.eos.parsers.observe_config` reads from a switch that carries exactly the rendered config.

What EOS does to the intent (see :mod:`roceops.platforms.eos.render`):

* MTU at most :data:`~roceops.platforms.eos.render.MAX_MTU` (9214);
* ECN thresholds in whole kbytes; a weight only on DWRR queues;
* watchdog action ``alert`` shows as ``forward`` (both are rendered ``no-drop``); a port's watchdog is on only
  where PFC is on and the device-wide watchdog is enabled;
* ``qos trust`` and the ``tx-queue`` sections are per interface: every intent port carries its own copy of the
  intent's trust and queues, plus EOS's default queue (strict, no weight, no ECN) for every other queue the
  TC->queue map names, as :func:`~roceops.platforms.eos.parsers.observe_config` reports them;
* BGP neighbours by address and networks by prefix, de-duplicated (:func:`~roceops.platforms.eos.parsers.bgp_order`).
"""

from __future__ import annotations

from roceops.device.intent import QueueIntent, SwitchIntent, SwitchQos
from roceops.device.observed import ObservedEcn, ObservedQueue, ObservedSwitch
from roceops.platforms.eos.parsers import (
    ACTION_OF_WATCHDOG,
    DEFAULT_QUEUE,
    DEFAULT_TC_TO_QUEUE,
    neighbor_sort_key,
    network_order,
)
from roceops.platforms.eos.render import TRUST, WATCHDOG_ACTIONS, eos_mtu, kbytes


def expected(intent: SwitchIntent) -> ObservedSwitch:
    """``intent`` as an EOS switch shows it (every field set; see the module docstring).

    The intent's plain data with EOS's changes made in it, validated once as an ObservedSwitch (the result equals
    :func:`~roceops.device.observed.as_observed` followed by a copy of each changed model with its changes:
    tests/platforms/eos/test_eos_expected_once.py)."""
    data = intent.model_dump()
    qos = intent.qos
    wd = qos.pfc_watchdog
    queues = expected_queues(qos)  # ObservedQueue models: validation keeps them as they are
    trust = TRUST[qos.trust]
    for port in data["ports"].values():
        port.update(mtu=eos_mtu(port["mtu"]), trust=trust,
                    pfc_watchdog=bool(port["pfc_watchdog"] and wd.enabled and port["pfc_priorities"]))
    shown_qos = data["qos"]
    shown_qos["queues"] = {qid: queues[qid] for qid in qos.queues}
    shown_qos["pfc_watchdog"]["action"] = ACTION_OF_WATCHDOG[WATCHDOG_ACTIONS[wd.action]]
    bgp = data["bgp"]
    bgp["neighbors"] = sorted(bgp["neighbors"], key=lambda n: neighbor_sort_key(n["ip"]))
    bgp["networks"] = network_order(bgp["networks"])
    shown = ObservedSwitch.model_validate(data)
    for port in (shown.ports or {}).values():  # one queue map for all ports, not validated (a copy) per port
        port.__dict__["queues"] = queues  # on a port just validated here; as parsers._observed_ports
        port.__pydantic_fields_set__.add("queues")
    return shown


def expected_queues(qos: SwitchQos) -> dict[int, ObservedQueue]:
    """A port's queues as EOS shows them: the intent's (:func:`expected_queue`) and, for every other queue of the
    TC->queue map (identity for the TCs the intent does not map), EOS's default queue."""
    ids = set(({**DEFAULT_TC_TO_QUEUE, **qos.tc_to_queue}).values()) | qos.queues.keys()
    return {qid: expected_queue(qos.queues[qid]) if qid in qos.queues else DEFAULT_QUEUE for qid in sorted(ids)}


def expected_queue(q: QueueIntent) -> ObservedQueue:
    """A QueueIntent as EOS holds it: ECN thresholds in whole kbytes, a weight only when DWRR (lossless and
    traffic class are not in EOS's config, so they are kept only to describe the queue)."""
    ecn = None
    if q.ecn is not None:
        ecn = ObservedEcn(min_bytes=kbytes(q.ecn.min_bytes) * 1024, max_bytes=kbytes(q.ecn.max_bytes) * 1024,
                          probability=q.ecn.probability)
    return ObservedQueue(scheduler=q.scheduler, weight=q.weight if q.scheduler == "dwrr" else None,
                         lossless=q.lossless, ecn=ecn, traffic_class=q.traffic_class)
