"""``pcie.acs``: GPUDirect RDMA needs peer-to-peer between each rail NIC and its GPU through their PCIe switch; ACS
request/completion redirect on a bridge of that path forces P2P up through the root complex (NetQ 5.3 validation
test 6; Azure aznhc ``azure_gdr_detect``). Reads the host room's :class:`PcieGpuPath` per NIC; a NIC whose path
could not be judged (no GPU, no shared switch, lspci unreadable) is skipped with the reason.
"""

from __future__ import annotations

from roceops.device.intent import HostIntent
from roceops.health.catalog import Sample
from roceops.health.model import ResultStatus
from roceops.report.result import Result

CHECK = "pcie.acs"


def acs_results(node: str, host: HostIntent, sample: Sample) -> list[Result]:
    out = []
    for nic in sorted(host.nics.values(), key=lambda n: n.rail):
        item = f"{node}:{nic.netdev}"
        path = sample.first.gpu_paths.get(nic.netdev) if sample.first is not None else None
        if path is None:
            status: ResultStatus = "unknown" if sample.first is None else "skipped"
            out.append(Result(device=node, check=CHECK, path=item, status=status,
                                   message=sample.error or "the host's PCIe tree was not read"))
        elif path.skipped:
            out.append(Result(device=node, check=CHECK, path=item, status="skipped", message=path.skipped))
        elif path.redirecting:
            out.append(Result(
                device=node, check=CHECK, path=item, status="fail", expected="no ACS redirect between NIC and GPU",
                observed=path.redirecting,
                message=f"ACS redirect on {', '.join(path.redirecting)} between {nic.rdma_dev} and GPU {path.gpu}: "
                        "GPUDirect RDMA detours through the root complex"))
        else:
            out.append(Result(device=node, check=CHECK, path=item, status="ok",
                                   expected="no ACS redirect between NIC and GPU", observed=f"GPU {path.gpu}"))
    return out
