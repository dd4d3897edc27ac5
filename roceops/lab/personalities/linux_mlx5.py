"""``linux_mlx5``: a ConnectX (mlx5) GPU host on Linux (see :mod:`roceops.platforms.linux_mlx5.lab`)."""

from __future__ import annotations

from roceops.lab.personality import register_personality
from roceops.platforms.linux_mlx5.lab import LinuxMlx5Session, LinuxMlx5State

register_personality("linux_mlx5", LinuxMlx5State, LinuxMlx5Session)
