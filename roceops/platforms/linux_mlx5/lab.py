"""Lab personality of a ConnectX (mlx5) GPU host on Linux: state, faults, and the SSH session.

The session is a small bash (:mod:`lab_shell`) running the host tools the deploy and audit paths
use (``mlnx_qos``, ``dcb``, ``ip``, ``ethtool``, ``sysctl``, ``cma_roce_*``, ``rdma``, sysfs
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
reject_config      every write (sysfs, mlnx_qos/dcb sets, ip/ethtool/sysctl changes, rdma_cm) is
                   refused with the kernel's EPERM/EACCES text and changes nothing
link_down, link_flap, pause_storm, crc_errors   [port] operational, via the shared Physical layer
=================  ===========================================================================

``clear`` stops the operational faults, rejection and the firmware override; configuration
changes made by faults stay until a re-deploy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.lab.personality import DeviceState, LabError, Reply, Session, SessionInfo
from roceops.lab.physical import OPER_FAULTS, Physical
from roceops.platforms.linux_mlx5 import lab_builtins, lab_ip, lab_qos, lab_tools  # noqa: F401  (registration)
from roceops.platforms.linux_mlx5.lab_model import FAULT_FIRMWARE, PRIOS, Host, Nic
from roceops.platforms.linux_mlx5.lab_shell import Shell

CONFIG_FAULTS = frozenset({"nic_reset", "mtu_mismatch", "pfc_off", "firmware", "reject_config", "old_driver"})


class LinuxMlx5State(DeviceState):
    PERSONALITY_FAULTS = CONFIG_FAULTS | OPER_FAULTS

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        data = dict(extra or {})
        preload = data.pop("preload_files", None)
        super().__init__(name, platform, {k: v for k, v in data.items() if k not in ("nics", "ports")})
        self.host = Host(name, data)
        ports = [{"name": n.name, "speed": n.speed, "neighbor": n.neighbor} for n in self.host.nics.values()]
        self.physical = Physical(name, ports, lossless=data.get("lossless") or (3,))
        if preload:
            self.preload(preload)

    # ---- helpers used by the command modules

    @property
    def rejecting(self) -> bool:
        return "reject_config" in self.faults.extra

    def nic_up(self, nic: Nic) -> bool:
        return self.physical.oper_up(nic.name, nic.admin_up)

    def preload(self, files: Mapping[str, str]) -> None:
        """Apply rendered files through the shell a deploy uses (as root); a failing line is a lab error."""
        from roceops.platforms.linux_mlx5.driver_model import netplan_commands, sysctl_conf_commands
        from roceops.platforms.linux_mlx5.render import script_commands

        commands: list[str] = []
        if "netplan.yaml" in files:
            commands += netplan_commands(files["netplan.yaml"])
        if "roce-setup.sh" in files:
            commands += script_commands(files["roce-setup.sh"])
        elif "roce-setup-dcb.sh" in files:
            commands += script_commands(files["roce-setup-dcb.sh"])
        if "sysctl.conf" in files:
            commands += sysctl_conf_commands(files["sysctl.conf"])
        shell = Shell(self, "root")
        for line in commands:
            res = shell.run_line(line)
            if res.status != 0:
                raise LabError(f"{self.name}: preloading failed at {line[:80]!r}: {res.text.strip()[:200]}")

    # ---- faults

    def _nics(self, params: Mapping[str, Any], fault: str, default_all: bool = True) -> list[Nic]:
        name = params.get("port", params.get("netdev"))
        if name is None:
            nics = list(self.host.nics.values())
            return nics if default_all else nics[:1]
        nic = self.host.nics.get(str(name))
        if nic is None:
            raise LabError(f"fault '{fault}': {self.name} has no NIC {name!r} (NICs: {', '.join(self.host.nics)})")
        return [nic]

    def apply_fault(self, name: str, **params: Any) -> None:
        super().apply_fault(name, **params)
        fault = name.strip().lower().replace("-", "_")
        if fault in OPER_FAULTS:
            for nic in self._nics(params, fault):
                self.physical.apply(fault, nic.name)
        elif fault == "nic_reset":
            for nic in self._nics(params, fault):
                nic.reset_roce()
        elif fault == "mtu_mismatch":
            mtu = _int(params.get("mtu", 1500), fault, "mtu")
            for nic in self._nics(params, fault, default_all=False):
                nic.mtu = mtu
        elif fault == "pfc_off":
            prio = params.get("priority")
            if prio is not None and _int(prio, fault, "priority") not in PRIOS:
                raise LabError("fault 'pfc_off': priority must be 0-7")
            for nic in self._nics(params, fault):
                nic.pfc = 0 if prio is None else nic.pfc & ~(1 << int(prio))
        elif fault == "firmware":
            version = str(params.get("version", FAULT_FIRMWARE))
            for nic in self._nics(params, fault):
                nic.fw_override = version
        elif fault == "old_driver":
            for nic in self._nics(params, fault):
                nic.old_driver = True

    def clear_faults(self) -> None:
        super().clear_faults()
        self.physical.clear()
        for nic in self.host.nics.values():
            nic.fw_override = None
            nic.old_driver = False


def _int(value: Any, fault: str, key: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise LabError(f"fault '{fault}': parameter '{key}' must be an integer") from None


class LinuxMlx5Session(Session):
    state: LinuxMlx5State

    def __init__(self, state: DeviceState, info: SessionInfo) -> None:
        super().__init__(state, info)
        assert isinstance(state, LinuxMlx5State)
        self.shell = Shell(state, info.username)

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
