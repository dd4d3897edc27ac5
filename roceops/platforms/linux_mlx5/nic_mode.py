"""BlueField operation mode from ``mlxconfig -e query``: DPU mode, where host-side RoCE settings do not apply.

Sources:

* NVIDIA DOCA "BlueField Modes of Operation" (https://docs.nvidia.com/doca/sdk/bluefield+modes+of+operation/
  index.html): in DPU mode "the NIC resources and functionality are owned and controlled by the embedded Arm
  subsystem" and the host's network function "has limited privileges"; in NIC mode BlueField "operates as a
  ConnectX network adapter for the external host" (BlueField-3 SuperNIC SKUs ship in NIC mode, DPU SKUs in DPU
  mode).
* NVIDIA Flexboot/UEFI manual, "BlueField Internal CPU Configuration" (https://docs.nvidia.com/networking/display/
  pxeuefi/bluefield+internal+cpu+configuration): the Internal CPU model is EMBEDDED CPU (default) or SEPARATED
  HOST, persistent, applied at reboot. Its mlxconfig name is ``INTERNAL_CPU_MODEL`` (values ``EMBEDDED_CPU`` /
  ``SEPARATED_HOST``).
* Mellanox/nic-configuration-operator @ 8bfbeb34ba25215dd06402cd01bae0108341a8d4 (pkg/consts/consts.go: the
  parameter ``INTERNAL_CPU_OFFLOAD_ENGINE`` is the "BF3 operation mode"; its BlueField-3 query fixture shows
  ``INTERNAL_CPU_OFFLOAD_ENGINE ENABLED(0)``), as quoted in ``shared/reference/hardware/linux_mlx5/notes.md``.

Rule (the ``Current`` column, the mode in effect): DPU mode = ``INTERNAL_CPU_MODEL`` is ``EMBEDDED_CPU`` and
``INTERNAL_CPU_OFFLOAD_ENGINE`` (when the device lists it) is not ``DISABLED``; a device that does not know
``INTERNAL_CPU_MODEL`` (a ConnectX) is a NIC. The enum numbers are not relied on, only the names. Anything else
(no MFT, no permission) is unknown (None): never a finding.

>>> parse_nic_mode(_EXAMPLE)
'dpu'
>>> parse_nic_mode(_EXAMPLE.replace("ENABLED(0)", "DISABLED(1)")), parse_nic_mode("-E- Failed to open the device")
('nic', None)
>>> parse_nic_mode("-E- The Device doesn't support INTERNAL_CPU_MODEL parameter")
'nic'
"""

from __future__ import annotations

import re
from typing import Literal

NicMode = Literal["dpu", "nic"]
MODEL, ENGINE = "INTERNAL_CPU_MODEL", "INTERNAL_CPU_OFFLOAD_ENGINE"
# what the host sends that the NIC would not take in DPU mode (the Arm side owns the NIC's QoS and RoCE state)
HOST_SIDE = "trust, PFC, DSCP->priority, ETS, DCQCN, CNP and RoCE ToS/mode (mlnx_qos, sysfs, cma_roce_*)"
_COLUMNS = ("Default", "Current", "Next Boot")
_NOT_SUPPORTED = re.compile(r"doesn't support (\w+) parameter")
_EXAMPLE = ("Device type:    BlueField3\n"
            "Configurations:                              Default         Current         Next Boot\n"
            "         INTERNAL_CPU_MODEL                  EMBEDDED_CPU(1) EMBEDDED_CPU(1) EMBEDDED_CPU(1)\n"
            "         INTERNAL_CPU_OFFLOAD_ENGINE         ENABLED(0)      ENABLED(0)      ENABLED(0)\n")


def cmd_nic_mode(rdma_dev: str) -> str:
    """The mode read; ``-e`` before ``-d`` keeps it apart from the firmware reads (``mlxconfig -d X -e query``)."""
    return f"mlxconfig -e -d {rdma_dev} query {MODEL} {ENGINE} 2>&1"


def _current(text: str) -> dict[str, str]:
    """Parameter -> its ``Current`` value name (``EMBEDDED_CPU(1)`` -> ``EMBEDDED_CPU``)."""
    columns: list[str] | None = None
    out: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Configurations:"):
            columns = [c for c in _COLUMNS if c in stripped]
            continue
        words = stripped.lstrip("*").split()
        if columns and "Current" in columns and len(words) == 1 + len(columns) and words[0] in (MODEL, ENGINE):
            out[words[0]] = words[1 + columns.index("Current")].split("(", 1)[0].upper()
    return out


def parse_nic_mode(text: str | None) -> NicMode | None:
    """``dpu``, ``nic`` or None (unknown) from a :func:`cmd_nic_mode` output (see the module docstring)."""
    if not text:
        return None
    m = _NOT_SUPPORTED.search(text)
    if m and m.group(1) == MODEL:
        return "nic"  # not a BlueField: a ConnectX has no internal CPU
    current = _current(text)
    if MODEL not in current:
        return None
    return "dpu" if current[MODEL] == "EMBEDDED_CPU" and current.get(ENGINE) != "DISABLED" else "nic"


def dpu_problems(modes: dict[str, NicMode | None], netdev_of: dict[str, str]) -> list[str]:
    """One line per RDMA device in DPU mode: what roceops will not send it and why (``nic.mode``)."""
    return [f"{dev} ({netdev_of.get(dev, '?')}) is a BlueField in DPU mode ({MODEL} EMBEDDED_CPU): {HOST_SIDE} set "
            "from the host do not take effect; configure them on the BlueField's Arm side, or switch it to NIC mode"
            for dev, mode in sorted(modes.items()) if mode == "dpu"]
