"""Audit findings are :class:`~roceops.report.result.Result` s: one per (device, path), with the check that found
it and a one-line fix; a warning has status ``warn``, a device that could not be audited status ``error``."""

from __future__ import annotations

UNREACHABLE_CHECKS = ("device.unreachable", "device.timeout", "device.unparsable", "device.failed")
"""Findings that say a device was not (fully) audited: never read as "no drift" (exit code 2)."""
