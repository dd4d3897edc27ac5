"""compare(expected, observed): structural diff of two Observed models (roceops.device.observed).

``expected`` is the platform driver's ``expected(intent)``: the intent as that platform shows it, every field
set. ``observed`` is what the platform's parsers read from the device. Only what the parser could see is
compared: a field left unset in ``observed`` means "not observable on this platform", while an entry missing
from a *map* of entities (ports, NICs, queues, map entries) is real drift. A per-port copy of a device-wide
setting (``ports[Ethernet0].queues``) is compared port by port, so every departing port is its own drift.
An *open* map (:func:`roceops.device.observed.open_map`: the device's ports, NICs, sysctls, ...) holds more on
the device than roceops manages: its extra entries are not drift.

Most values compared are equal (a DSCP map, a port's MTU, a queue): one ``==`` settles those; only unequal
values are walked field by field or entry by entry.

>>> from roceops.device.observed import ObservedQueue
>>> want = ObservedQueue(scheduler="dwrr", weight=50, lossless=True)
>>> [d.path for d in compare(want, ObservedQueue(scheduler="strict"))]
['scheduler']
>>> compare(want, ObservedQueue())  # nothing observable: nothing to report
[]
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from roceops.device.observed import open_fields

DriftKind = Literal["mismatch", "missing", "unexpected"]


@dataclass(frozen=True)
class Drift:
    path: str
    expected: Any
    observed: Any
    kind: DriftKind


def _norm(value: Any) -> Any:
    """A value as a report shows it: models as JSON (only the fields that were set), maps with string keys."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _norm(v) for k, v in value.items()}
    return value


def _plain_equal(exp_val: Any, obs_val: Any) -> bool:
    """True when :func:`_compare_value` would find no drift, known by one ``==``: both sides are validated to the
    same field types, so equal values (models: every field equal) have nothing to report."""
    return exp_val is obs_val or bool(exp_val == obs_val)


def compare(expected: BaseModel, observed: BaseModel, path: str = "",
            skip: Collection[str] = ()) -> list[Drift]:
    """Every departure of ``observed`` from ``expected`` (two models of one Observed class), in field order.

    ``skip`` names top-level fields to leave out (what a deploy did not set).
    """
    return _compare_models(expected, observed, path, skip, set())


def _compare_models(expected: BaseModel, observed: BaseModel, path: str, skip: Collection[str],
                    same: set[tuple[int, int]]) -> list[Drift]:
    """:func:`compare`; ``same`` holds the (expected, observed) object pairs already found equal in this call:
    the ports of a switch share their maps and queue objects on both sides, so each pair is walked once."""
    out: list[Drift] = []
    # the attributes behind model_fields_set and model_fields (pydantic's properties cost more than the lookups)
    wanted, seen = expected.__pydantic_fields_set__, observed.__pydantic_fields_set__
    exp_values, obs_values = expected.__dict__, observed.__dict__  # the fields' values, as getattr would give
    for name, is_open in _fields(type(expected)):
        if name not in seen or name not in wanted or name in skip:
            continue
        exp_val = exp_values[name]
        obs_val = obs_values[name]
        if (id(exp_val), id(obs_val)) in same or _plain_equal(exp_val, obs_val):
            continue
        out.extend(_compare_value(exp_val, obs_val, f"{path}.{name}" if path else name, same, is_open))
    return out


@cache
def _fields(cls: type[BaseModel]) -> tuple[tuple[str, bool], ...]:
    """``cls``'s fields in order, each with whether it is an open map (:func:`open_fields`)."""
    open_names = open_fields(cls)
    return tuple((name, name in open_names) for name in cls.model_fields)


def _compare_value(exp_val: Any, obs_val: Any, path: str, same: set[tuple[int, int]],
                   is_open: bool = False) -> list[Drift]:
    pair = (id(exp_val), id(obs_val))
    if pair in same:
        return []
    if isinstance(exp_val, BaseModel) and isinstance(obs_val, BaseModel):
        out = _compare_models(exp_val, obs_val, path, (), same)
    elif isinstance(exp_val, dict) and isinstance(obs_val, dict):
        out = _compare_map(exp_val, obs_val, path, same, is_open)
    else:
        return [Drift(path, _norm(exp_val), _norm(obs_val), "mismatch")] if _norm(exp_val) != _norm(obs_val) else []
    if not out:
        same.add(pair)
    return out


def _compare_map(exp: dict[Any, Any], obs: dict[Any, Any], path: str, same: set[tuple[int, int]],
                 is_open: bool = False) -> list[Drift]:
    """Entry by entry; an open map's extra entries are the device's own (and so are those of plain maps in it)."""
    out: list[Drift] = []
    for key, exp_val in exp.items():
        if key not in obs:
            out.append(Drift(f"{path}[{key}]", _norm(exp_val), None, "missing"))
            continue
        obs_val = obs[key]
        if (id(exp_val), id(obs_val)) in same or _plain_equal(exp_val, obs_val):
            continue
        out.extend(_compare_value(exp_val, obs_val, f"{path}[{key}]", same, is_open))
    if not is_open:
        out.extend(Drift(f"{path}[{key}]", None, _norm(obs_val), "unexpected")
                   for key, obs_val in obs.items() if key not in exp)
    return out
