"""GPUDirect paths from lspci on a real host (tests/platforms/captures: ROCm/rccl#547, a ConnectX-6 and MI100 GPUs
behind one PCIe switch, ACS redirect on the root port above it)."""

from __future__ import annotations

import json
from pathlib import Path

from roceops.platforms.linux_mlx5.pcie import Device, gpu_path, parse_acs_control, parse_lspci_tree, parse_topo_matrix

CAPTURES = Path(__file__).resolve().parents[1] / "captures"

# the real `lspci -tv` branch written as `lspci -PP` paths (transcribed by hand: the capture is a tree, not -PP)
TREE_PP = """\
40:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge
40:01.1/43:00.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:00.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:00.0/45:00.0 Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6]
40:01.1/43:00.0/44:01.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:01.0/46:00.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:01.0/46:00.0/47:00.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:01.0/46:00.0/47:00.0/48:00.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:01.0/46:00.0/47:00.0/48:00.0/49:00.0 PCI bridge: (name not in the capture)
40:01.1/43:00.0/44:01.0/46:00.0/47:00.0/48:00.0/49:00.0/4a:00.0 Display controller: Advanced Micro Devices, Inc. \
[AMD/ATI] Device 738c
"""


def test_real_acs_control_line() -> None:
    acs = parse_acs_control((CAPTURES / "lspci_vvv_acs_bridge.txt").read_text())
    assert acs == {"40:01.1": {"SrcValid": True, "TransBlk": False, "ReqRedir": True, "CmpltRedir": True,
                               "UpstreamFwd": True, "EgressCtrl": False, "DirectTrans": False}}


def test_root_port_redirect_is_off_the_nic_gpu_path_and_a_switch_port_redirect_is_on_it() -> None:
    assert "ConnectX-6" in (CAPTURES / "lspci_tv_connectx6_gpu.txt").read_text()
    tree = parse_lspci_tree(TREE_PP)
    acs = parse_acs_control((CAPTURES / "lspci_vvv_acs_bridge.txt").read_text())
    path = gpu_path("0000:45:00.0", tree, acs)
    assert path.gpu == "4a:00.0" and path.skipped is None
    assert "40:01.1" not in path.bridges and {"43:00.0", "44:00.0", "44:01.0"} <= set(path.bridges)
    assert path.redirecting == ()  # the real host redirects at the root port only: P2P stays in the switch
    switch_on = {**acs, "44:00.0": {"ReqRedir": True, "CmpltRedir": False}}
    assert gpu_path("0000:45:00.0", tree, switch_on).redirecting == ("44:00.0",)


def test_no_gpu_or_no_shared_switch_is_skipped_with_the_reason() -> None:
    tree = parse_lspci_tree(TREE_PP)
    nic_only = {a: d for a, d in tree.items() if "controller" not in d.description or "Mellanox" in d.description}
    assert gpu_path("45:00.0", nic_only, {}).skipped == "no GPU in `lspci -PP`"
    apart = {**nic_only, "61:00.0": Device(("60:01.1", "61:00.0"), "3D controller: NVIDIA Corporation GH100")}
    assert "share no PCIe switch" in str(gpu_path("45:00.0", apart, {}).skipped)


def test_real_nvidia_smi_topo_gives_each_nic_its_pix_gpu() -> None:
    topo = parse_topo_matrix((CAPTURES / "nvidia_smi_topo_m_8xh100.txt").read_text())
    assert topo == {f"mlx5_{i}": (f"GPU{i}", "PIX") for i in range(8)}
    assert parse_topo_matrix("nvidia-smi: command not found\n") == {}


def test_the_driver_skips_a_nic_whose_nearest_gpu_is_beyond_a_switch() -> None:
    from conftest import example_dict

    from roceops.device.intent import HostIntent
    from roceops.device.oper import for_intent
    from roceops.model.intent import FabricIntent
    from roceops.plan import plan
    from roceops.platforms.linux_mlx5 import DRIVER
    from roceops.platforms.linux_mlx5.driver_model import CMD_ADDR, CMD_RDMA
    from roceops.platforms.linux_mlx5.pcie import CMD_PCI_TREE, CMD_TOPO
    from roceops.topology.expand import expand

    host = plan(expand(FabricIntent.model_validate(example_dict("lab-mini"))), "gpu001")
    assert isinstance(host, HostIntent)
    first, second = sorted(host.nics.values(), key=lambda n: n.rail)[:2]
    links = json.dumps([{"ifname": n.netdev, "operstate": "UP", "mtu": 9000, "addr_info": []} for n in (first, second)])
    nvidia_tree = TREE_PP.replace("Display controller: Advanced Micro Devices, Inc. [AMD/ATI]",
                                  "3D controller: NVIDIA Corporation")
    rdma = json.dumps([{"ifname": n.rdma_dev, "port": 1, "netdev": n.netdev} for n in (first, second)])
    outputs = {CMD_ADDR: links, CMD_RDMA: rdma, CMD_PCI_TREE: nvidia_tree,  # rdma: which netdev is which NIC
               f"ethtool -i {first.netdev}": "driver: mlx5_core\nbus-info: 0000:45:00.0\n",
               f"ethtool -i {second.netdev}": "driver: mlx5_core\nbus-info: 0000:45:00.0\n",
               CMD_TOPO: (f"\tGPU0\tNIC0\tNIC1\nGPU0\t X \tPIX\tSYS\nNIC0\tPIX\t X \tSYS\nNIC1\tSYS\tSYS\t X \n\n"
                          f"NIC Legend:\n\n  NIC0: {first.rdma_dev}\n  NIC1: {second.rdma_dev}\n")}
    paths = for_intent(DRIVER.operational(outputs), host).gpu_paths
    assert paths[first.netdev].gpu == "4a:00.0" and paths[first.netdev].nearest_gpu == "GPU0 PIX"
    assert paths[second.netdev].skipped is not None and "nearest GPU is GPU0 SYS" in paths[second.netdev].skipped
