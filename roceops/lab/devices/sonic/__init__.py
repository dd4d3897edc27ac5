"""``sonic``: the SONiC switch personality (see :mod:`roceops.lab.devices.sonic.device`)."""

from __future__ import annotations

from roceops.lab.devices.sonic.device import SonicSession, SonicState
from roceops.lab.personality import register_personality

register_personality("sonic", SonicState, SonicSession)
