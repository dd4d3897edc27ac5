"""The RDMA transport counters from a real ConnectX ``hw_counters`` directory (tests/platforms/captures/SOURCES.md:
an OCI host's ``ls hw_counters`` listing and its ``rdma statistic`` values), through the driver's sysfs read."""

from __future__ import annotations

from pathlib import Path

from roceops.lab.devices.linux_mlx5.model import HW_COUNTERS
from roceops.platforms.linux_mlx5.hw_counters import TRANSPORT_COUNTERS, transport_counters
from roceops.platforms.linux_mlx5.parsers import sysfs_values

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
HW = "/sys/class/infiniband/mlx5_2/ports/1/hw_counters"


def real_listing() -> list[str]:
    return (CAPTURES / "mlx5_hw_counters_ls.txt").read_text().split()


def real_values() -> dict[str, int]:
    """``rdma statistic``'s ``name value`` pairs after ``link <dev>/<port>``: the same hw stats as the files."""
    words = (CAPTURES / "mlx5_rdma_statistic_show.txt").read_text().split()
    assert words[:2] == ["link", "mlx5_2/1"]
    return {k: int(v) for k, v in zip(words[2::2], words[3::2], strict=True)}


def test_every_transport_counter_is_a_real_hw_counters_file() -> None:
    listing = real_listing()
    assert set(TRANSPORT_COUNTERS) <= set(listing)
    assert {"np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"} <= set(listing)
    assert tuple(listing) == HW_COUNTERS  # the lab's ConnectX lists the same files, in ls order


def test_the_real_values_read_through_the_sysfs_grep() -> None:
    values = real_values()
    assert set(values) == set(real_listing()) - {"lifespan"}  # lifespan is the cache period, not a counter
    grep = "".join(f"{HW}/{name}:{value}\n" for name, value in values.items())  # grep -r -H -s . layout
    counts, unread = transport_counters(sysfs_values(grep), HW)
    assert counts == dict.fromkeys(TRANSPORT_COUNTERS, 0) and unread == {}
    assert values["rx_write_requests"] == 18747


def test_an_unreadable_counter_is_named_never_zero() -> None:
    values = real_values()
    values.pop("out_of_sequence")
    grep = "".join(f"{HW}/{name}:{value}\n" for name, value in values.items()) + f"{HW}/out_of_buffer:N/A\n"
    counts, unread = transport_counters(sysfs_values(grep), HW)
    assert "out_of_sequence" not in counts and "out_of_buffer" not in counts
    assert unread["out_of_sequence"] == f"{HW}/out_of_sequence not readable"
    assert unread["out_of_buffer"] == f"{HW}/out_of_buffer reads 'N/A'"
