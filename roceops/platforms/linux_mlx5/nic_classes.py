"""A NIC's render context made once per class of NICs and copied per host with the host's own values.

Every host of a fabric has the same NICs but for their address, gateway, leaf, leaf port and routes, and
:func:`~roceops.platforms.linux_mlx5.render.nic_context` does not read the gateway and reads each of the others for
one field only (``address`` and ``source_ip``, ``leaf``, ``leaf_port``, ``routes``), every other field from the rest
of the NIC. So a NIC's context is the context of an earlier NIC equal in all but :data:`OWN` and :data:`NOT_READ`
(every check already passed on those values) with these fields made from this NIC by the same functions (which
still check the address and the routes). Equal to ``nic_context``'s on every host of the examples and a 2-SU lab
fabric, and for bad values: tests/platforms/linux_mlx5/test_linux_mlx5_nic_classes.py.
"""

from __future__ import annotations

import threading
from typing import Any

from roceops.device.intent import HostIntent, NicIntent
from roceops.platforms.linux_mlx5.render import NicContext, _interface, _routes, nic_context
from roceops.platforms.linux_mlx5.render import render_context as _render_context

OWN = frozenset({"address", "leaf", "leaf_port", "routes"})
"""A NIC's values of its own host's (the rest of NicIntent but :data:`NOT_READ` is the class key)."""
NOT_READ = frozenset({"gateway"})
"""Not read by ``nic_context`` (the routes carry the gateway; each host's /31 has its own)."""
_KEYED = frozenset({"netdev", "rdma_dev", "rail", "plane", "speed", "mtu", "table", "trust", "pfc_priorities",
                    "dscp_to_priority", "prio_tc", "tc_bandwidth", "strict_tcs", "dcqcn", "cnp_dscp", "cnp_priority",
                    "roce_tos", "roce_mode"})
if set(NicIntent.model_fields) != OWN | NOT_READ | _KEYED:  # a new field must be put in one of them
    raise RuntimeError("NicIntent's fields changed: update nic_classes._class_key")
_CLASSES_KEPT = 4096  # a fabric has one class per rail and NIC layout
_classes: dict[ClassKey, dict[str, Any]] = {}  # class key -> the fields of a NicContext
_ADDING = threading.Lock()


class ClassKey:
    """A tuple as a dict key, hashed by its first ``hashed`` values only (equal tuples have equal hashes, so lookups
    are as with the tuple; it spares hashing long tuples of pairs, which Python does not cache, on every lookup)."""

    __slots__ = ("_hash", "values")

    def __init__(self, values: tuple[Any, ...], hashed: int) -> None:
        self.values = values
        self._hash = hash(values[:hashed])

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassKey) and self.values == other.values


def _class_key(nic: NicIntent) -> ClassKey:
    """Every field of the NIC but :data:`OWN` and :data:`NOT_READ`, hashed by its single values."""
    d = nic.dcqcn
    return ClassKey((nic.netdev, nic.rdma_dev, nic.rail, nic.plane, nic.speed, nic.mtu, nic.table, nic.trust,
                     nic.cnp_dscp, nic.cnp_priority, nic.roce_tos, nic.roce_mode, tuple(nic.pfc_priorities),
                     tuple(nic.dscp_to_priority.items()), tuple(nic.prio_tc.items()), tuple(nic.tc_bandwidth.items()),
                     tuple(nic.strict_tcs), tuple(d.np_enabled), tuple(d.rp_enabled), tuple(d.np.items()),
                     tuple(d.rp.items())), 12)


def nic_context_of_class(nic: NicIntent) -> NicContext:
    """:func:`~roceops.platforms.linux_mlx5.render.nic_context` (equal value; raises the same ValueError)."""
    key = _class_key(nic)
    fields = _classes.get(key)
    if fields is None:
        made = nic_context(nic)
        with _ADDING:  # the audit's threads: one evicts at a time
            if len(_classes) >= _CLASSES_KEPT:
                _classes.pop(next(iter(_classes)), None)
            _classes[key] = vars(made)
        return made
    address, source_ip = _interface(nic.address)
    routes = _routes(nic)
    out = object.__new__(NicContext)  # a frozen dataclass: its fields set as its __init__ sets them
    vars(out).update(fields)
    vars(out).update(address=address, source_ip=source_ip, leaf=nic.leaf, leaf_port=nic.leaf_port, routes=routes)
    return out


def render_context(host: HostIntent) -> dict[str, Any]:
    """``render.render_context`` with each NIC's context made by :func:`nic_context_of_class`."""
    return _render_context(host, nic_context_of_class)


def host_context(device: Any) -> dict[str, Any]:
    """The render context of a HostIntent (this platform renders hosts only)."""
    if not isinstance(device, HostIntent):
        raise TypeError(f"linux_mlx5 renders HostIntent, got {type(device).__name__}")
    return render_context(device)
