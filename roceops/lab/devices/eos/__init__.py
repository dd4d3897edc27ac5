"""``eos``: the Arista EOS personality (Netmiko type ``arista_eos``); see :mod:`roceops.lab.devices.eos.device`."""

from __future__ import annotations

from roceops.lab.devices.eos import gnmi
from roceops.lab.devices.eos.device import EosCli, EosState
from roceops.lab.personality import Personality

# the lab serves it where Platform.lab_device names this package; gnmi: its OpenConfig leaves (gnmi.py)
DEVICE = Personality(EosState, EosCli, gnmi_leaves=gnmi.answer)
