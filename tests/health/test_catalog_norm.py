"""nic.roce compares settings through catalog._norm; its fast path (scalars not passed down) equals the plain
recursion on nested values."""

from __future__ import annotations

import random
from typing import Any

from roceops.health.catalog import _norm


def _reference(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _reference(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted(_reference(v) for v in value)
    return value


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.choice(["int", "str", "none", "bool"] + (["dict", "list"] * 2 if depth < 3 else []))
    if kind == "dict":
        return {rng.choice([rng.randint(0, 63), f"k{rng.randint(0, 9)}"]): _value(rng, depth + 1)
                for _ in range(rng.randint(0, 6))}
    if kind == "list":  # lists of one kind, as settings are (sortable)
        return [rng.randint(0, 9) for _ in range(rng.randint(0, 5))] if rng.random() < 0.7 else \
            [[rng.randint(0, 3)] for _ in range(rng.randint(0, 3))]
    return {"int": rng.randint(0, 63), "str": "dscp", "none": None, "bool": True}[kind]


def test_norm_equals_the_plain_recursion() -> None:
    rng = random.Random(29)
    for _ in range(2000):
        value = _value(rng, 0)
        assert _norm(value) == _reference(value)
    dscp_map = {d: d // 8 for d in range(64)}
    assert _norm(dscp_map) == {str(d): d // 8 for d in range(64)}
