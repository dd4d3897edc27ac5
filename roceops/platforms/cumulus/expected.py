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
from roceops.device.observed import ObservedSwitch
from roceops.platforms.cumulus.observe import address_key
from roceops.platforms.cumulus.render import adaptive_routing_ports, global_pfc_priorities, robustness
from roceops.util.sorting import quad_bytes


def expected(intent: Intent) -> ObservedSwitch:
    """The intent as NVUE shows it (see the module docstring), every field set.

    One validation of the intent's data with NVUE's changes made in it: what ``as_observed`` of the intent with
    those changes copied in gives (tests/platforms/cumulus/test_cumulus_audit_fast_paths.py), without a copy of
    each changed model first and of each port after.
    """
    if not isinstance(intent, SwitchIntent):
        raise TypeError("the Cumulus driver observes switches only")
    qos = intent.qos
    pfc = global_pfc_priorities(intent)
    wd = qos.pfc_watchdog
    lossless_q = {qos.tc_to_queue.get(sp, sp) for sp in pfc}
    data = intent.model_dump()
    shown_qos = data["qos"]
    shown_qos["lossless_priorities"] = pfc
    for q, queue in shown_qos["queues"].items():
        queue["lossless"] = q in lossless_q
    if wd.enabled:
        shown_qos["pfc_watchdog"]["detect_ms"] = robustness(wd.detect_ms, wd.poll_ms) * wd.poll_ms
    bgp = data["bgp"]
    bgp["neighbors"].sort(key=lambda n: fast_address_key(n["ip"]))
    bgp["networks"] = sorted(set(bgp["networks"]), key=fast_address_key)
    ar = set(adaptive_routing_ports(intent))  # SwitchPort has no per-port copy of the mode: added on this side
    for name, port in data["ports"].items():
        own = intent.ports[name]
        port["pfc_priorities"] = pfc
        port["adaptive_routing"] = name in ar
        port["pfc_watchdog"] = wd.enabled and own.pfc_watchdog and bool(own.pfc_priorities)
    return ObservedSwitch.model_validate(data)


def fast_address_key(text: str) -> tuple[int, int, int, int, str]:
    """:func:`~roceops.platforms.cumulus.observe.address_key`, read by :func:`~roceops.util.sorting.quad_bytes`
    where the address is a canonical dotted quad, else by ``address_key`` itself (the same key:
    tests/platforms/test_switch_expected_once.py)."""
    addr, _, length = text.partition("/")
    packed = quad_bytes(addr)
    if packed is None:  # 1.2.3, 010.0.0.1, IPv6, ...: address_key's answer
        return address_key(text)
    return 0, 4, int.from_bytes(packed, "big"), int(length) if length.isdecimal() else -1, text
