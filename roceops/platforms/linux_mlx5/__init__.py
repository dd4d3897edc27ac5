"""Platform room: NVIDIA ConnectX (mlx5, MLNX_OFED driver + mlnx-tools) on Linux GPU hosts.

Rendered per host (templates under ``templates/linux_mlx5/``):

=====================  ======================================================================
``roce-setup.sh``      idempotent QoS/DCQCN/RDMA-CM/sysctl script using ``mlnx_qos``
``roce-setup-dcb.sh``  the same intent through upstream iproute2 ``dcb`` (alternative, not both)
``netplan.yaml``       rail NIC addresses, MTU, per-NIC routing table and source rule
``roceops-roce.service``  systemd oneshot that re-runs the setup script at boot
``sysctl.conf``        ``/etc/sysctl.d/90-roceops.conf``
=====================  ======================================================================

Install paths are :data:`INSTALL_TARGETS`; the scripts' executable lines (what a line-by-line
deploy sends) are :func:`script_commands`.
"""

from roceops.platforms.linux_mlx5.driver import DRIVER
from roceops.platforms.linux_mlx5.render import (
    INSTALL_TARGETS,
    PREAMBLE,
    InstallTarget,
    LinuxMlx5Platform,
    ScriptError,
    render_context,
    script_commands,
    simple_command_problem,
)

PLATFORM = LinuxMlx5Platform()

__all__ = [
    "DRIVER",
    "INSTALL_TARGETS",
    "PLATFORM",
    "PREAMBLE",
    "InstallTarget",
    "LinuxMlx5Platform",
    "ScriptError",
    "render_context",
    "script_commands",
    "simple_command_problem",
]
