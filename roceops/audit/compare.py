"""compare(expected, observed): structural diff of a DeviceIntent against observed state.

``expected`` is the planned DeviceIntent (a pydantic model); ``observed`` is the
partial dict a platform parser produced in the same JSON shape. Only what the
parser could see is compared: an object field missing from ``observed`` means
"not observable on this platform", while an entry missing from a *map* of
entities (ports, NICs, queues, map entries) is real drift.

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


def _norm(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _norm(v) for k, v in value.items()}
    return value


def compare(expected: BaseModel, observed: dict[str, Any], path: str = "") -> list[Drift]:
    out: list[Drift] = []
    for name, field in type(expected).model_fields.items():
        if name not in observed:
            continue
        sub = f"{path}.{name}" if path else name
        exp_val = getattr(expected, name)
        obs_val = observed[name]
        out.extend(_compare_value(field.annotation, exp_val, obs_val, sub))
    return out


def _compare_value(annotation: Any, exp_val: Any, obs_val: Any, path: str) -> list[Drift]:
    if isinstance(exp_val, BaseModel) and isinstance(obs_val, dict):
        return compare(exp_val, obs_val, path)
    if isinstance(exp_val, dict) and isinstance(obs_val, dict) and _is_map(annotation):
        return _compare_map(_map_value_type(annotation), exp_val, obs_val, path)
    if _norm(exp_val) != _norm(obs_val):
        return [Drift(path, _norm(exp_val), _norm(obs_val), "mismatch")]
    return []


def _compare_map(value_type: Any, exp: dict[Any, Any], obs: dict[Any, Any], path: str) -> list[Drift]:
    out: list[Drift] = []
    exp_s = {str(k): v for k, v in exp.items()}
    obs_s = {str(k): v for k, v in obs.items()}
    for key in exp_s:
        sub = f"{path}[{key}]"
        if key not in obs_s:
            out.append(Drift(sub, _norm(exp_s[key]), None, "missing"))
        else:
            out.extend(_compare_value(value_type, exp_s[key], obs_s[key], sub))
    for key in obs_s:
        if key not in exp_s:
            out.append(Drift(f"{path}[{key}]", None, _norm(obs_s[key]), "unexpected"))
    return out
