"""perftest's ``ib_write_bw`` (server and client) in its ``--report_gbits`` output format.

The layout follows linux-rdma/perftest at 00b55b6 (src/perftest_parameters.h RESULT_LINE, RESULT_FMT_G,
REPORT_FMT) and real RoCE runs posted in perftest#240/#273: the test header, the QP addresses, then the
``#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]`` table (peak is 0.00 in ``-D``
duration mode, perftest#234). The bandwidth comes from the sending NIC's state: its link speed times a
64 KiB-write efficiency, lowered by a pause storm or the ``slow_rdma`` fault; a NIC whose link is down
cannot connect its QP. The peer's NIC is not consulted (the lab runs each end on its own host).
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from roceops.lab.devices.linux_mlx5.shell import Result, fail
from roceops.lab.physical import STORM_RATE

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.model import Nic
    from roceops.lab.devices.linux_mlx5.shell import Shell

LINE = "-" * 87
WRITE_EFFICIENCY = 0.97  # lab choice: 64 KiB RDMA writes reach ~97% of the line rate on an idle link
STORM_FACTOR = 0.5  # lab choice: a NIC receiving a pause storm sends about half the time
SLOW_RDMA_FACTOR = 0.3  # the slow_rdma fault's default factor
MSG_SIZE = 65536  # perftest's DEF_SIZE_BW
_VALUED = {"-d", "--ib-dev", "-x", "--gid-index", "-D", "--duration", "-p", "--port", "-s", "--size",
           "--tclass", "-q", "--qp", "-i", "--ib-port"}


def _args(argv: list[str]) -> tuple[dict[str, str], list[str]] | str:
    opts: dict[str, str] = {}
    positional: list[str] = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        key, _, inline = arg.partition("=")
        if key in _VALUED:
            if not inline and i + 1 >= len(argv):
                return f"option '{key}' requires an argument"
            opts[key.lstrip("-")[:1] if not key.startswith("--") else key[2:]] = inline or argv[i + 1]
            i += 1 if inline else 2
            continue
        if arg.startswith("-"):
            opts[arg.lstrip("-")] = ""
        else:
            positional.append(arg)
        i += 1
    return opts, positional


def _header(dev: str, gid_index: str) -> list[str]:
    return [LINE, "                    RDMA_Write BW Test",
            f" Dual-port       : OFF\t\tDevice         : {dev}",
            " Number of qps   : 1\t\tTransport type : IB",
            " Connection type : RC\t\tUsing SRQ      : OFF",
            " PCIe relax order: ON", " ibv_wr* API     : ON", " TX depth        : 128", " CQ Moderation   : 1",
            " Mtu             : 4096[B]", " Link type       : Ethernet", f" GID index       : {gid_index}",
            " Max inline data : 0[B]", " rdma_cm QPs\t : OFF", " Data ex. method : Ethernet", LINE]


def _gid_text(address: str) -> str:
    """perftest prints a RoCEv2 IPv4-mapped GID as 16 colon-separated decimal bytes."""
    octets = [int(o) for o in address.split(".")] if address.count(".") == 3 else [0, 0, 0, 0]
    return ":".join(f"{b:02d}" for b in [0] * 10 + [255, 255] + octets)


def rate_gbps(sh: Shell, nic: Nic) -> float:
    """What this NIC sends now, Gb/s: link speed x efficiency, a pause storm or ``slow_rdma`` lower it."""
    gbps = nic.speed / 1000 * WRITE_EFFICIENCY
    port = sh.state.physical.ports[nic.name]
    if any(c.rate >= STORM_RATE for k, c in (port.touched or {}).items() if k.startswith("pfc_rx_")):
        gbps *= STORM_FACTOR
    slow = sh.state.faults.extra.get("slow_rdma")
    if slow is not None and slow.get("port", slow.get("netdev", nic.name)) in (nic.name, nic.rdma_dev):
        gbps *= float(slow.get("factor", SLOW_RDMA_FACTOR))
    return gbps


def ib_write_bw(sh: Shell, argv: list[str], stdin: str) -> Result:
    parsed = _args(argv)
    if isinstance(parsed, str):
        return fail(f"ib_write_bw: {parsed}\n")
    opts, positional = parsed
    dev = opts.get("d") or opts.get("ib-dev") or next(iter(sh.state.host.by_rdma), "")
    nic = sh.state.host.by_rdma.get(dev)
    if nic is None:
        return fail(f" IB device {dev} not found\n Unable to find the Infiniband/RoCE device\n")
    gid_index = opts.get("x") or opts.get("gid-index") or "0"
    duration = float(opts.get("D") or opts.get("duration") or 5)
    local = nic.addrs[0][0] if nic.addrs else ""
    seed = zlib.crc32(f"{sh.state.name}:{dev}".encode())
    lines = [] if positional else ["", "*" * 36, "* Waiting for client to connect... *", "*" * 36]
    lines += _header(dev, gid_index)
    if not sh.state.nic_up(nic):
        sh.delay_ms += 100
        return Result(out="\n".join(lines) + "\n", err=" Unable to Connect the HCA's through the link\n",
                      status=1)
    peer = positional[0] if positional else ""
    lines += [f" local address: LID 0000 QPN 0x{seed & 0xffff:04x} PSN 0x{seed >> 8 & 0xffffff:06x} "
              f"RKey 0x{seed & 0x1fffff:06x} VAddr 0x007f{seed:08x}000", f" GID: {_gid_text(local)}",
              f" remote address: LID 0000 QPN 0x{~seed & 0xffff:04x} PSN 0x{~seed >> 8 & 0xffffff:06x} "
              f"RKey 0x{~seed & 0x1fffff:06x} VAddr 0x007f{~seed & 0xffffffff:08x}000", f" GID: {_gid_text(peer)}",
              LINE]
    gbps = rate_gbps(sh, nic)
    msg_rate = gbps * 1e9 / 8 / MSG_SIZE / 1e6
    iterations = int(msg_rate * 1e6 * duration)
    row = f" {MSG_SIZE:<7d}    {iterations:<10d}       {0.0:<7.2f}            {gbps:<7.2f}\t\t     {msg_rate:<7.6f}"
    lines += [" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]", row, LINE]
    sh.delay_ms += int(duration * 1000)
    return Result(out="\n".join(lines) + "\n")
