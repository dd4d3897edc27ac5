"""``sonic``: the SONiC switch personality (see :mod:`roceops.lab.devices.sonic.device`)."""

from __future__ import annotations

from roceops.lab.devices.sonic.device import SonicSession, SonicState
from roceops.lab.personality import Personality

DEVICE = Personality(SonicState, SonicSession)  # the lab serves it where Platform.lab_device names this package
