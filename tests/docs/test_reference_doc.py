"""docs/fabric-reference.md is generated from the models; this fails when someone forgets to regenerate it."""

from __future__ import annotations

from conftest import REPO

from roceops.reference_doc import generate


def test_fabric_reference_is_current() -> None:
    committed = (REPO / "docs" / "fabric-reference.md").read_text()
    assert committed == generate(), "stale: run python -m roceops.reference_doc > docs/fabric-reference.md"


def test_reference_covers_every_top_level_key() -> None:
    from roceops.model.intent import FabricIntent

    text = generate()
    for key in FabricIntent.model_fields:
        assert f"| `{key}` |" in text
