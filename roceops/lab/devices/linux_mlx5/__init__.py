"""``linux_mlx5``: a ConnectX (mlx5) GPU host on Linux (see :mod:`roceops.lab.devices.linux_mlx5.device`)."""

from __future__ import annotations

from roceops.lab.devices.linux_mlx5.device import LinuxMlx5Session, LinuxMlx5State
from roceops.lab.personality import Personality

DEVICE = Personality(LinuxMlx5State, LinuxMlx5Session)  # served where Platform.lab_device names this package
