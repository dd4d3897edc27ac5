"""The host's state: its NICs (QoS, DCQCN, addresses, routes), files, sysctls and physical links, and the
faults that change them. The bottom layer of the simulated host: the file system view, the shell and its
programs build on it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.lab.devices.linux_mlx5.model import DPU_NVCONFIG, FAULT_FIRMWARE, PRIOS, Host, Nic
from roceops.lab.devices.linux_mlx5.wire_faults import RETRANSMIT_RATES, WIRE_FAULT_PARAMS, WIRE_FAULTS, WireCounters
from roceops.lab.personality import DeviceState, LabError
from roceops.lab.physical import OPER_FAULTS, Physical

# reboot is carried out by the device layer (it boots through the shell)
CONFIG_FAULTS = frozenset({"nic_reset", "mtu_mismatch", "pfc_off", "firmware", "reject_config", "reject_systemctl",
                           "reboot", "old_driver", "slow_rdma", "no_perftest", "dpu_mode"})
PERFTEST_PROGRAMS = frozenset({"ib_write_bw"})


class LinuxMlx5StateCore(DeviceState):
    """One host's NICs, files and physical links, and its faults (the shell builds on it: see device.py)."""

    PERSONALITY_FAULTS = CONFIG_FAULTS | OPER_FAULTS | WIRE_FAULTS
    # what apply_fault below (and the device layer: reboot, reject_systemctl, no_perftest) reads of each fault
    FAULT_PARAMS = {
        **{f: frozenset({"port"}) for f in OPER_FAULTS | {"nic_reset", "old_driver", "dpu_mode"}},
        "mtu_mismatch": frozenset({"port", "mtu"}), "pfc_off": frozenset({"port", "priority"}),
        "firmware": frozenset({"port", "version"}), "slow_rdma": frozenset({"port", "factor"}),
        **WIRE_FAULT_PARAMS,
    }

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        data = dict(extra or {})
        data.pop("preload_files", None)  # applied by the device layer (through its shell)
        data.pop("preload_install", None)
        super().__init__(name, platform, {k: v for k, v in data.items() if k not in ("nics", "ports")})
        self.host = Host(name, data)
        ports = [{"name": n.name, "speed": n.speed, "neighbor": n.neighbor} for n in self.host.nics.values()]
        self.physical = Physical(name, ports, lossless=data.get("lossless") or (3,))
        self.wire = WireCounters(self.physical.clock)

    # ---- helpers used by the command modules

    @property
    def rejecting(self) -> bool:
        return "reject_config" in self.faults.extra

    def absent_programs(self) -> frozenset[str]:
        """Programs this host does not have: perftest under the ``no_perftest`` fault, lldpd's client under
        ``no_lldpd``."""
        absent = PERFTEST_PROGRAMS if "no_perftest" in self.faults.extra else frozenset()
        return absent | {"lldpcli"} if "no_lldpd" in self.faults.extra else absent

    def rail_nics(self) -> list[str]:
        """The NICs that carry rail traffic to the other hosts' NICs of the same name (lab/cnp_flow.py)."""
        return sorted(self.host.nics)

    def nic_up(self, nic: Nic) -> bool:
        return self.physical.oper_up(nic.name, nic.admin_up)

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
        fault = name.strip().lower().replace("-", "_")
        if fault in self.FAULT_PARAMS and (bad := sorted(set(params) - self.FAULT_PARAMS[fault] - {"netdev"})):
            allowed = ", ".join(sorted(self.FAULT_PARAMS[fault]))  # netdev: another name for port
            raise LabError(f"fault '{fault}' takes {allowed} (got: {', '.join(bad)})")
        super().apply_fault(name, **params)
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
        elif fault == "slow_rdma":
            nics = self._nics(params, fault)  # validates port=; perftest reads the fault's params
            if "factor" in params and not 0 < _float(params["factor"], fault, "factor") <= 1:
                raise LabError("fault 'slow_rdma': factor must be in (0, 1]")
            del nics
        elif fault == "old_driver":
            for nic in self._nics(params, fault):
                nic.old_driver = True
        elif fault == "dpu_mode":
            for nic in self._nics(params, fault):
                nic.nvconfig.update({k: list(v) for k, v in DPU_NVCONFIG.items()})
        elif fault == "retransmits":
            for nic in self._nics(params, fault):
                self.wire.start(nic.name, RETRANSMIT_RATES)
        elif fault == "ecn_no_cnp":
            now = self.physical.clock()
            for nic in self._nics(params, fault):
                self.physical.ports[nic.name].counter("cnp_sent").set_rate(now, 0.0)

    def clear_faults(self) -> None:
        super().clear_faults()
        self.physical.clear()
        self.wire.stop()
        for nic in self.host.nics.values():
            nic.fw_override = None
            nic.old_driver = False
            for key in DPU_NVCONFIG:  # back to a ConnectX (NIC mode)
                nic.nvconfig.pop(key, None)


def _int(value: Any, fault: str, key: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise LabError(f"fault '{fault}': parameter '{key}' must be an integer") from None


def _float(value: Any, fault: str, key: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise LabError(f"fault '{fault}': parameter '{key}' must be a number") from None
