"""The platform registry is the one list of platforms: rooms register by entry point, everything else derives
from it, and no product code outside a room uses that room's vocabulary."""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from roceops import registry
from roceops.device.intent import HostIntent, SwitchIntent
from roceops.lab.personality import Personality, available_platforms, get_personality
from roceops.lint.rules_overrides import is_group
from roceops.model.intent import default_port_naming
from roceops.platforms.base import Platform, get_platform
from roceops.platforms.templating import environment

REPO = Path(__file__).resolve().parents[2]
ROOMS = {"sonic", "cumulus", "eos", "linux_mlx5"}
ALLOWLIST = Path(__file__).with_name("vocabulary_allowlist.txt")


def test_the_rooms_are_registered_by_entry_point() -> None:
    assert set(registry.names()) == ROOMS
    for name in ROOMS:
        room = importlib.import_module(f"roceops.platforms.{name}")
        assert get_platform(name) is room.PLATFORM and isinstance(room.PLATFORM, Platform)
        assert room.PLATFORM.vocabulary and room.PLATFORM.show_commands and room.PLATFORM.failure_patterns


@pytest.mark.parametrize("name", sorted(ROOMS))
def test_a_platform_object_carries_its_room(name: str) -> None:
    platform = get_platform(name)
    assert (platform.port_naming is not None) == (platform.kind == "switch")
    for out in platform.outputs:
        environment(name).get_template(out.template)  # its templates exist
    assert isinstance(get_personality(name), Personality)  # its simulated device, named by the registry
    assert platform.lab_device == f"roceops.lab.devices.{name}"


def test_models_accept_exactly_the_registered_platforms_of_their_kind() -> None:
    """The pydantic platform types have no literals: they check names against the registry."""
    for name in registry.names():
        assert default_port_naming(name) if registry.kind_of(name) == "switch" else True
    field = SwitchIntent.model_fields["platform"]
    fake = replace(get_platform("eos"), name="fakeos")
    with pytest.raises(ValidationError, match="fakeos"):
        SwitchIntent.__pydantic_validator__.validate_assignment(SwitchIntent.model_construct(), "platform", "fakeos")
    registry.register(fake)
    try:
        SwitchIntent.__pydantic_validator__.validate_assignment(SwitchIntent.model_construct(), "platform", "fakeos")
        assert is_group("fakeos") and "fakeos" in available_platforms()
        with pytest.raises(ValidationError, match="'linux_mlx5'"):
            HostIntent.__pydantic_validator__.validate_assignment(HostIntent.model_construct(), "platform", "fakeos")
    finally:
        registry.unregister("fakeos")
    assert field.annotation is str and not is_group("fakeos")


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def _code_words(path: Path) -> list[tuple[int, str]]:
    """Names and string literals of a module (comments and docstrings are prose, not code)."""
    text = path.read_text()
    docs = _docstring_lines(ast.parse(text))
    kinds = {tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [(t.start[0], t.string.lower()) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type in kinds and not (t.type == tokenize.STRING and t.start[0] in docs)]


def _allowed() -> set[tuple[str, str]]:
    lines = (line.split("#", 1)[0].split() for line in ALLOWLIST.read_text().splitlines())
    return {(words[0], words[1]) for words in lines if len(words) == 2}


def test_platform_vocabulary_stays_in_its_room() -> None:
    allowed = _allowed()
    product = [p for p in (REPO / "roceops").rglob("*.py") if "lab" not in p.relative_to(REPO / "roceops").parts]
    found = []
    for name in registry.names():
        platform = get_platform(name)
        room = REPO / "roceops" / "platforms" / name
        words = [re.compile(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])") for w in platform.vocabulary]
        for path in product:
            rel = path.relative_to(REPO).as_posix()
            if path.is_relative_to(room):
                continue
            for line, token in _code_words(path):
                for word, pattern in zip(platform.vocabulary, words, strict=True):
                    if pattern.search(token) and (rel, word) not in allowed:
                        found.append(f"{rel}:{line}: {name} word {word!r} in {token[:60]}")
    assert not found, "platform vocabulary outside its room:\n" + "\n".join(found)


def test_the_allowlist_stays_small_and_current() -> None:
    allowed = _allowed()
    assert len(allowed) <= 10
    for rel, word in allowed:
        assert any(re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", t) for _, t in _code_words(REPO / rel)), \
            f"{rel} no longer uses {word!r}: drop it from {ALLOWLIST.name}"
