"""Cumulus Linux (NVUE) lab personality; the implementation lives in the platform's room."""

from __future__ import annotations

from roceops.lab.devices.cumulus.device import CumulusSession, CumulusState
from roceops.lab.personality import Personality

DEVICE = Personality(CumulusState, CumulusSession)  # the lab serves it where Platform.lab_device names this package
