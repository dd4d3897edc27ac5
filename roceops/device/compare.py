"""compare(expected, observed): structural diff of two Observed models (roceops.device.observed).

``expected`` is the platform driver's ``expected(intent)``: the intent as that platform shows it, every field
set. ``observed`` is what the platform's parsers read from the device. Only what the parser could see is
compared: a field left unset in ``observed`` means "not observable on this platform", while an entry missing
from a *map* of entities (ports, NICs, queues, map entries) is real drift. A per-port copy of a device-wide
setting (``ports[Ethernet0].queues``) is compared port by port, so every departing port is its own drift.
An *open* map (:func:`roceops.device.observed.open_map`: the device's ports, NICs, sysctls, ...) holds more on
the device than roceops manages: its extra entries are not drift.

Most values compared are equal (a DSCP map, a port's MTU, a queue): one ``==`` settles those; only unequal
values are walked field by field or entry by entry. A model's fields that hold no model are compared in one
tuple ``==``; models and maps of models are walked straight away (their ``==`` also compares fields the
observed side leaves unset, so it fails where the walk finds no drift).

>>> from roceops.device.observed import ObservedQueue
>>> want = ObservedQueue(scheduler="dwrr", weight=50, lossless=True)
>>> [d.path for d in compare(want, ObservedQueue(scheduler="strict"))]
['scheduler']
>>> compare(want, ObservedQueue())  # nothing observable: nothing to report
[]
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any, Literal, get_args

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


def _settled(exp_val: Any, obs_val: Any, walk_maps: bool = False) -> bool:
    """:func:`_plain_equal`, but False for a model (and with ``walk_maps`` a map: a field's map of models), which is
    left to the walk: a model's ``==`` compares the fields one side leaves unset too, so it mostly fails where
    the walk finds nothing, and the walk finds nothing wherever it holds. A list (of models too) takes ``==``."""
    if exp_val is obs_val:
        return True
    if isinstance(exp_val, BaseModel) or (walk_maps and isinstance(exp_val, dict)):
        return False
    return bool(exp_val == obs_val)


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
    # the attributes behind model_fields_set and model_fields (pydantic's properties cost more than the lookups)
    both = expected.__pydantic_fields_set__ & observed.__pydantic_fields_set__
    if skip:
        both.difference_update(skip)
    plain, nested, every = _walk(type(expected), frozenset(both))
    exp_values, obs_values = expected.__dict__, observed.__dict__  # the fields' values, as getattr would give
    # fields that hold no model compare equal (one C-level tuple ``==``) when they have nothing to report
    if plain is not None and plain(exp_values) != plain(obs_values):
        return _compare_fields(exp_values, obs_values, every, path, same)
    out: list[Drift] = []
    for name, is_open in nested:
        exp_val = exp_values[name]
        obs_val = obs_values[name]
        if (id(exp_val), id(obs_val)) in same or _settled(exp_val, obs_val, walk_maps=True):
            continue
        out.extend(_compare_value(exp_val, obs_val, f"{path}.{name}" if path else name, same, is_open))
    return out


def _compare_fields(exp_values: dict[str, Any], obs_values: dict[str, Any], fields: tuple[tuple[str, bool], ...],
                    path: str, same: set[tuple[int, int]]) -> list[Drift]:
    """The ``fields`` one by one, each settled by ``==`` or walked (where a plain field departs)."""
    out: list[Drift] = []
    for name, is_open in fields:
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


_Walk = tuple[Callable[[dict[str, Any]], Any] | None, tuple[tuple[str, bool], ...], tuple[tuple[str, bool], ...]]


@lru_cache(maxsize=4096)
def _walk(cls: type[BaseModel], names: frozenset[str]) -> _Walk:
    """How :func:`_compare_models` walks the fields ``names`` of ``cls`` (those both sides set): a getter of the
    values of the fields that hold no model (None if none), then the fields that may hold one, then all of
    them, each in field order with whether it is an open map."""
    every = tuple(f for f in _fields(cls) if f[0] in names)
    flat = {name for name, _ in every if not _holds_model(cls.model_fields[name].annotation)}
    plain = [name for name, _ in every if name in flat]
    return (itemgetter(*plain) if plain else None, tuple(f for f in every if f[0] not in flat), every)


def _holds_model(annotation: Any) -> bool:
    """Whether a field of this annotation can hold a model (itself, or in a list, map or union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_model(a) for a in get_args(annotation))


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
        if (id(exp_val), id(obs_val)) in same or _settled(exp_val, obs_val):
            continue
        out.extend(_compare_value(exp_val, obs_val, f"{path}[{key}]", same, is_open))
    if not is_open:
        out.extend(Drift(f"{path}[{key}]", None, _norm(obs_val), "unexpected")
                   for key, obs_val in obs.items() if key not in exp)
    return out
