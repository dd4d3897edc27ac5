"""The simulated host's PCIe tree, as pciutils' ``lspci -PP`` and ``lspci -PP -vvv -d ::0604`` print it.

Per rail NIC (bus B, the ``ethtool -i`` bus-info): a root port ``00:<ifindex>.0`` above a PCIe switch (upstream
port on bus B-2, downstream ports ``B-1:00.0`` and ``B-1:01.0``), the NIC at ``B:00.0`` and its GPU at
``B+1:00.0`` below the switch, as on 8-GPU servers where each GPU shares a switch with its rail NIC. Device names
are the lab's. The switch's downstream ports have ACS with every control off (what GPUDirect RDMA wants); the root
ports redirect (as many platforms ship them; they are not on the NIC-GPU path). ``acs_on`` (port=) turns request
and completion redirect on at the NIC's switch ports. Capabilities print to root only, ``<access denied>`` else.
Header and ACS line layout: lspci(8) ``-PP``; ``ACSCtl`` as in a real ``lspci -vvv`` (ROCm/rccl#547).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roceops.lab.devices.linux_mlx5.shell import Result, fail

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.model import Nic
    from roceops.lab.devices.linux_mlx5.shell import Shell

BRIDGE = "PCI bridge: PLX Technology, Inc. Device c030 (rev b0)"
ROOT_PORT = "PCI bridge: Intel Corporation Device 352a (rev 04)"
NIC = "Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]"
GPU = "3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)"
ACS_CAP = "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+"
ACS_OFF = "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
ACS_REDIRECT = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"


def _tree(nic: Nic) -> list[tuple[str, str, bool]]:
    """(path, description, is a switch port the acs_on fault changes) of the NIC's branch, in bus order."""
    b = 0x0C + nic.ifindex * 0x10
    root = f"00:{nic.ifindex:02x}.0"
    up, down_nic, down_gpu = f"{root}/{b - 2:02x}:00.0", f"{b - 1:02x}:00.0", f"{b - 1:02x}:01.0"
    return [(root, ROOT_PORT, False), (up, BRIDGE, False), (f"{up}/{down_nic}", BRIDGE, True),
            (f"{up}/{down_gpu}", BRIDGE, True), (f"{up}/{down_nic}/{b:02x}:00.0", NIC, False),
            (f"{up}/{down_gpu}/{b + 1:02x}:00.0", GPU, False)]


def lspci(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    if "-PP" not in args:
        return fail("lspci: the lab answers -PP listings only")
    verbose = "-vvv" in args
    bridges_only = "-d" in args and args[args.index("-d") + 1:args.index("-d") + 2] == ["::0604"]
    st = sh.state
    faulted = st.faults.extra.get("acs_on")
    port = faulted.get("port") if faulted is not None else None
    out = []
    for nic in sorted(st.host.nics.values(), key=lambda n: n.ifindex):
        redirect = faulted is not None and port in (None, nic.name)
        for path, what, switch_port in _tree(nic):
            if bridges_only and "PCI bridge" not in what:
                continue
            out.append(f"{path} {what}")
            if verbose and "PCI bridge" in what:
                if not sh.root:
                    out.append("\tCapabilities: <access denied>")
                else:
                    ctl = ACS_REDIRECT if (what == ROOT_PORT or (switch_port and redirect)) else ACS_OFF
                    out += ["\tCapabilities: [148 v1] Access Control Services", f"\t\tACSCap:\t{ACS_CAP}",
                            f"\t\tACSCtl:\t{ctl}", "\tKernel driver in use: pcieport"]
            if verbose:
                out.append("")
    return Result(out="\n".join(out) + "\n")


PROGRAMS = {"lspci": lspci}
