"""``eos``: the Arista EOS personality (Netmiko type ``arista_eos``); see :mod:`roceops.lab.devices.eos.device`."""

from __future__ import annotations

from roceops.lab.devices.eos.device import EosCli, EosState
from roceops.lab.personality import Personality

DEVICE = Personality(EosState, EosCli)  # the lab serves it where Platform.lab_device names this package
