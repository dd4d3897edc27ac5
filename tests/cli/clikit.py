"""Fixtures the CLI tests share (imported by name: `from clikit import no_devices`)."""

from __future__ import annotations

from typing import Any

import pytest

import roceops.cli.audit_cmds as audit_cmds
import roceops.cli.health_cmds as health_cmds


@pytest.fixture
def no_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    """audit and health fail the test if they get as far as contacting a device."""
    def contacted(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a device was contacted")
    monkeypatch.setattr(audit_cmds, "run_audit", contacted)
    monkeypatch.setattr(health_cmds, "run_health", contacted)
