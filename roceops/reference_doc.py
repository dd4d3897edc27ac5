"""Generate docs/fabric-reference.md from the pydantic models (a test fails when it is stale).

Run: python -m roceops.reference_doc > docs/fabric-reference.md
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from roceops import registry
from roceops.model.intent import FabricIntent


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(repr(a) for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " \\| ".join(_type_name(a) for a in get_args(annotation))
    if origin is list:
        return f"list[{_type_name(get_args(annotation)[0])}]"
    if origin is dict:
        k, v = get_args(annotation)
        return f"map {_type_name(k)} → {_type_name(v)}"
    if getattr(annotation, "__metadata__", None) is not None:  # Annotated
        return _platforms(annotation.__metadata__) or _type_name(get_args(annotation)[0])
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation)).replace("Field", "")


def _platforms(metadata: Any) -> str | None:
    """For a platform type (its validator carries ``registry_kind``): the registered names it accepts."""
    for meta in metadata:
        if hasattr(getattr(meta, "func", None), "registry_kind"):
            return " \\| ".join(repr(n) for n in registry.names(meta.func.registry_kind))
    return None


def _constraints(field: FieldInfo) -> str:
    parts = []
    for meta in field.metadata:
        for attr, sym in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"), ("min_length", "min len"),
                          ("pattern", "pattern")):
            value = getattr(meta, attr, None)
            if value is not None:
                parts.append(f"{sym} {value}")
    return ", ".join(parts)


def _default(field: FieldInfo) -> str:
    if field.default is not PydanticUndefined:
        value = field.default
        if isinstance(value, BaseModel):
            return "(see below)"
        return "required" if value is ... else f"`{value!r}`" if value is not None else "`null`"
    if field.default_factory is not None:
        if field.default_factory in (list, dict):
            return f"`{field.default_factory()!r}`"
        value = field.default_factory()  # type: ignore[call-arg]
        return f"`{value!r}`" if isinstance(value, str | int | float | bool) else "(see below)"
    return "**required**"


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    for arg in get_args(annotation):
        found.extend(_nested_models(arg))
    return found


def _section(model: type[BaseModel], path: str, seen: dict[type[BaseModel], str], out: list[str]) -> None:
    if model in seen:
        out.append(f"### `{path}`\n\nSame keys as [`{seen[model]}`](#{_anchor(seen[model])}).\n")
        return
    seen[model] = path
    out.append(f"### `{path}`\n")
    doc = (model.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    if doc:
        out.append(doc + "\n")
    out.append("| key | type | default | constraints | description |")
    out.append("|---|---|---|---|---|")
    children: list[tuple[str, type[BaseModel]]] = []
    for name, field in model.model_fields.items():
        type_name = _platforms(field.metadata) or _type_name(field.annotation)
        out.append(f"| `{name}` | {type_name} | {_default(field)} | {_constraints(field)} | "
                   f"{(field.description or '').replace('|', '/')} |")
        for sub in _nested_models(field.annotation):
            origin = get_origin(field.annotation)
            suffix = "[]" if origin is list else "{}" if origin is dict else ""
            children.append((f"{path}.{name}{suffix}" if path != "fabric" else f"{name}{suffix}", sub))
    out.append("")
    for child_path, sub in children:
        _section(sub, child_path, seen, out)


def _anchor(path: str) -> str:
    return "".join(ch for ch in path.lower() if ch.isalnum() or ch in "-_ ").replace(" ", "-")


def generate() -> str:
    out = [
        "# fabric.yaml reference",
        "",
        "Generated from the pydantic models by `python -m roceops.reference_doc` — do not edit by hand;",
        "`tests/docs/test_reference_doc.py` fails when this file is stale. Unknown keys are errors.",
        "Sizes accept `150KB`, `1.5MB` or bytes; ECN thresholds also accept time at port speed (`10us`).",
        "Speeds accept `400G` or Mb/s.",
        "",
    ]
    _section(FabricIntent, "fabric", {}, out)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(generate(), end="")
