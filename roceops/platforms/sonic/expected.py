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

It runs once per device per audit: the intent's plain data with CONFIG_DB's changes made in it is validated
once; the ports then share the maps, queues and watchdog they hold (frozen models, validated once, never
changed in place). The result equals the previous copy-per-model path (tests/platforms/sonic/
test_sonic_expected_once.py).
"""

from __future__ import annotations

from typing import Any

from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedPfcWatchdog, ObservedQueue, ObservedSwitch, ObservedSwitchPort
from roceops.platforms.sonic.render import BufferModel, buffer_model_of
from roceops.util.sorting import ip_sort_key, prefix_key

_PORT_MAPS = ("trust", "dscp_to_tc", "tc_to_queue", "tc_to_pg", "pfc_priority_to_queue")


def expected_switch(intent: SwitchIntent, buffer_model: BufferModel | None = None) -> ObservedSwitch:
    """The ObservedSwitch a freshly deployed ``intent`` shows (``buffer_model``: the room's override)."""
    observed = ObservedSwitch.model_validate(config_db_data(intent, buffer_model))
    _add_port_copies(intent, observed)
    return observed


def config_db_data(intent: SwitchIntent, buffer_model: BufferModel | None = None) -> dict[str, Any]:
    """The intent's plain data as CONFIG_DB can hold it (the table in the module docstring, per-port copies
    aside)."""
    qos = intent.qos
    wd_on = qos.pfc_watchdog.enabled
    dynamic = buffer_model_of(intent, buffer_model) == "dynamic"
    data = intent.model_dump()
    headroom = {h["profile"] for port in data["ports"].values() for h in port["headroom"].values()} if dynamic else ()
    for port in data["ports"].values():
        prios = port["pfc_priorities"]
        port["pfc_watchdog"] = bool(port["pfc_watchdog"] and prios and wd_on)
        prios.sort()
        if dynamic:
            port["headroom"] = {}
    shown_qos = data["qos"]
    for queue in shown_qos["queues"].values():
        if queue["scheduler"] != "dwrr":
            queue["weight"] = None
    shown_qos["pools"].sort(key=lambda b: b["name"])
    shown_qos["profiles"] = sorted((b for b in shown_qos["profiles"] if not (dynamic and b["name"] in headroom)),
                                   key=lambda b: b["name"])
    shown_qos["lossless_priorities"].sort()
    bgp = data["bgp"]
    for n in bgp["neighbors"]:
        n["description"] = n["description"] or n["ip"]
    bgp["neighbors"].sort(key=lambda n: ip_sort_key(n["ip"]))
    bgp["networks"] = sorted(set(bgp["networks"]), key=prefix_key)  # BGP_GLOBALS_AF_NETWORK keys: a set
    return data


def _add_port_copies(intent: SwitchIntent, observed: ObservedSwitch) -> None:
    """Give each of ``observed``'s (new, unshared) ports the copies it holds of the device-wide QoS settings (as
    rendered): the maps, the queues and, where PFC_WD watches it, the watchdog; shared objects, never changed."""
    qos = observed.qos
    assert qos is not None and observed.ports is not None  # validated from every field of the intent
    maps = {key: getattr(qos, key) for key in _PORT_MAPS}
    wd = intent.qos.pfc_watchdog
    watchdog = ObservedPfcWatchdog(detect_ms=wd.detect_ms, restore_ms=wd.restore_ms, action=wd.action)
    to_queue = intent.qos.pfc_priority_to_queue
    # ports with the same lossless queues share their queues; with the same watchdog flag, the whole update
    copies: dict[tuple[frozenset[int], bool | None], tuple[dict[str, Any], frozenset[str]]] = {}
    queues_for: dict[frozenset[int], dict[int, ObservedQueue]] = {}
    for port in observed.ports.values():
        # the queues the port's PFC priorities map to: the ones its BUFFER_QUEUE makes lossless
        lossless = frozenset(to_queue[p] for p in port.pfc_priorities or () if p in to_queue)
        key = (lossless, port.pfc_watchdog)
        copy = copies.get(key)
        if copy is None:
            queues = queues_for.get(lossless)
            if queues is None:
                queues = queues_for[lossless] = {qid: q.model_copy(update={"lossless": qid in lossless})
                                                 for qid, q in (qos.queues or {}).items()}
            values = {**maps, "queues": queues}
            if port.pfc_watchdog:  # the ports with a PFC_WD entry; the others' absence is pfc_watchdog's to report
                values["watchdog"] = watchdog
            copy = copies[key] = (values, frozenset(values))
        _set_fields(port, *copy)


def _set_fields(port: ObservedSwitchPort, values: dict[str, Any], names: frozenset[str]) -> None:
    """Set ``values`` on a port just validated here (frozen for everyone else): what ``model_copy(update=)``
    gives, without the copy."""
    port.__dict__.update(values)
    port.__pydantic_fields_set__.update(names)
