"""compare(expected, observed): structural diff of a DeviceIntent against observed state.

``expected`` is the planned DeviceIntent (a pydantic model); ``observed`` is the
partial dict a platform parser produced in the same JSON shape. Only what the
parser could see is compared: an object field missing from ``observed`` means
"not observable on this platform", while an entry missing from a *map* of
entities (ports, NICs, queues, map entries) is real drift.

Most values compared are equal scalars (the 64 entries of a DSCP map, a port's MTU) or lists of them:
those are settled by one ``==`` where both sides are plain ``int``/``str``/``float``/``bool``/``None`` (which
:func:`_norm` leaves as they are), or lists of them; everything else goes through the general path.

>>> from roceops.plan.model import QueueIntent
>>> [d.path for d in compare(QueueIntent(scheduler="dwrr", weight=50), {"scheduler": "strict"})]
['scheduler']
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

DriftKind = Literal["mismatch", "missing", "unexpected"]

_SCALARS = frozenset({int, str, float, bool, type(None)})  # exact types: _norm returns them unchanged


@dataclass(frozen=True)
class Drift:
    path: str
    expected: Any
    observed: Any
    kind: DriftKind


def _is_map(annotation: Any) -> bool:
    if get_origin(annotation) is dict:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_is_map(a) for a in get_args(annotation))
    return False


def _map_value_type(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        for a in get_args(annotation):
            if _is_map(a):
                return _map_value_type(a)
    args = get_args(annotation)
    return args[1] if len(args) == 2 else Any


_MAP_INFO: dict[Any, tuple[bool, Any]] = {}
_FIELDS: dict[type[BaseModel], tuple[tuple[str, Any], ...]] = {}


def _map_info(annotation: Any) -> tuple[bool, Any]:
    """(:func:`_is_map`, :func:`_map_value_type`) of an annotation, worked out once per annotation."""
    try:
        return _MAP_INFO[annotation]
    except KeyError:
        info = _MAP_INFO[annotation] = (_is_map(annotation), _map_value_type(annotation))
        return info
    except TypeError:  # an unhashable annotation: not remembered
        return _is_map(annotation), _map_value_type(annotation)


def _fields(cls: type[BaseModel]) -> tuple[tuple[str, Any], ...]:
    """(name, annotation) of a model class's fields, in order."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple((name, field.annotation) for name, field in cls.model_fields.items())
    return fields


def _norm(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _norm(v) for k, v in value.items()}
    return value


def _plain_equal(exp_val: Any, obs_val: Any) -> bool:
    """True when :func:`_compare_value` would find no drift, known without normalising: equal plain scalars,
    or equal lists of plain scalars (False means: ask :func:`_compare_value`)."""
    exp_type, obs_type = type(exp_val), type(obs_val)
    if exp_type in _SCALARS:
        return obs_type in _SCALARS and exp_val == obs_val
    if exp_type is list and obs_type is list:
        return exp_val == obs_val and all(type(v) in _SCALARS for v in exp_val) and all(
            type(v) in _SCALARS for v in obs_val)
    return False


def compare(expected: BaseModel, observed: dict[str, Any], path: str = "") -> list[Drift]:
    out: list[Drift] = []
    for name, annotation in _fields(type(expected)):
        if name not in observed:
            continue
        exp_val = getattr(expected, name)
        obs_val = observed[name]
        if _plain_equal(exp_val, obs_val):
            continue
        out.extend(_compare_value(annotation, exp_val, obs_val, f"{path}.{name}" if path else name))
    return out


def _compare_value(annotation: Any, exp_val: Any, obs_val: Any, path: str) -> list[Drift]:
    if isinstance(exp_val, BaseModel) and isinstance(obs_val, dict):
        return compare(exp_val, obs_val, path)
    if isinstance(exp_val, dict) and isinstance(obs_val, dict):
        is_map, value_type = _map_info(annotation)
        if is_map:
            return _compare_map(value_type, exp_val, obs_val, path)
    if _norm(exp_val) != _norm(obs_val):
        return [Drift(path, _norm(exp_val), _norm(obs_val), "mismatch")]
    return []


def _plain_map_equal(exp: dict[Any, Any], obs: dict[Any, Any]) -> bool:
    """True when :func:`_compare_map` would find no drift, known without its per-key walk: equal maps whose keys
    are all ``int`` or all ``str`` (``str(key)`` then keeps them apart) and whose values are plain scalars."""
    if len(exp) != len(obs) or exp != obs:
        return False
    key_types = set(map(type, exp)) | set(map(type, obs))
    if not (key_types <= {int} or key_types <= {str}):
        return False
    return set(map(type, exp.values())) | set(map(type, obs.values())) <= _SCALARS


def _compare_map(value_type: Any, exp: dict[Any, Any], obs: dict[Any, Any], path: str) -> list[Drift]:
    if _plain_map_equal(exp, obs):
        return []
    out: list[Drift] = []
    exp_s = {str(k): v for k, v in exp.items()}
    obs_s = {str(k): v for k, v in obs.items()}
    for key, exp_val in exp_s.items():
        if key not in obs_s:
            out.append(Drift(f"{path}[{key}]", _norm(exp_val), None, "missing"))
            continue
        obs_val = obs_s[key]
        if _plain_equal(exp_val, obs_val):
            continue
        out.extend(_compare_value(value_type, exp_val, obs_val, f"{path}[{key}]"))
    for key in obs_s:
        if key not in exp_s:
            out.append(Drift(f"{path}[{key}]", None, _norm(obs_s[key]), "unexpected"))
    return out
