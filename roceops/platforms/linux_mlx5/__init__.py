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

from roceops.platforms.base import Platform, PlatformCode
from roceops.platforms.linux_mlx5 import driver as _driver
from roceops.platforms.linux_mlx5 import driver_model as _model
from roceops.platforms.linux_mlx5.driver import DRIVER
from roceops.platforms.linux_mlx5.nic_classes import host_context
from roceops.platforms.linux_mlx5.persisted import all_files
from roceops.platforms.linux_mlx5.render import (
    FIRMWARE_SCRIPT,
    INSTALL_TARGETS,
    NETMIKO,
    OUTPUTS,
    PERSISTED,
    POSTPROCESS,
    PREAMBLE,
    InstallTarget,
    ScriptError,
    render_context,
    script_commands,
    simple_command_problem,
)
from roceops.platforms.linux_mlx5.routing import host_routing

PLATFORM = Platform(
    name="linux_mlx5",
    title="NVIDIA ConnectX (mlx5) on Linux",
    kind="host",
    outputs=OUTPUTS,
    netmiko=NETMIKO,
    code=PlatformCode(context=host_context, driver=DRIVER, host_routing=host_routing, postprocess=POSTPROCESS,
                      traffic=DRIVER, render_all=all_files),  # once per class of hosts, filled in per host
    lab_device="roceops.lab.devices.linux_mlx5",
    persisted_outputs=PERSISTED,
    installs={name: (INSTALL_TARGETS[name].path, INSTALL_TARGETS[name].mode) for name in PERSISTED},
    firmware_outputs=(FIRMWARE_SCRIPT,),
    show_commands=(_model.CMD_ADDR, _model.CMD_ROUTES, _model.CMD_RULES, _model.CMD_RDMA),  # plus per-NIC reads
    failure_patterns=(_driver.ERROR_TEXT,),
    vocabulary=("linux_mlx5", "mlnx_qos", "mlx5", "cma_roce"),  # (ConnectX: a NIC model, roceops/hardware)
)

__all__ = [
    "DRIVER",
    "INSTALL_TARGETS",
    "PLATFORM",
    "PREAMBLE",
    "InstallTarget",
    "ScriptError",
    "render_context",
    "script_commands",
    "simple_command_problem",
]
