"""Cumulus Linux (NVUE) lab personality; the implementation lives in the platform's room."""

from __future__ import annotations

from roceops.lab.devices.cumulus.device import CumulusSession, CumulusState
from roceops.lab.personality import register_personality

register_personality("cumulus", CumulusState, CumulusSession)
