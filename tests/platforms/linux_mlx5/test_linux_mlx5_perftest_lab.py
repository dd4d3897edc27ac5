"""The lab host's perftest and the shell features the traffic test uses: background jobs, wait, timeout,
a world-writable /tmp, and the faults that slow ib_write_bw down or remove it."""

from __future__ import annotations

import pytest

from roceops.device.oper import RdmaEnd
from roceops.lab.devices.linux_mlx5.device import COMMANDS, LinuxMlx5State
from roceops.lab.devices.linux_mlx5.shell import Shell
from roceops.platforms.linux_mlx5.perftest import client_line, parse_write_bw, server_line, split_rails

NICS = [{"name": "eth0", "rdma_dev": "mlx5_0", "speed": 400_000}, {"name": "eth1", "rdma_dev": "mlx5_1",
                                                                   "speed": 200_000}]
ENDS = [RdmaEnd("mlx5_0", 3, 18516, 106), RdmaEnd("mlx5_1", 3, 18517, 106)]


def shell() -> Shell:
    return Shell(LinuxMlx5State("gpu001", "linux_mlx5", {"hostname": "gpu001", "nics": NICS}), "admin", COMMANDS)


def rates(sh: Shell) -> dict[str, float]:
    res = sh.run_line(client_line([(ENDS[0], "10.128.0.3"), (ENDS[1], "10.128.128.3")], 2))
    assert res.status == 0, res.err
    return {dev: parse_write_bw(text).average_gbps for dev, text in split_rails(res.out).items()}


def test_client_line_runs_rails_in_parallel_as_a_normal_user() -> None:
    sh = shell()
    got = rates(sh)
    assert got == {"mlx5_0": 388.0, "mlx5_1": 194.0}  # link speed x the lab's 0.97 write efficiency
    assert sh.delay_ms == 3000  # 1 s head start + one 2 s run: the rails ran at once, not 4 s in a row


def test_server_line_returns_at_once() -> None:
    sh = shell()
    res = sh.run_line(server_line(ENDS, 2))
    assert res.status == 0 and res.out == "" and sh.delay_ms == 0


def test_faults_lower_the_rate_or_break_the_run() -> None:
    sh = shell()
    sh.state.apply_fault("slow_rdma", port="eth1", factor=0.5)
    assert rates(sh) == {"mlx5_0": 388.0, "mlx5_1": 97.0}
    sh.state.clear_faults()
    sh.state.apply_fault("pause_storm", port="eth0")
    assert rates(sh)["mlx5_0"] == 194.0
    sh.state.apply_fault("link_down", port="eth0")
    res = sh.run_line(client_line([(ENDS[0], "10.128.0.3")], 2))
    with pytest.raises(ValueError, match="Unable to Connect the HCA's through the link"):
        parse_write_bw(split_rails(res.out)["mlx5_0"])


def test_no_perftest_removes_the_tool() -> None:
    sh = shell()
    assert sh.run_line("which ib_write_bw").out.endswith("/ib_write_bw\n")
    sh.state.apply_fault("no_perftest")
    assert sh.run_line("which ib_write_bw").status == 1 and sh.run_line("which ib_write_bw").out == ""
    assert "command not found" in sh.run_line("ib_write_bw -d mlx5_0").err


def test_timeout_stops_a_long_run() -> None:
    sh = shell()
    res = sh.run_line("timeout 1 ib_write_bw -d mlx5_0 -D 5 10.0.0.3")
    assert res.status == 124 and sh.delay_ms == 1000
