"""Cumulus Linux (NVUE) lab personality; the implementation lives in the platform's room."""

from __future__ import annotations

from roceops.lab.personality import register_personality
from roceops.platforms.cumulus.lab import CumulusSession, CumulusState

register_personality("cumulus", CumulusState, CumulusSession)
