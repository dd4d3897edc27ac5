"""``sonic``: the SONiC switch personality (see :mod:`roceops.lab.devices.sonic.device`)."""

from __future__ import annotations

from roceops.lab.devices.sonic.device import SonicSession, SonicState
from roceops.lab.personality import Personality

# served where Platform.lab_device names this package; `lab up --routing` hands it its bgpd vty socket
DEVICE = Personality(SonicState, SonicSession, reads_bgp_vty=True)
