"""Intent models the plan builds from values that are validated already, made without validating them again.

Planning a 64-SU fabric builds ~180,000 small models (ports, BGP neighbours, NICs, routes) whose every value comes
from the validated fabric or from the plan's own arithmetic; validating them again was ~10 % of rendering. pydantic's
own ``model_construct`` is no cheaper here: it walks every field's aliases, and (pydantic 2.14) inspects the signature
of each ``default_factory`` on every call. tests/plan/test_plan_construct.py plans every example fabric both ways
and requires the same models, value, type and field order.
"""

from __future__ import annotations

import copy
from functools import cache, partial
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)


_IMMUTABLE = (type(None), bool, int, float, str, bytes, tuple, frozenset)


_Defaults = tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str], frozenset[str]]


@cache
def _defaults(cls: type[BaseModel]) -> _Defaults:
    """(every field in order -> its default or None, (field, factory) pairs, the field names, the required ones)
    of ``cls``. A mutable default gets a factory that copies it, as pydantic copies such defaults."""
    ordered: dict[str, Any] = {}
    factories: list[tuple[str, Any]] = []
    required: set[str] = set()
    for name, field in cls.model_fields.items():
        ordered[name] = None
        if field.default_factory is not None:
            factories.append((name, field.default_factory))
        elif field.default is PydanticUndefined:
            required.add(name)
        elif isinstance(field.default, _IMMUTABLE):
            ordered[name] = field.default
        else:
            factories.append((name, partial(copy.deepcopy, field.default)))
    return ordered, tuple(factories), frozenset(ordered), frozenset(required)


def trusted(cls: type[M], **values: Any) -> M:
    """``cls(**values)`` without validation, for values that already have their fields' exact types: the fields
    set are the ones given, every other field gets its default (a factory's is made new), as validation does.

    Like ``model_construct``, it sets the instance's ``__dict__`` and pydantic's three slots directly."""
    ordered, factories, names, required = _defaults(cls)
    if not names.issuperset(values) or not required.issubset(values):
        raise TypeError(f"{cls.__name__}: unknown fields {sorted(set(values) - names)}, "
                        f"missing {sorted(required - set(values))}")
    data = {**ordered, **values}  # field order; the given values replace the defaults
    for name, factory in factories:
        if name not in values:
            data[name] = factory()
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", data)
    object.__setattr__(model, "__pydantic_fields_set__", set(values))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model
