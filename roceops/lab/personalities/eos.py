"""``eos``: the Arista EOS personality (Netmiko device type ``arista_eos``); see :mod:`roceops.platforms.eos.lab`."""

from __future__ import annotations

from roceops.lab.personality import register_personality
from roceops.platforms.eos.lab import EosCli, EosState

register_personality("eos", EosState, EosCli)
