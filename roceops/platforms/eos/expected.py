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
from roceops.device.observed import ObservedEcn, ObservedQueue, ObservedSwitch, as_observed
from roceops.platforms.eos.parsers import ACTION_OF_WATCHDOG, DEFAULT_QUEUE, DEFAULT_TC_TO_QUEUE, bgp_order
from roceops.platforms.eos.render import TRUST, WATCHDOG_ACTIONS, eos_mtu, kbytes


def expected(intent: SwitchIntent) -> ObservedSwitch:
    """``intent`` as an EOS switch shows it (every field set; see the module docstring)."""
    obs = as_observed(intent, ObservedSwitch)
    assert obs.qos is not None and obs.qos.pfc_watchdog is not None and obs.bgp is not None
    wd = intent.qos.pfc_watchdog
    queues = expected_queues(intent.qos)
    port_qos = {"trust": TRUST[intent.qos.trust], "queues": queues}
    ports = {name: port.model_copy(update={
        "mtu": eos_mtu(intent.ports[name].mtu), **port_qos,
        "pfc_watchdog": port.pfc_watchdog and wd.enabled and bool(port.pfc_priorities)})
        for name, port in (obs.ports or {}).items()}
    action = ACTION_OF_WATCHDOG[WATCHDOG_ACTIONS[wd.action]]
    qos = obs.qos.model_copy(update={"queues": {qid: queues[qid] for qid in intent.qos.queues},
                                     "pfc_watchdog": obs.qos.pfc_watchdog.model_copy(update={"action": action})})
    neighbors, networks = bgp_order(obs.bgp.neighbors or [], obs.bgp.networks or [])
    bgp = obs.bgp.model_copy(update={"neighbors": neighbors, "networks": networks})
    return obs.model_copy(update={"qos": qos, "ports": ports, "bgp": bgp})


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
