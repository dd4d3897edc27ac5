"""Parsers of the boot-time state: mlxconfig query (real fixture and the documented layouts), show_gids (the
MLNX_OFED script's layout), systemctl show, sha256sum, base64 and NCCL's config file."""

from __future__ import annotations

import base64

import pytest
from conftest import FIXTURES

from roceops.platforms.linux_mlx5.observe import nccl_observed
from roceops.platforms.linux_mlx5.parsers import ParseError
from roceops.platforms.linux_mlx5.parsers_boot import (
    parse_base64_file,
    parse_mlxconfig_query,
    parse_nccl_conf,
    parse_sha256sum,
    parse_show_gids,
    parse_systemctl_show,
)
from roceops.util.rdma import ipv4_gid


def test_mlxconfig_extended_query_real_fixture() -> None:
    # NVIDIA's operator's fixture of `mlxconfig -d <dev> -e query` (ConnectX-4): Default/Current/Next Boot, '*'
    parsed = parse_mlxconfig_query((FIXTURES / "linux_mlx5" / "mlxconfig_e_query_connectx4.txt").read_text())
    assert parsed["device_type"] == "ConnectX4"
    assert parsed["params"]["KEEP_IB_LINK_UP_P2"] == {"default": 0, "current": 1, "next": 1}
    assert parsed["params"]["MEMIC_SIZE_LIMIT"] == {"default": 1, "current": 1, "next": 0}
    assert parsed["params"]["ESWITCH_HAIRPIN_DESCRIPTORS"] == {"default": None, "current": None, "next": None}
    assert set(parsed["params"]) == {"KEEP_IB_LINK_UP_P2", "KEEP_LINK_UP_ON_BOOT_P2", "ESWITCH_HAIRPIN_DESCRIPTORS",
                                     "MEMIC_SIZE_LIMIT"}


def test_mlxconfig_plain_query_documented_layout() -> None:
    # MFT "Using mlxconfig": `mlxconfig -d 0000:86:00.0 q` prints only the Next Boot column; CX-7 hex masks
    text = ("\nDevice #1:\n----------\n\nDevice type:    ConnectX7\nName:           MCX713106A-VEAT_Ax\n"
            "Device:         /dev/mst/mt4125_pciconf0\n\nConfigurations:                              Next Boot\n"
            "         ROCE_CC_PRIO_MASK_P1                0xff\n         CNP_DSCP_P1                         48\n"
            "         LINK_TYPE_P1                        ETH(2)\n"
            "         SRIOV_EN                            False(0)\n")
    params = parse_mlxconfig_query(text)["params"]
    assert params == {"ROCE_CC_PRIO_MASK_P1": {"next": 255}, "CNP_DSCP_P1": {"next": 48},
                      "LINK_TYPE_P1": {"next": 2}, "SRIOV_EN": {"next": 0}}


def test_mlxconfig_error_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="Failed to open"):
        parse_mlxconfig_query("-E- Failed to open the device\n")


SHOW_GIDS = (
    "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4 \t\tVER\tDEV\n"
    "---\t----\t-----\t---\t\t\t\t\t------------ \t---\t---\n"
    "mlx5_0\t1\t0\tfe80:0000:0000:0000:bace:f6ff:fef1:a5eb\t\t\tv1\teth0\n"
    "mlx5_0\t1\t1\tfe80:0000:0000:0000:bace:f6ff:fef1:a5eb\t\t\tv2\teth0\n"
    "mlx5_0\t1\t2\t0000:0000:0000:0000:0000:ffff:0a80:0001\t10.128.0.1 \tv1\teth0\n"
    "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a80:0001\t10.128.0.1 \tv2\teth0\n"
    "n_gids_found=4\n"
)


def test_show_gids_rows_in_the_scripts_layout() -> None:
    rows = parse_show_gids(SHOW_GIDS)
    assert len(rows) == 4
    assert rows[3] == {"dev": "mlx5_0", "port": 1, "index": 3, "gid": ipv4_gid("10.128.0.1"), "ipv4": "10.128.0.1",
                       "version": "v2", "netdev": "eth0"}
    assert rows[0]["ipv4"] is None and rows[1]["version"] == "v2"
    with pytest.raises(ParseError):
        parse_show_gids("-bash: show_gids: command not found\n")


def test_systemctl_sha256sum_base64_nccl() -> None:
    show = "LoadState=loaded\nUnitFileState=enabled\nActiveState=failed\nResult=exit-code\nExecMainStatus=1\n"
    assert parse_systemctl_show(show)["Result"] == "exit-code"
    sums = parse_sha256sum(f"{'a' * 64}  /etc/nccl.conf\nsha256sum: /etc/x.yaml: No such file or directory\n")
    assert sums == {"/etc/nccl.conf": "a" * 64, "/etc/x.yaml": None}
    text = "network:\n  version: 2\n"
    wrapped = base64.encodebytes(text.encode()).decode()  # 76-column lines, as `base64 FILE` prints
    assert parse_base64_file(wrapped) == text
    assert parse_base64_file("base64: /etc/x: No such file or directory\n") is None
    conf = parse_nccl_conf("# NCCL_IB_TC=1 is a comment\nNCCL_IB_HCA==mlx5_0:1,mlx5_1\nNCCL_IB_TC=106\nNCCL_IB_TC=0\n")
    assert conf == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1", "NCCL_IB_TC": "106"}  # the first one wins, as in NCCL
    seen = nccl_observed(conf)
    assert seen.ib_hca == ["mlx5_0", "mlx5_1"] and seen.ib_hca_exact is True and seen.ib_tc == 106
    assert seen.gid_index is None and seen.socket_ifname is None
