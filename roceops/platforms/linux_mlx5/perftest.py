"""perftest's ``ib_write_bw`` for ``health --traffic``: the server and client command lines, and the parser of
the client's ``--report_gbits`` result table.

Flags from linux-rdma/perftest README at 00b55b6 ("Common Options"/"Options for BW tests"): ``-d`` device,
``-x`` GID index, ``-p`` TCP port of the out-of-band exchange (default 18515), ``-D`` duration in seconds,
``-F`` do not fail on the cpufreq warning; ``--report_gbits`` (Gb/s, 10^9 bits) and ``--tclass`` ("Traffic
Class in GRH": the RoCE ToS byte, NCCL_IB_TC's value) from src/perftest_parameters.c usage(). The table is
RESULT_FMT_G + REPORT_FMT of src/perftest_parameters.h; in ``-D`` mode the peak column reads 0.00
(perftest#234, a real run in perftest#273).
"""

from __future__ import annotations

import re
import shlex

from roceops.device.oper import RdmaBandwidth, RdmaEnd

SERVER_GRACE_S = 10  # a server whose client never came is killed this long after the test's duration
CLIENT_GRACE_S = 5  # connection setup and the exchange of results, on top of the duration
HEAD_START_S = 1  # the client line waits this long for the servers to listen
MARK = "### roceops-bw "  # the client line prints one marked block per rail
_HEADER = re.compile(r"#bytes\s+#iterations\s+BW peak\[(?P<unit>[^\]]+)\]\s+BW average\[[^\]]+\]\s+MsgRate\[Mpps\]")
_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def _ib_write_bw(end: RdmaEnd, duration_s: int) -> str:
    return (f"ib_write_bw -d {shlex.quote(end.rdma_dev)} -x {end.gid_index} --report_gbits -D {duration_s} -F "
            f"-p {end.port} --tclass {end.tclass}")


def output_file(rdma_dev: str) -> str:
    return f"/tmp/roceops-bw-{rdma_dev}.txt"


def server_line(ends: list[RdmaEnd], duration_s: int) -> str:
    """Start one server per rail in the background (the same options as the client: perftest wants them
    symmetric); each exits after its test, or is killed by ``timeout`` if its client never comes."""
    jobs = [f"timeout {duration_s + SERVER_GRACE_S} {_ib_write_bw(e, duration_s)} > /dev/null 2>&1 &" for e in ends]
    return " ".join([*jobs, "true"])


def client_line(runs: list[tuple[RdmaEnd, str]], duration_s: int) -> str:
    """Run every rail's client at once, to its peer's rail address, then print each output after a marker."""
    jobs = [f"timeout {duration_s + CLIENT_GRACE_S} {_ib_write_bw(e, duration_s)} {shlex.quote(peer)} "
            f"> {output_file(e.rdma_dev)} 2>&1 &" for e, peer in runs]
    shows = [f"echo '{MARK}{e.rdma_dev}'; cat {output_file(e.rdma_dev)}" for e, _ in runs]
    return f"sleep {HEAD_START_S}; " + " ".join(jobs) + " wait; " + "; ".join(shows)


def split_rails(output: str) -> dict[str, str]:
    """The client line's output -> RDMA device -> that rail's ``ib_write_bw`` output."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith(MARK):
            current = blocks.setdefault(line[len(MARK):].strip(), [])
        elif current is not None:
            current.append(line)
    return {dev: "\n".join(lines) for dev, lines in blocks.items()}


def parse_write_bw(text: str) -> RdmaBandwidth:
    """The result row of an ``ib_write_bw --report_gbits`` run; ValueError saying why when there is none
    (perftest's own error lines, e.g. "Couldn't connect to 10.0.0.2:18515")."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        header = _HEADER.search(line)
        if header is None:
            continue
        if header.group("unit") != "Gb/sec":
            raise ValueError(f"bandwidth in {header.group('unit')}, not Gb/sec (--report_gbits missing)")
        for row in lines[i + 1:]:
            m = _ROW.match(row)
            if m:
                return RdmaBandwidth(msg_bytes=int(m.group(1)), iterations=int(m.group(2)),
                                peak_gbps=float(m.group(3)), average_gbps=float(m.group(4)),
                                msg_rate_mpps=float(m.group(5)))
        raise ValueError("the result table has no result row")
    errors = [s for line in lines if (s := line.strip()) and not s.startswith(("-", "*")) and ":" not in s[:18]]
    detail = "; ".join(errors[-2:]) or (lines[-1].strip() if lines else "") or "no output"
    raise ValueError(f"no result table: {detail[:200]}")
