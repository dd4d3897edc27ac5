"""Cumulus Linux (NVUE) lab personality; the implementation lives in the platform's room."""

from __future__ import annotations

from roceops.lab.devices.cumulus.device import CumulusSession, CumulusState
from roceops.lab.personality import Personality

# served where Platform.lab_device names this package; `lab up --routing` hands it its bgpd vty socket
DEVICE = Personality(CumulusState, CumulusSession, reads_bgp_vty=True)
