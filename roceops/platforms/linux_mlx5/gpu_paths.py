"""Each rail NIC's PCIe path to its GPU, judged from a host's outputs (the parsers are in :mod:`.pcie`)."""

from __future__ import annotations

from functools import lru_cache

from roceops.device.oper import PcieGpuPath
from roceops.platforms.linux_mlx5.pcie import (
    CMD_PCI_BRIDGES,
    CMD_PCI_TREE,
    CMD_TOPO,
    gpu_path,
    parse_acs_control,
    parse_lspci_tree,
    parse_topo_matrix,
)


def gpu_paths(outputs: dict[str, str], nics: dict[str, str], bus: dict[str, str]) -> dict[str, PcieGpuPath]:
    """Each rail NIC's (netdev -> RDMA device) PCIe path to its GPU (pcie.py), or why it could not be judged.
    Where nvidia-smi answers, a NIC whose nearest GPU is beyond PXB shares no switch with one: skipped."""
    if CMD_PCI_TREE not in outputs:  # not collected (a counters-only sample)
        return {}
    return dict(_paths_of(outputs.get(CMD_PCI_TREE) or "", outputs.get(CMD_PCI_BRIDGES) or "",
                          outputs.get(CMD_TOPO) or "", tuple(sorted(nics.items())), tuple(sorted(bus.items()))))


@lru_cache(maxsize=64)  # servers of one model print the same PCIe tree: parsed once per distinct host layout
def _paths_of(tree_text: str, acs_text: str, topo_text: str, nics: tuple[tuple[str, str], ...],
              bus_items: tuple[tuple[str, str], ...]) -> dict[str, PcieGpuPath]:
    """:func:`gpu_paths` of these texts (the result is shared: callers copy the dict; its values are frozen)."""
    tree = parse_lspci_tree(tree_text)
    acs = parse_acs_control(acs_text)
    topo = parse_topo_matrix(topo_text)
    bus = dict(bus_items)
    out = {}
    for netdev, rdma_dev in nics:
        near = topo.get(rdma_dev)
        nearest = f"{near[0]} {near[1]}" if near else None
        if near is not None and near[1] not in ("PIX", "PXB"):
            out[netdev] = PcieGpuPath(nearest_gpu=nearest, skipped=f"`{CMD_TOPO}`: {rdma_dev}'s nearest GPU is "
                                                                   f"{nearest}: no PCIe switch shared with a GPU")
            continue
        if not tree:
            out[netdev] = PcieGpuPath(skipped=f"`{CMD_PCI_TREE}` gave no devices (pciutils missing?)")
        elif netdev not in bus:
            out[netdev] = PcieGpuPath(skipped=f"no PCI address for {netdev} (`ethtool -i {netdev}` bus-info)")
        else:
            p = gpu_path(bus[netdev], tree, acs)
            out[netdev] = PcieGpuPath(gpu=p.gpu, bridges=list(p.bridges), redirecting=list(p.redirecting),
                                      skipped=p.skipped, nearest_gpu=nearest)
    return out
