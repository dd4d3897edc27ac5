"""Cumulus Linux (NVUE) lab personality; the implementation lives in the platform's room."""

from __future__ import annotations

from roceops.lab.devices.cumulus import gnmi
from roceops.lab.devices.cumulus.device import CumulusSession, CumulusState
from roceops.lab.personality import Personality

# the lab serves it where Platform.lab_device names this package; gnmi: its OpenConfig leaves (gnmi.py)
DEVICE = Personality(CumulusState, CumulusSession, gnmi_leaves=gnmi.answer)
