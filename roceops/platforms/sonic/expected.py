"""The intent as SONiC shows it: the :class:`~roceops.device.observed.ObservedSwitch` that
:func:`~roceops.platforms.sonic.parsers_config_db.parse_config_db` reads from the rendered CONFIG_DB (pure).

Where CONFIG_DB holds a setting differently from the intent:

=========================  ==========================================================================
ObservedSwitch             as the render writes it (:mod:`roceops.platforms.sonic.render`)
=========================  ==========================================================================
unordered lists            sorted as the parser reports them (pools, profiles, neighbours, networks,
                           PFC and lossless priorities)
ports[p].pfc_watchdog      only where PFC is on and the watchdog enabled (``PFC_WD|<p>``)
ports[p].headroom          none under the dynamic buffer model (``BUFFER_PG`` profile ``NULL``); nor are
                           the headroom profiles in ``qos.profiles``
queues' weight             only on DWRR queues (a STRICT ``SCHEDULER`` has none)
bgp neighbour description  the neighbour's IP when the intent has none (``BGP_NEIGHBOR`` ``name``)
ports[p] per-port copies   every port binds the device's four maps (``PORT_QOS_MAP|<p>``) and has every
                           queue of the intent (``QUEUE|<p>|<q>``), lossless where the port's PFC
                           priorities map to it (``BUFFER_QUEUE``); ``watchdog`` timers on the watched ports
=========================  ==========================================================================

It runs once per device per audit: ports share the maps, queues and watchdog they hold (frozen models).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from roceops.device.intent import SwitchIntent, SwitchPort, SwitchQos
from roceops.device.observed import ObservedPfcWatchdog, ObservedQueue, ObservedSwitch, ObservedSwitchPort, as_observed
from roceops.platforms.sonic.render import BufferModel, buffer_model_of
from roceops.util.sorting import ip_sort_key, prefix_key

_Model = TypeVar("_Model", bound=BaseModel)


def expected_switch(intent: SwitchIntent, buffer_model: BufferModel | None = None) -> ObservedSwitch:
    """The ObservedSwitch a freshly deployed ``intent`` shows (``buffer_model``: the room's override)."""
    shown = as_config_db(intent, buffer_model)
    observed = as_observed(shown, ObservedSwitch)
    return observed.model_copy(update={"ports": _with_port_copies(shown, observed)})


def as_config_db(intent: SwitchIntent, buffer_model: BufferModel | None = None) -> SwitchIntent:
    """The intent as CONFIG_DB can hold it (the table in the module docstring, per-port copies aside)."""
    qos = intent.qos
    wd_on = qos.pfc_watchdog.enabled
    dynamic = buffer_model_of(intent, buffer_model) == "dynamic"
    headroom = {h.profile for p in intent.ports.values() for h in p.headroom.values()}
    ports = {name: _updated(p, {"pfc_watchdog": bool(p.pfc_watchdog and p.pfc_priorities and wd_on),
                                "pfc_priorities": sorted(p.pfc_priorities), "headroom": {} if dynamic else p.headroom})
             for name, p in intent.ports.items()}
    queues = {q: _updated(v, {"weight": v.weight if v.scheduler == "dwrr" else None}) for q, v in qos.queues.items()}
    profiles = sorted((b for b in qos.profiles if not (dynamic and b.name in headroom)), key=lambda b: b.name)
    new_qos = qos.model_copy(update={"pools": sorted(qos.pools, key=lambda b: b.name), "profiles": profiles,
                                     "queues": queues, "lossless_priorities": sorted(qos.lossless_priorities)})
    neighbors = sorted((_updated(n, {"description": n.description or n.ip}) for n in intent.bgp.neighbors),
                       key=lambda n: ip_sort_key(n.ip))
    networks = sorted(set(intent.bgp.networks), key=prefix_key)  # BGP_GLOBALS_AF_NETWORK keys: a set
    return intent.model_copy(update={"qos": new_qos, "ports": ports,
                                     "bgp": intent.bgp.model_copy(update={"neighbors": neighbors,
                                                                          "networks": networks})})


def _with_port_copies(shown: SwitchIntent, observed: ObservedSwitch) -> dict[str, ObservedSwitchPort]:
    """``observed.ports`` with the copies each port holds of the device-wide QoS settings (as rendered)."""
    qos = observed.qos
    assert qos is not None and observed.ports is not None  # as_observed sets every field
    maps: dict[str, Any] = {"trust": qos.trust, "dscp_to_tc": qos.dscp_to_tc, "tc_to_queue": qos.tc_to_queue,
                            "tc_to_pg": qos.tc_to_pg, "pfc_priority_to_queue": qos.pfc_priority_to_queue}
    wd = shown.qos.pfc_watchdog
    watchdog = ObservedPfcWatchdog(detect_ms=wd.detect_ms, restore_ms=wd.restore_ms, action=wd.action)
    queues_for: dict[frozenset[int], dict[int, ObservedQueue]] = {}  # ports with the same lossless queues share
    out: dict[str, ObservedSwitchPort] = {}
    for name, port in observed.ports.items():
        lossless = _lossless_queues(shown.qos, shown.ports[name])
        queues = queues_for.get(lossless)
        if queues is None:
            queues = queues_for[lossless] = {qid: q.model_copy(update={"lossless": qid in lossless})
                                             for qid, q in (qos.queues or {}).items()}
        update = {**maps, "queues": queues}
        if port.pfc_watchdog:  # the ports with a PFC_WD entry; the others' absence is pfc_watchdog's to report
            update["watchdog"] = watchdog
        out[name] = port.model_copy(update=update)
    return out


def _lossless_queues(qos: SwitchQos, port: SwitchPort) -> frozenset[int]:
    """The queues the port's PFC priorities map to: the ones its BUFFER_QUEUE makes lossless."""
    to_queue = qos.pfc_priority_to_queue
    return frozenset(to_queue[p] for p in port.pfc_priorities if p in to_queue)


def _updated(model: _Model, update: dict[str, Any]) -> _Model:
    """``model.model_copy(update=update)``, or ``model`` itself where that copy would equal it in every field
    and in ``model_fields_set`` (the intent's ports, queues and neighbours mostly are as CONFIG_DB holds them)."""
    fields = model.model_fields_set
    for key, value in update.items():
        old = getattr(model, key)
        if key not in fields or type(old) is not type(value) or old != value:
            return model.model_copy(update=update)
    return model
