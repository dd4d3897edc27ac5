"""``sonic``: the SONiC switch personality (see :mod:`roceops.lab.devices.sonic.device`)."""

from __future__ import annotations

from roceops.lab.devices.sonic import gnmi
from roceops.lab.devices.sonic.device import SonicSession, SonicState
from roceops.lab.personality import Personality

# the lab serves it where Platform.lab_device names this package; gnmi: its COUNTERS_DB paths (gnmi.py)
DEVICE = Personality(SonicState, SonicSession, gnmi=gnmi.answer)
