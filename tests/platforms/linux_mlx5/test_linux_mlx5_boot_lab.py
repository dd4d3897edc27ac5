"""The simulated host's boot-time state in the real tools' formats (no SSH: the shell directly): installed
files and their modes, systemctl show / is-enabled, mlxconfig query and set, show_gids, and what a reboot keeps.
The product's parsers read every answer."""

from __future__ import annotations

import yaml
from conftest import EXAMPLES

from roceops.lab.devices.linux_mlx5.device import COMMANDS, LinuxMlx5State
from roceops.lab.devices.linux_mlx5.shell import Shell
from roceops.lab.fabric_specs import lab_specs
from roceops.model.intent import FabricIntent
from roceops.platforms.linux_mlx5.parsers_boot import (
    parse_mlxconfig_query,
    parse_sha256sum,
    parse_show_gids,
    parse_systemctl_show,
)
from roceops.topology.expand import expand
from roceops.util.rdma import ipv4_gid

_data = yaml.safe_load(EXAMPLES["lab-mini"].read_text())
_data["node"]["firmware"] = True
FABRIC = expand(FabricIntent.model_validate(_data))


def host(configured: bool) -> tuple[LinuxMlx5State, Shell]:
    spec = lab_specs(FABRIC, ["gpu001"], configured=configured)[0]
    state = LinuxMlx5State(spec.name, spec.platform, spec.extra)
    return state, Shell(state, "admin", COMMANDS)


def test_configured_host_has_its_files_unit_and_firmware() -> None:
    _, sh = host(configured=True)
    show = parse_systemctl_show(sh.run_line("systemctl show roceops-roce.service -p UnitFileState -p Result").out)
    assert show == {"UnitFileState": "enabled", "Result": "success"}
    assert sh.run_line("systemctl is-enabled roceops-roce.service").out == "enabled\n"
    denied = sh.run_line("sha256sum /etc/netplan/60-roceops-rails.yaml")
    assert denied.status == 1 and "Permission denied" in denied.err  # 0600, read as admin
    sums = parse_sha256sum(sh.run_line("sudo sha256sum /etc/netplan/60-roceops-rails.yaml /etc/nccl.conf").out)
    assert all(sums.values()) and sh.run_line("stat -c %a /etc/netplan/60-roceops-rails.yaml").out == "600\n"
    query = parse_mlxconfig_query(sh.run_line("sudo mlxconfig -d mlx5_0 -e query ROCE_CC_PRIO_MASK_P1").out)
    assert query["device_type"] == "ConnectX7"
    assert query["params"]["ROCE_CC_PRIO_MASK_P1"] == {"default": 255, "current": 8, "next": 8}
    gids = parse_show_gids(sh.run_line("show_gids mlx5_0").out)
    assert [(g["index"], g["version"]) for g in gids if g["gid"] == ipv4_gid("10.128.0.1")] == [(2, "v1"), (3, "v2")]


def test_fresh_host_tools_answer_as_the_real_ones_do() -> None:
    _, sh = host(configured=False)
    missing = sh.run_line("systemctl is-enabled roceops-roce.service")
    assert missing.status == 1 and "Failed to get unit file state for roceops-roce.service" in missing.err
    show = parse_systemctl_show(sh.run_line("systemctl show roceops-roce.service -p LoadState -p UnitFileState").out)
    assert show == {"LoadState": "not-found", "UnitFileState": ""}
    assert "Permission denied" in sh.run_line("mlxconfig -d mlx5_0 query").err
    assert "doesn't support FOO_P1" in sh.run_line("sudo mlxconfig -d mlx5_0 -y set FOO_P1=1").err
    out = sh.run_line("sudo mlxconfig -d mlx5_0 -y set CNP_DSCP_P1=26").out
    assert "Please reboot machine to load new configurations" in out
    assert "fe80:" in sh.run_line("show_gids").out and "0000:0000:0000:0000:0000:ffff" not in sh.run_line(
        "show_gids").out  # no rail address yet: link-local GIDs only


def test_reboot_keeps_only_installed_files_and_firmware() -> None:
    state, sh = host(configured=True)
    sh.run_line("sudo mlxconfig -d mlx5_1 -y set CNP_DSCP_P1=26")
    sh.run_line("sudo mlnx_qos -i eth0 --pfc 0,0,0,0,0,0,0,0")  # runtime only: back after the reboot
    sh.run_line("sudo systemctl disable roceops-roce.service")
    sh.run_line("sudo systemctl enable roceops-roce.service")
    state.apply_fault("reboot")
    assert "PFC configuration" in sh.run_line("mlnx_qos -i eth0").out
    assert state.host.nics["eth0"].pfc_prios() == [3]  # the unit re-applied it
    assert state.host.nics["eth1"].nvconfig["CNP_DSCP_P1"] == [48, 26, 26]  # next boot became current
    assert parse_systemctl_show(sh.run_line("systemctl show roceops-roce.service -p ActiveState -p Result").out) == \
        {"ActiveState": "active", "Result": "success"}
    sh.run_line("sudo rm -f /usr/local/sbin/roceops-roce-setup.sh")
    state.apply_fault("reboot")
    show = parse_systemctl_show(sh.run_line("systemctl show roceops-roce.service -p ActiveState -p Result").out)
    assert show == {"ActiveState": "failed", "Result": "exit-code"} and state.host.nics["eth0"].pfc_prios() == []
