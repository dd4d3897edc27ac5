"""GPUDirect RDMA paths: PCIe ACS redirection on the bridges between a rail NIC and its GPU.

Reads (pciutils ``lspci``): ``lspci -PP`` (every device, one line, named by its path through the bridges:
``40:01.1/43:00.0/44:00.0/45:00.0 Ethernet controller: ...``; lspci(8) ``-PP``) and ``lspci -PP -vvv -d ::0604``
(the PCI bridges with their capabilities; ``-d ::<class>`` filters by class, 0604 = PCI bridge; reading the
capabilities needs root). The ACS control line is lspci's ``ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+
UpstreamFwd+ EgressCtrl- DirectTrans-`` (a real one in tests/platforms/captures, from ROCm/rccl#547).

A NIC's GPU is the GPU (NVIDIA or AMD/ATI, class 3D/VGA/Display controller) whose path shares the longest prefix
with the NIC's. P2P between them climbs to the last bridge they share and back down; a bridge on that path with
request or completion redirect on (ACSCtl ``ReqRedir+`` or ``CmpltRedir+``) sends it up to the root complex instead
(NetQ 5.3 validation test 6; Azure aznhc ``azure_gdr_detect``). When the two meet only at the root port there is no
switch to bypass the root complex and nothing to judge. Where NVIDIA's driver is installed, ``nvidia-smi topo -m``
(:func:`parse_topo_matrix`) says the same from the driver's side: a NIC whose nearest GPU is beyond PXB shares no
switch with one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CMD_PCI_TREE = "lspci -PP"
CMD_PCI_BRIDGES = "lspci -PP -vvv -d ::0604"
_HEADER = re.compile(r"^((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7](?:/[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])*) (.+)$")
_ACS_CTL = re.compile(r"^\s+ACSCtl:\s+(.*)$")
# NVIDIA, or AMD Instinct (peer-direct the same way); not a BMC's VGA (ASPEED, Matrox)
_GPU = re.compile(r"(3D|VGA compatible|Display) controller: (NVIDIA|Advanced Micro Devices, Inc\. \[AMD/ATI\])")
REDIRECT_FLAGS = ("ReqRedir", "CmpltRedir")


@dataclass(frozen=True)
class Device:
    path: tuple[str, ...]  # bus:dev.fn of every bridge above it, then its own
    description: str

    @property
    def address(self) -> str:
        return self.path[-1]


def _short(address: str) -> str:
    """``0000:45:00.0`` -> ``45:00.0`` (lspci prints the domain only with -D)."""
    return address[5:] if re.fullmatch(r"[0-9a-f]{4}:.*", address) else address


def parse_lspci_tree(text: str) -> dict[str, Device]:
    """``lspci -PP`` (or the stanza headers of ``lspci -PP -vvv``) -> address -> device.

    >>> parse_lspci_tree("40:01.1/43:00.0 PCI bridge: X\\n")["43:00.0"].path
    ('40:01.1', '43:00.0')
    """
    out: dict[str, Device] = {}
    for line in text.splitlines():
        m = _HEADER.match(line)
        if m:
            path = tuple(_short(p) for p in m.group(1).split("/"))
            out[path[-1]] = Device(path=path, description=m.group(2))
    return out


def parse_acs_control(text: str) -> dict[str, dict[str, bool]]:
    """``lspci -vvv`` -> bridge address -> its ACSCtl flags (bridges without the ACS capability are left out).

    >>> parse_acs_control("40:01.1 PCI bridge: X\\n\\t\\tACSCtl:\\tSrcValid+ ReqRedir- CmpltRedir+\\n")
    {'40:01.1': {'SrcValid': True, 'ReqRedir': False, 'CmpltRedir': True}}
    """
    out: dict[str, dict[str, bool]] = {}
    current: str | None = None
    for line in text.splitlines():
        m = _HEADER.match(line)
        if m:
            current = _short(m.group(1).split("/")[-1])
            continue
        acs = _ACS_CTL.match(line)
        if acs and current is not None:
            out[current] = {flag[:-1]: flag.endswith("+") for flag in acs.group(1).split() if flag[-1] in "+-"}
    return out


@dataclass(frozen=True)
class GpuPath:
    """A rail NIC's P2P path to its GPU: the GPU, the bridges between them, those redirecting P2P upward, and why
    nothing was judged (``skipped``)."""

    gpu: str | None
    bridges: tuple[str, ...]
    redirecting: tuple[str, ...]
    skipped: str | None = None


def gpu_path(nic_address: str, tree: dict[str, Device], acs: dict[str, dict[str, bool]]) -> GpuPath:
    nic = tree.get(_short(nic_address))
    if nic is None:
        return GpuPath(None, (), (), f"{nic_address} is not in `{CMD_PCI_TREE}`")
    gpus = [d for d in tree.values() if _GPU.search(d.description)]
    if not gpus:
        return GpuPath(None, (), (), f"no GPU in `{CMD_PCI_TREE}`")

    def shared(g: Device) -> int:
        n = 0
        while n < min(len(g.path), len(nic.path)) - 1 and g.path[n] == nic.path[n]:
            n += 1
        return n

    gpu = max(gpus, key=lambda g: (shared(g), g.address))
    k = shared(gpu)
    if k <= 1:
        return GpuPath(gpu.address, (), (), f"{nic.address} and GPU {gpu.address} share no PCIe switch: P2P crosses "
                                            "the root complex whatever ACS says")
    bridges = tuple(dict.fromkeys([*nic.path[k - 1:-1], *gpu.path[k - 1:-1]]))
    unread = [b for b in bridges if b not in acs]
    redirecting = tuple(b for b in bridges if any(acs.get(b, {}).get(f) for f in REDIRECT_FLAGS))
    if unread and not redirecting and not acs:
        return GpuPath(gpu.address, bridges, (), f"no ACSCtl read for {', '.join(unread)} (`{CMD_PCI_BRIDGES}` "
                                                 "needs root)")
    return GpuPath(gpu.address, bridges, redirecting)


# ---- nvidia-smi topo -m (where the host has NVIDIA's driver): each NIC's relation to each GPU

CMD_TOPO = "nvidia-smi topo -m"
_RANK = {"PIX": 0, "PXB": 1, "PHB": 2, "NODE": 3, "SYS": 4}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def parse_topo_matrix(text: str) -> dict[str, tuple[str, str]]:
    """``nvidia-smi topo -m`` -> RDMA device -> (nearest GPU, relation), the relation one of PIX (one bridge), PXB
    (several bridges, no host bridge), PHB, NODE, SYS as the output's own legend defines them; rows are ``NIC<n>``
    and the "NIC Legend" names each (``NIC0: mlx5_0``). A real output: tests/platforms/captures (sglang#30401).
    Empty when the text has no matrix (nvidia-smi missing).

    >>> parse_topo_matrix("\\tGPU0\\tNIC0\\nGPU0\\t X \\tPIX\\nNIC0\\tPIX\\t X \\n"
    ...                   "\\nNIC Legend:\\n\\n  NIC0: mlx5_0\\n")
    {'mlx5_0': ('GPU0', 'PIX')}
    """
    lines = _ANSI.sub("", text).splitlines()
    legend = {m.group(1): m.group(2) for line in lines if (m := re.match(r"\s*(NIC\d+):\s*(\S+)\s*$", line))}
    header = next((line.split() for line in lines if re.match(r"\s+GPU0\b", line)), None)
    if header is None or not legend:
        return {}
    gpus = [(i, label) for i, label in enumerate(header) if re.fullmatch(r"GPU\d+", label)]
    out: dict[str, tuple[str, str]] = {}
    for line in lines:
        cells = line.split()
        if not cells or cells[0] not in legend or len(cells) < 1 + len(gpus):
            continue
        known = [(_RANK[cells[1 + i]], label, cells[1 + i]) for i, label in gpus if cells[1 + i] in _RANK]
        if known:
            _, gpu, relation = min(known)
            out[legend[cells[0]]] = (gpu, relation)
    return out
