"""Configuration-level faults of the lab's Cumulus switch: what an operator typing ``nv set`` would break.

Each fault commits a new applied revision (as ``nv set ...`` + ``nv config apply`` by ``cumulus``),
so ``nv config show -o commands``, the audit and ``nv config revision`` all see it, and a re-deploy
repairs it. ``clear_faults`` does not undo them (only ``reject_config`` and the operational faults
stop).

=============  ==========================  ====================================================
fault          params                      change
=============  ==========================  ====================================================
pfc_off        port=, priority= (opt.)     no port: the switch priority leaves the global PFC
                                           profile (all lossless ones without ``priority``); with
                                           ``port``: the port is bound to a new PFC profile
                                           ``pfc-<port>`` without it (NVUE PFC is per profile)
ecn_changed    min=, max= bytes (opt.)     ECN thresholds of the lossless traffic class
                                           (default: half the current values)
mtu_mismatch   port= (opt.), mtu=1500      ``interface <port> link mtu`` (default: first swp)
ar_off         port= (opt.)                ``interface <port> router adaptive-routing enable off``
                                           (default: the first swp with it on, else the first swp)
hash_seed      seed= (opt.)                ``system forwarding hash-seed <seed>`` (default: the
                                           current seed + 1, or 1 when none is set)
reject_config  (none)                      ``nv set``/``nv unset``/``nv config apply`` fail with
                                           ``Invalid config [rev_id: N]`` / ``Config invalid at ...``
=============  ==========================  ====================================================

The operational faults ``link_down``/``link_flap``/``pause_storm``/``crc_errors`` (``port=``
optional) go to :class:`roceops.lab.physical.Physical`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.cumulus.schema import MEMBER, Tree, intern_path
from roceops.lab.devices.cumulus.view import PRESET_ECN, PROFILE, sub
from roceops.lab.personality import LabError
from roceops.lab.physical import OPER_FAULTS as _PHYSICAL_FAULTS
from roceops.util.sorting import port_key

if TYPE_CHECKING:
    from roceops.lab.devices.cumulus.state import CumulusStateCore

CONFIG_FAULTS = frozenset({"pfc_off", "ecn_changed", "mtu_mismatch", "ar_off", "hash_seed", "reject_config"})
OPER_FAULTS = frozenset(_PHYSICAL_FAULTS)
PARAMS = {"pfc_off": {"port", "priority"}, "ecn_changed": {"min", "max"}, "mtu_mismatch": {"port", "mtu"},
          "ar_off": {"port"}, "hash_seed": {"seed"}, "reject_config": set()}
SEED_MAX = 4294967295  # NVUE: "a hash seed value between 0 and 4294967295"


def _int(fault: str, params: Mapping[str, Any], key: str, default: int | None, lo: int, hi: int) -> int | None:
    value = params.get(key, default)
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise LabError(f"fault '{fault}': parameter '{key}' must be an integer") from None
    if not lo <= number <= hi:
        raise LabError(f"fault '{fault}': parameter '{key}' must be between {lo} and {hi}")
    return number


def _port(state: CumulusStateCore, fault: str, params: Mapping[str, Any], default_first: bool) -> str | None:
    port = params.get("port")
    if port is None:
        return next(iter(sorted(state.physical.ports, key=port_key)), None) if default_first else None
    if str(port) not in state.physical.ports:
        raise LabError(f"fault '{fault}': {state.name} has no port {port!r}")
    return str(port)




def apply_config_fault(state: CumulusStateCore, fault: str, params: Mapping[str, Any]) -> None:
    bad = sorted(set(params) - PARAMS[fault])
    if bad:
        allowed = ", ".join(sorted(PARAMS[fault])) or "no parameters"
        raise LabError(f"fault '{fault}' takes {allowed} (got: {', '.join(bad)})")
    if fault == "reject_config":
        return
    if fault == "mtu_mismatch":
        port = _port(state, fault, params, default_first=True)
        mtu = _int(fault, params, "mtu", 1500, 552, 9216)
        if port is None:
            raise LabError(f"fault '{fault}': {state.name} has no ports")
        state.operator_change(lambda t: t.__setitem__(intern_path(("interface", port, "link", "mtu")), str(mtu)))
    elif fault == "pfc_off":
        _pfc_off(state, _port(state, fault, params, default_first=False),
                 _int(fault, params, "priority", None, 0, 7))
    elif fault == "ecn_changed":
        _ecn_changed(state, _int(fault, params, "min", None, 0, 2**32 - 1), _int(fault, params, "max", None, 0,
                                                                                2**32 - 1))
    elif fault == "ar_off":
        _ar_off(state, _port(state, fault, params, default_first=False))
    elif fault == "hash_seed":
        _hash_seed(state, _int(fault, params, "seed", None, 0, SEED_MAX))


def _ar_off(state: CumulusStateCore, port: str | None) -> None:
    """An operator turns adaptive routing off on one port (the global enable stays)."""
    # 5.15+ renamed the leaf to `state enabled|disabled` (schema.RENAMED_515, source there)
    leaf, on_word, off_word = ("state", "enabled", "disabled") if state.new_words else ("enable", "on", "off")
    if port is None:
        ports = sorted(state.physical.ports, key=port_key)
        on = [p for p in ports if state.applied.get(("interface", p, "router", "adaptive-routing", leaf)) == on_word]
        port = next(iter(on or ports), None)
    if port is None:
        raise LabError(f"fault 'ar_off': {state.name} has no ports")
    name = port
    state.operator_change(lambda t: _set(t, ("interface", name, "router", "adaptive-routing", leaf), off_word))


def _hash_seed(state: CumulusStateCore, seed: int | None) -> None:
    """An operator sets another ECMP hash seed (on a real switch the apply restarts switchd)."""
    current = state.applied.get(("system", "forwarding", "hash-seed"))
    new = seed if seed is not None else (int(current) + 1) % (SEED_MAX + 1) if current else 1
    state.operator_change(lambda t: _set(t, ("system", "forwarding", "hash-seed"), str(new)))


def _set(tree: Tree, path: tuple[str, ...], value: str) -> None:
    tree[intern_path(path)] = value


def _pfc_off(state: CumulusStateCore, port: str | None, priority: int | None) -> None:
    view = state.view()
    profile_name = view.ports[port].pfc_profile if port else PROFILE
    profile = view.pfc.get(profile_name)
    current = list(profile.priorities) if profile else []
    drop = [priority] if priority is not None else current
    remaining = [p for p in current if p not in drop]

    def edit(tree: Tree) -> None:
        target = f"pfc-{port}" if port else PROFILE
        for key in [k for k in tree if k[:3] == ("qos", "pfc", target)]:
            del tree[key]
        for sp in remaining:
            tree[intern_path(("qos", "pfc", target, "switch-priority", str(sp)))] = MEMBER
        _set(tree, ("qos", "pfc", target, "tx"), "enable" if not profile or profile.tx else "disable")
        _set(tree, ("qos", "pfc", target, "rx"), "enable" if not profile or profile.rx else "disable")
        if profile and profile.cable_length:
            _set(tree, ("qos", "pfc", target, "cable-length"), str(profile.cable_length))
        if port:
            _set(tree, ("interface", port, "qos", "pfc", "profile"), target)

    state.operator_change(edit)


def _ecn_changed(state: CumulusStateCore, lo: int | None, hi: int | None) -> None:
    view = state.view()
    lossless = view.lossless_tcs() or sorted({view.sp_to_tc.get(int(p), int(p))
                                              for p in state.extra.get("lossless", (3,))})
    tc = lossless[0]
    current = view.ecn.get(tc)
    old_lo = current.min_bytes if current and current.min_bytes is not None else PRESET_ECN[0]
    old_hi = current.max_bytes if current and current.max_bytes is not None else PRESET_ECN[1]
    new_lo = lo if lo is not None else max(1, old_lo // 2)
    new_hi = hi if hi is not None else max(new_lo + 1, old_hi // 2)

    def edit(tree: Tree) -> None:
        base = ("qos", "congestion-control", PROFILE, "traffic-class")
        if not sub(tree, ("qos", "congestion-control", PROFILE)):  # preset in force: write it out first
            for t, e in view.ecn.items():
                _set(tree, (*base, str(t), "ecn"), "enable" if e.ecn else "disable")
                for leaf, val in (("min-threshold", e.min_bytes), ("max-threshold", e.max_bytes),
                                  ("probability", e.probability)):
                    if val is not None:
                        _set(tree, (*base, str(t), leaf), str(val))
        _set(tree, (*base, str(tc), "ecn"), "enable")
        _set(tree, (*base, str(tc), "min-threshold"), str(new_lo))
        _set(tree, (*base, str(tc), "max-threshold"), str(new_hi))
        if current is None or current.probability is None:
            _set(tree, (*base, str(tc), "probability"), str(PRESET_ECN[2]))

    state.operator_change(edit)
