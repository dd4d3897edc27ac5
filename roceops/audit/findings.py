"""Audit findings: one per (device, path), with the check that found it and a one-line fix."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Severity = Literal["error", "warning"]
Status = Literal["new", "persisting", "resolved"]


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    check: str  # e.g. config.drift, pfc.mismatch, lldp.neighbor, bgp.session, device.unreachable
    device: str
    path: str  # e.g. ports[Ethernet0].pfc_priorities; "" for device-level findings
    expected: Any = None
    observed: Any = None
    severity: Severity = "error"
    message: str = ""
    hint: str = ""
    status: Status = "new"
    context: list[str] = []

    @property
    def key(self) -> tuple[str, str]:
        return (self.device, self.path)


UNREACHABLE_CHECKS = ("device.unreachable", "device.timeout", "device.unparsable", "device.failed")
"""Findings that say a device was not (fully) audited: never read as "no drift" (exit code 2)."""
