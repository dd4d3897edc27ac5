"""The intent as a Cumulus NVUE switch shows it: the :class:`~roceops.device.observed.ObservedSwitch` that
:func:`roceops.platforms.cumulus.observe.observe` gives for a switch configured with the rendered commands.

What NVUE can hold differs from the intent in three places:

* PFC is one global profile (``default-global``): every port bound to it shows the profile's switch
  priorities, so every port expects the rendered global list (:func:`render.global_pfc_priorities`), and so
  do ``qos.lossless_priorities``; a queue is lossless when a PFC priority maps to it;
* the watchdog detects in whole polling intervals (``robustness``), and is on for a port only where the
  render turns it on (watchdog enabled, the port's flag, PFC on the port);
* BGP neighbours and networks come back in address order (:func:`observe.address_key`), networks once each;
* ``load_balancing.mode: adaptive`` is also set per port: each port shows ``adaptive_routing`` on where the
  render turns it on (the fabric ports, :func:`render.adaptive_routing_ports`) and off everywhere else.
"""

from __future__ import annotations

from roceops.device.intent import Intent, SwitchIntent
from roceops.device.observed import ObservedSwitch, as_observed
from roceops.platforms.cumulus.observe import address_key
from roceops.platforms.cumulus.render import adaptive_routing_ports, global_pfc_priorities, robustness


def expected(intent: Intent) -> ObservedSwitch:
    """The intent as NVUE shows it (see the module docstring), every field set."""
    if not isinstance(intent, SwitchIntent):
        raise TypeError("the Cumulus driver observes switches only")
    qos = intent.qos
    pfc = global_pfc_priorities(intent)
    wd = qos.pfc_watchdog
    lossless_q = {qos.tc_to_queue.get(sp, sp) for sp in pfc}
    queues = {q: queue.model_copy(update={"lossless": q in lossless_q}) for q, queue in qos.queues.items()}
    new_wd = wd.model_copy(update={"detect_ms": robustness(wd.detect_ms, wd.poll_ms) * wd.poll_ms}) if wd.enabled \
        else wd
    new_qos = qos.model_copy(update={"lossless_priorities": pfc, "queues": queues, "pfc_watchdog": new_wd})
    bgp = intent.bgp.model_copy(update={
        "neighbors": sorted(intent.bgp.neighbors, key=lambda n: address_key(n.ip)),
        "networks": sorted(set(intent.bgp.networks), key=address_key)})
    shown = as_observed(intent.model_copy(update={"qos": new_qos, "bgp": bgp}), ObservedSwitch)
    assert shown.ports is not None
    ar = set(adaptive_routing_ports(intent))  # SwitchPort has no per-port copy of the mode: added on this side
    ports = {name: port.model_copy(update={
        "pfc_priorities": pfc, "adaptive_routing": name in ar,
        "pfc_watchdog": wd.enabled and intent.ports[name].pfc_watchdog and bool(intent.ports[name].pfc_priorities)})
        for name, port in shown.ports.items()}
    return shown.model_copy(update={"ports": ports})
