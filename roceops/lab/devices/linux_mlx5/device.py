"""Lab personality of a ConnectX (mlx5) GPU host on Linux: state, faults, and the SSH session.

The session is a small bash (:mod:`roceops.lab.devices.linux_mlx5.shell`) running the host tools the deploy
and audit paths use (``mlnx_qos``, ``dcb``, ``ip``, ``ethtool``, ``sysctl``, ``cma_roce_*``, ``rdma``, sysfs
``echo``/``cat``/``grep``). The prompt follows the SSH user: ``admin@gpu001:~$`` for a normal
user (``sudo`` / ``sudo -s`` / ``sudo -i`` give root, no password), ``root@gpu001:~#`` for root.

Extra data (``LabDeviceSpec.extra``): ``hostname``, ``mgmt_ip``, ``nics`` = [{name, rdma_dev, speed,
neighbor, firmware, driver}], ``lossless`` (priorities that carry pause traffic on the wire) and
optionally ``preload_files`` (the rendered files, applied at start through the same shell a push
uses: ``netplan.yaml`` as ``ip`` commands, ``roce-setup.sh`` line by line, ``sysctl.conf``).

Faults (``port=`` and ``netdev=`` both name a NIC):

=================  ===========================================================================
nic_reset          [netdev] the NIC lost its runtime RoCE settings (reboot / driver reload): trust
                   pcp, DSCP map default, PFC off, DCQCN enables and parameters at defaults,
                   RoCE mode/ToS defaults. MTU, ETS, addresses and routes stay.
mtu_mismatch       [port] (default: the first NIC), mtu= (default 1500)
pfc_off            [port] [priority] PFC removed (default: every NIC, every priority)
firmware           version= (default 28.39.2048) [port]: NIC firmware differs from the fleet
old_driver         [port] ``ethtool -S`` prints an older in-box driver's names (crc_align_errors, symbol_err,
                   pause_ctrl_rx/tx; no header, no *_phy, no rx_prio*_pause)
reject_config      every write (sysfs, mlnx_qos/dcb sets, ip/ethtool/sysctl changes, rdma_cm, files,
                   mlxconfig set) is refused with the kernel's EPERM/EACCES text and changes nothing
reject_systemctl   systemd refuses `systemctl enable` ("Failed to enable unit: Access denied")
reboot             the host reboots: runtime settings are lost; firmware next-boot values become current;
                   sysctl.d, netplan and the enabled units' scripts are applied as at boot (:mod:`boot`)
link_down, link_flap, pause_storm, crc_errors   [port] operational, via the shared Physical layer
slow_rdma          [port] [factor] (default 0.3): ``ib_write_bw`` from that NIC (default: every NIC) reaches
                   only ``factor`` of its usual bandwidth (a degraded PCIe slot, a congested rail)
no_perftest        perftest is not installed: ``ib_write_bw`` is "command not found", ``which`` finds nothing
dpu_mode           [port] the NIC (default: every NIC) is a BlueField-3 in DPU mode: ``mlxconfig -e query``
                   shows ``INTERNAL_CPU_MODEL EMBEDDED_CPU(1)``, ``INTERNAL_CPU_OFFLOAD_ENGINE ENABLED(0)``
                   (``clear`` makes it a ConnectX again); the QoS tools still answer as before
=================  ===========================================================================

``preload_install`` (path -> [text, mode]) installs files as a deploy would, their units enabled.

``clear`` stops the operational faults, rejection and the firmware override; configuration
changes made by faults stay until a re-deploy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.lab.devices.linux_mlx5 import boot, filetools, ip, lldpcli, pci, perftest, qos, shell_builtins, tools
from roceops.lab.devices.linux_mlx5.files import netplan_commands, script_commands, sysctl_conf_commands
from roceops.lab.devices.linux_mlx5.shell import Commands, Shell
from roceops.lab.devices.linux_mlx5.state import LinuxMlx5StateCore
from roceops.lab.personality import DeviceState, LabError, Reply, Session, SessionInfo

# what the host's shell runs: its builtins and the tools of the command modules
COMMANDS = Commands(builtins=shell_builtins.BUILTINS, programs={**ip.PROGRAMS, **qos.PROGRAMS, **tools.PROGRAMS,
                                                                   **boot.PROGRAMS, **filetools.PROGRAMS,
                                                                   **lldpcli.PROGRAMS, **pci.PROGRAMS,
                                                                   "ib_write_bw": perftest.ib_write_bw})


class LinuxMlx5State(LinuxMlx5StateCore):
    """A host as the lab serves it: the state plus preloading rendered files through its shell."""

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        preload = (extra or {}).get("preload_files")
        installed = (extra or {}).get("preload_install")
        super().__init__(name, platform, extra)
        if preload:
            self.preload(preload)
        if installed:
            boot.preload_install(self, installed)

    def apply_fault(self, name: str, **params: Any) -> None:
        super().apply_fault(name, **params)
        if name.strip().lower() == "reboot":
            boot.reboot(self, COMMANDS)

    def preload(self, files: Mapping[str, str]) -> None:
        """Apply rendered files through the shell a deploy uses (as root); a failing line is a lab error."""
        commands: list[str] = []
        if "netplan.yaml" in files:
            commands += netplan_commands(files["netplan.yaml"])
        if "roce-setup.sh" in files:
            commands += script_commands(files["roce-setup.sh"])
        elif "roce-setup-dcb.sh" in files:
            commands += script_commands(files["roce-setup-dcb.sh"])
        if "sysctl.conf" in files:
            commands += sysctl_conf_commands(files["sysctl.conf"])
        commands += script_commands(files.get("mlxconfig.sh", ""))
        shell = Shell(self, "root", COMMANDS)
        for line in commands:
            res = shell.run_line(line)
            if res.status != 0:
                raise LabError(f"{self.name}: preloading failed at {line[:80]!r}: {res.text.strip()[:200]}")
        for nic in self.host.nics.values():  # preloaded firmware settings are already in effect
            for values in nic.nvconfig.values():
                values[1] = values[2]


class LinuxMlx5Session(Session):
    state: LinuxMlx5State

    def __init__(self, state: DeviceState, info: SessionInfo) -> None:
        super().__init__(state, info)
        assert isinstance(state, LinuxMlx5State)
        self.shell = Shell(state, info.username, COMMANDS)

    def banner(self) -> str:
        return "Welcome to Ubuntu 22.04.4 LTS (GNU/Linux 5.15.0-113-generic x86_64)\n"

    def prompt(self) -> str:
        level = self.shell.levels[-1]
        return f"{level.user}@{self.state.host.hostname}:{level.cwd}{'#' if level.user == 'root' else '$'} "

    def handle(self, line: str) -> str | Reply:
        if not line.strip():
            return ""
        res = self.shell.run_line(line)
        text = res.text
        return Reply(text[:-1] if text.endswith("\n") else text, delay_ms=self.shell.delay_ms,
                     exit_status=res.status)
