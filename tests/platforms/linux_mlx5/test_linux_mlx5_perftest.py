"""perftest's ib_write_bw for health --traffic: the result-table parser on a real capture and on perftest's
documented format, the per-rail split of the client line's output, and the command lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from roceops.device.oper import RdmaEnd
from roceops.platforms.linux_mlx5.perftest import (
    MARK,
        client_line,
    parse_write_bw,
    server_line,
    split_rails,
)

CAPTURE = Path(__file__).parents[1] / "captures" / "perftest_ib_write_bw_gbits_duration.txt"

# REPORT_FMT of linux-rdma/perftest src/perftest_parameters.h @ 00b55b6, as printf lays it out for a 400G run
DOCUMENTED = (
    "---------------------------------------------------------------------------------------\n"
    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
    " 65536      1415170          0.00               371.03\t\t     0.707736\n"
    "---------------------------------------------------------------------------------------\n"
)


def test_real_capture_from_perftest_issue_273() -> None:
    report = parse_write_bw(CAPTURE.read_text())
    assert (report.msg_bytes, report.iterations) == (8, 224958464)
    assert (report.peak_gbps, report.average_gbps, report.msg_rate_mpps) == (0.0, 0.48, 7.498617)


def test_documented_row_layout() -> None:
    report = parse_write_bw(DOCUMENTED)
    assert report.average_gbps == 371.03 and report.msg_bytes == 65536 and report.msg_rate_mpps == 0.707736


def test_mib_table_is_refused_and_errors_are_named() -> None:
    mib = DOCUMENTED.replace("Gb/sec", "MiB/sec")
    with pytest.raises(ValueError, match="MiB/sec, not Gb/sec"):
        parse_write_bw(mib)
    with pytest.raises(ValueError, match=r"Couldn't connect to 10\.128\.0\.2:18516"):
        parse_write_bw(" Dual-port       : OFF\nCouldn't connect to 10.128.0.2:18516\n Unable to open file descriptor "
                       "for socket connection\n")
    with pytest.raises(ValueError, match="no result row"):
        parse_write_bw(DOCUMENTED.splitlines()[1])
    with pytest.raises(ValueError, match="no output"):
        parse_write_bw("")


def test_client_output_splits_per_rail() -> None:
    text = f"[1] 4242\n{MARK}mlx5_0\n{DOCUMENTED}{MARK}mlx5_1\nCouldn't connect to 10.0.0.2:18516\n"
    blocks = split_rails(text)
    assert set(blocks) == {"mlx5_0", "mlx5_1"}
    assert parse_write_bw(blocks["mlx5_0"]).average_gbps == 371.03
    assert "[1] 4242" not in blocks["mlx5_0"] and "Couldn't connect" in blocks["mlx5_1"]


def test_command_lines_carry_gid_tclass_port_and_peer() -> None:
    ends = [RdmaEnd("mlx5_0", 3, 18516, 106), RdmaEnd("mlx5_1", 5, 18517, 106)]
    server = server_line(ends, 2)
    assert server == ("timeout 12 ib_write_bw -d mlx5_0 -x 3 --report_gbits -D 2 -F -p 18516 --tclass 106 "
                      "> /dev/null 2>&1 & timeout 12 ib_write_bw -d mlx5_1 -x 5 --report_gbits -D 2 -F -p 18517 "
                      "--tclass 106 > /dev/null 2>&1 & true")
    client = client_line([(ends[0], "10.128.0.2"), (ends[1], "10.128.128.2")], 2)
    assert "timeout 7 ib_write_bw -d mlx5_1 -x 5 --report_gbits -D 2 -F -p 18517 --tclass 106 10.128.128.2 " \
           "> /tmp/roceops-bw-mlx5_1.txt 2>&1 &" in client
    assert client.index(" wait; ") < client.index(f"echo '{MARK}mlx5_0'; cat /tmp/roceops-bw-mlx5_0.txt")
