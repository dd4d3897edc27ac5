"""compare's per-class field table (``_fields``, cached) lists every Observed class's fields in model order, each
with whether it is an open map, exactly as ``model_fields`` and ``open_fields`` say."""

from __future__ import annotations

import inspect

from pydantic import BaseModel

from roceops.device import observed
from roceops.device.compare import _fields
from roceops.device.observed import open_fields


def test_field_table_is_model_fields_and_open_fields() -> None:
    classes = [c for _, c in inspect.getmembers(observed, inspect.isclass)
               if issubclass(c, BaseModel) and c.__module__ == observed.__name__]
    assert len(classes) > 10
    for cls in classes:
        assert _fields(cls) == tuple((name, name in open_fields(cls)) for name in cls.model_fields)
    assert ("ports", True) in _fields(observed.ObservedSwitch)  # an open map
