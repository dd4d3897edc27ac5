"""linux_mlx5 observe (outputs -> ObservedHost, no intent) and expected (intent -> ObservedHost), without a lab.

Real captures from ../shared/fixtures/linux_mlx5: mlnx_qos_trust_dscp.txt (mlnx_qos -i <if> -a) and
mlxconfig_e_query_connectx4.txt (mlxconfig -d <dev> -e query); the ``ip``/``rdma`` JSON beside them is in
iproute2's ``-j`` layout (the same the lab host prints).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from conftest import FIXTURES, example_dict

from roceops.device.compare import compare
from roceops.device.intent import HostIntent
from roceops.device.observed import ObservedDcqcn, ObservedHost, ObservedNic, ObservedRoute
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import DRIVER, observe, parsers, parsers_boot
from roceops.platforms.linux_mlx5 import driver_boot as boot
from roceops.platforms.linux_mlx5 import driver_model as dm
from roceops.topology.expand import expand

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))


def fixture(name: str) -> str:
    path: Path = FIXTURES / "linux_mlx5" / name
    if not path.exists():
        pytest.skip(f"{path} is not there (../shared beside the checkout)")
    return path.read_text()


def gpu001() -> HostIntent:
    intent = plan(FABRIC, "gpu001")
    assert isinstance(intent, HostIntent)
    return intent


ADDR = json.dumps([
    {"ifindex": 1, "ifname": "lo", "mtu": 65536, "addr_info": [{"family": "inet", "local": "127.0.0.1",
                                                                "prefixlen": 8}]},
    {"ifindex": 4, "ifname": "eth2", "mtu": 9000, "addr_info": [
        {"family": "inet", "local": "10.128.0.5", "prefixlen": 31},
        {"family": "inet6", "local": "fe80::bace:f6ff:fea8:46f6", "prefixlen": 64},
        {"family": "inet", "local": "10.9.0.1", "prefixlen": 24}]},
])
RDMA = json.dumps([{"ifindex": 0, "ifname": "mlx5_2", "port": 1, "state": "ACTIVE", "physical_state": "LINK_UP",
                    "netdev": "eth2", "netdev_index": 4}])
ROUTES = json.dumps([
    {"dst": "default", "gateway": "10.128.0.4", "dev": "eth2", "table": "100", "flags": []},
    {"dst": "10.128.0.0/17", "gateway": "10.128.0.4", "dev": "eth2", "flags": []},
    {"dst": "10.128.0.4/31", "dev": "eth2", "protocol": "kernel", "scope": "link", "prefsrc": "10.128.0.5"},
    {"type": "local", "dst": "10.128.0.5", "dev": "eth2", "table": "local", "protocol": "kernel"},
])


def test_real_captures_into_the_observed_host() -> None:
    outputs = {dm.CMD_ADDR: ADDR, dm.CMD_RDMA: RDMA, dm.CMD_ROUTES: ROUTES,
               dm.cmd_mlnx_qos("eth2"): fixture("mlnx_qos_trust_dscp.txt"),
               boot.cmd_mlxconfig("mlx5_2", ("KEEP_IB_LINK_UP_P2",)): fixture("mlxconfig_e_query_connectx4.txt")}
    seen = DRIVER.observe(outputs)
    assert isinstance(seen, ObservedHost) and set(seen.nics or {}) == {"eth2"}  # lo is no RDMA NIC
    nic = (seen.nics or {})["eth2"]
    assert nic.netdev == "eth2" and nic.rdma_dev == "mlx5_2" and nic.mtu == 9000
    assert nic.addresses == ["10.128.0.5/31", "10.9.0.1/24"] and "address" not in nic.model_fields_set
    assert nic.routes == [ObservedRoute(to="10.128.0.0/17", via="10.128.0.4", table=None),
                          ObservedRoute(to="0.0.0.0/0", via="10.128.0.4", table=100)]
    assert nic.trust == "dscp" and nic.pfc_priorities == [3]
    assert nic.dscp_to_priority == {d: d >> 3 for d in range(64)}
    assert nic.prio_tc == {0: 1, 1: 0, **{p: p for p in range(2, 8)}}  # the mlx5 default swaps 0 and 1
    assert nic.tc_bandwidth == dict.fromkeys(range(8), 0) and nic.strict_tcs == []  # vendor TSA everywhere
    assert seen.firmware is not None  # every next-boot value the table shows (not the parameter asked for only)
    assert seen.firmware.devices == {"mlx5_2": {"KEEP_IB_LINK_UP_P2": 1, "KEEP_LINK_UP_ON_BOOT_P2": 0,
                                                "MEMIC_SIZE_LIMIT": 0}}
    # what was not read stays unset: never compared
    assert {"roce_mode", "roce_tos", "dcqcn", "cnp_dscp"}.isdisjoint(nic.model_fields_set)
    assert {"sysctls", "boot", "nccl", "gids", "tools"}.isdisjoint(seen.model_fields_set)


def test_sysfs_sysctl_and_rdma_cm_reads_without_the_rdma_tool() -> None:
    ecn = "/sys/class/net/eth0/ecn"
    dump = "\n".join([*(f"{ecn}/roce_np/enable/{p}:{int(p == 3)}" for p in range(8)),
                      *(f"{ecn}/roce_rp/enable/{p}:{int(p == 3)}" for p in range(8)),
                      f"{ecn}/roce_np/cnp_dscp:48", f"{ecn}/roce_np/cnp_802p_prio:6",
                      f"{ecn}/roce_np/min_time_between_cnps:4", f"{ecn}/roce_rp/rpg_ai_rate:5"])
    gids = ("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
            "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
            "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a80:0001\t10.128.0.1  \tv2\teth0\nn_gids_found=1\n")
    outputs = {dm.CMD_RDMA: "bash: rdma: command not found\n", dm.cmd_sysfs([f"{ecn}/"]): dump,
               dm.cmd_roce_mode("mlx5_0"): "RoCE v2\n", dm.cmd_roce_tos("mlx5_0"): "106\n", boot.CMD_GIDS: gids,
               dm.cmd_sysctl(["net.ipv4.conf.all.arp_ignore", "net.ipv4.tcp_rmem"]):
                   "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.tcp_rmem = 4096\t87380\t6291456\n"}
    seen = observe.observe(outputs)
    nic = (seen.nics or {})["eth0"]  # found by its RDMA device in show_gids' rows
    assert nic.rdma_dev == "mlx5_0" and nic.roce_mode == "RoCE v2" and nic.roce_tos == 106
    assert nic.dcqcn == ObservedDcqcn(np_enabled=[3], rp_enabled=[3], rp={"rpg_ai_rate": 5},
                                      np={"cnp_dscp": 48, "cnp_802p_prio": 6, "min_time_between_cnps": 4})
    assert nic.cnp_dscp == 48 and nic.cnp_priority == 6
    assert seen.sysctls == {"net.ipv4.conf.all.arp_ignore": "1", "net.ipv4.tcp_rmem": "4096 87380 6291456"}
    assert [(g.dev, g.index, g.ipv4, g.version) for g in seen.gids or []] == [("mlx5_0", 3, "10.128.0.1", "v2")]


def test_expected_is_the_intent_as_the_host_shows_it() -> None:
    intent = gpu001()
    want = DRIVER.expected(intent)
    nic = (want.nics or {})["eth0"]
    assert nic.addresses == [intent.nics["eth0"].address]
    assert [r.table for r in nic.routes or []] == [None, 100]  # route_key order: main table first
    assert want.boot is not None and set((want.boot.files or {}).values()) != {None}
    assert compare(want, want) == []


def test_one_departing_setting_on_two_nics_is_a_drift_per_nic() -> None:
    want = DRIVER.expected(gpu001())
    nics = want.nics or {}
    seen_nics = {name: nic.model_copy(update={"trust": "pcp"}) for name, nic in nics.items()}
    # the device's own: a NIC roceops does not manage, an extra DCQCN file, an extra sysctl
    seen_nics["eth9"] = ObservedNic(netdev="eth9", mtu=1500)
    eth0 = seen_nics["eth0"]
    assert eth0.dcqcn is not None and eth0.dcqcn.np is not None
    seen_nics["eth0"] = eth0.model_copy(update={
        "dcqcn": eth0.dcqcn.model_copy(update={"np": {**eth0.dcqcn.np, "cnp_dscp": 48}}),
        "addresses": [*(eth0.addresses or []), "10.9.0.1/24"]})
    seen = want.model_copy(update={"nics": seen_nics, "sysctls": {**(want.sysctls or {}), "kernel.pid_max": "1"}})
    drift = compare(want, seen)
    assert [d.path for d in drift] == ["nics[eth0].trust", "nics[eth0].addresses", "nics[eth1].trust"]
    assert {(d.expected, d.observed) for d in drift if d.path.endswith("trust")} == {("dscp", "pcp")}


def test_observe_takes_only_outputs_and_parsers_never_the_intent() -> None:
    assert list(inspect.signature(DRIVER.observe).parameters) == ["outputs"]
    assert list(inspect.signature(observe.observe).parameters) == ["outputs"]
    for module in (parsers, parsers_boot, observe):
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ != module.__name__ or name == "expected":
                continue
            params = inspect.signature(fn).parameters
            assert not [p for p in params if p == "intent" or p.startswith(("want", "expected"))], name
            assert not [p for p in params.values() if "Intent" in str(p.annotation)], name
