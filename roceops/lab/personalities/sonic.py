"""``sonic``: the SONiC switch personality (see :mod:`roceops.platforms.sonic.lab`)."""

from __future__ import annotations

from roceops.lab.personality import register_personality
from roceops.platforms.sonic.lab import SonicSession, SonicState

register_personality("sonic", SonicState, SonicSession)
