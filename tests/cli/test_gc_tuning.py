"""run_gc: the collection before freezing can be skipped (render: only acyclic objects since the last one), and
the collector's settings are restored afterwards either way."""

from __future__ import annotations

import gc

import pytest

from roceops.cli.gc_tuning import RUN_GC_THRESHOLDS, run_gc


@pytest.mark.parametrize("collect", [True, False])
def test_run_gc_collects_only_when_asked_and_restores_the_settings(collect: bool,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(gc, "collect", lambda *args: calls.append(args) or 0)
    before = gc.get_threshold(), gc.isenabled()
    with run_gc(acyclic=True, collect=collect):
        assert gc.get_threshold() == RUN_GC_THRESHOLDS and not gc.isenabled()
    assert (gc.get_threshold(), gc.isenabled()) == before
    assert calls == ([()] if collect else [])
