"""Each platform's translation of its rendered routing config into FRR bgpd.conf (what that NOS's routing
stack runs), checked against the rendered examples and FRR's own parser where FRR is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
from conftest import example_dict
from frrkit import legacy_config_db

from roceops.device.intent import SwitchIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.cumulus.frr import frr_bgpd_conf as cumulus_bgpd
from roceops.platforms.eos.frr import frr_bgpd_conf as eos_bgpd
from roceops.platforms.frr_conf import TranslationError
from roceops.platforms.linux_mlx5.routing import host_routing
from roceops.platforms.sonic.frr import frr_bgpd_conf as sonic_bgpd
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand


@cache
def rendered(name: str) -> tuple[SwitchIntent, dict[str, str]]:
    fab = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    intent = plan(fab, name)
    return intent, render_device(intent).files  # type: ignore[return-value]


def _block(conf: str) -> list[str]:
    return [line.strip() for line in conf.splitlines()]


def test_sonic_frrcfgd_announces_loopback_and_host_subnets_with_policy() -> None:
    intent, files = rendered("leaf-su1-r1")
    lines = _block(sonic_bgpd(intent.name, files["config_db.json"]))
    assert f"router bgp {intent.bgp.asn}" in lines and "no bgp default ipv4-unicast" in lines
    assert "no bgp ebgp-requires-policy" not in lines  # frrcfgd never writes it: the route-map is needed
    assert {f"network {n}" for n in intent.bgp.networks} <= set(lines)
    assert "maximum-paths 64" in lines and "bgp bestpath as-path multipath-relax" in lines
    assert "route-map ROCEOPS_ALLOW permit 10" in lines
    for n in intent.bgp.neighbors:
        assert f"neighbor {n.ip} remote-as {n.remote_asn}" in lines
        assert {f"neighbor {n.ip} activate", f"neighbor {n.ip} route-map ROCEOPS_ALLOW in",
                f"neighbor {n.ip} route-map ROCEOPS_ALLOW out"} <= set(lines)


def test_sonic_classic_bgpcfgd_announces_only_the_loopback() -> None:
    """The behaviour issue 16 item 2 describes: bgpd.main.conf.j2 never announces routed host subnets."""
    intent, files = rendered("leaf-su1-r1")
    lines = _block(sonic_bgpd(intent.name, legacy_config_db(files["config_db.json"])))
    assert [ln for ln in lines if ln.startswith("network ")] == [f"network {intent.loopback}"]
    assert "no bgp ebgp-requires-policy" in lines and "maximum-paths 64" in lines
    assert sum(ln.endswith(" activate") for ln in lines) == len(intent.bgp.neighbors)


def test_sonic_split_mode_and_missing_instance_are_errors() -> None:
    intent, files = rendered("leaf-su1-r1")
    db = json.loads(files["config_db.json"])
    db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "split"
    with pytest.raises(TranslationError, match="leaf-su1-r1: docker_routing_config_mode split"):
        sonic_bgpd(intent.name, json.dumps(db))
    db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "unified"
    del db["BGP_GLOBALS"]
    with pytest.raises(TranslationError, match="local_asn"):
        sonic_bgpd(intent.name, json.dumps(db))


def test_sonic_frrcfgd_without_max_ebgp_paths_leaves_frr_default() -> None:
    intent, files = rendered("leaf-su1-r1")
    db = json.loads(files["config_db.json"])
    del db["BGP_GLOBALS_AF"]
    assert not [ln for ln in _block(sonic_bgpd(intent.name, json.dumps(db))) if ln.startswith("maximum-paths")]


def test_cumulus_translation() -> None:
    intent, files = rendered("leaf-su2-r1")
    lines = _block(cumulus_bgpd(intent.name, files["nvue.commands"]))
    assert "no bgp ebgp-requires-policy" in lines  # Cumulus runs FRR with datacenter defaults
    assert {f"network {n}" for n in intent.bgp.networks} <= set(lines) and "maximum-paths 64" in lines
    assert {f"neighbor {n.ip} remote-as {n.remote_asn}" for n in intent.bgp.neighbors} <= set(lines)
    without = "\n".join(ln for ln in files["nvue.commands"].splitlines() if "multipaths ebgp" not in ln)
    assert "maximum-paths 64" in _block(cumulus_bgpd(intent.name, without))  # NVUE's default


def test_eos_translation_and_its_single_path_default() -> None:
    intent, files = rendered("spine01")
    lines = _block(eos_bgpd(intent.name, files["config.eos"]))
    assert "maximum-paths 64" in lines and f"network {intent.loopback}" in lines
    assert {f"neighbor {n.ip} remote-as {n.remote_asn}" for n in intent.bgp.neighbors} <= set(lines)
    without = "\n".join(ln for ln in files["config.eos"].splitlines() if "maximum-paths" not in ln)
    assert "maximum-paths 1" in _block(eos_bgpd(intent.name, without))
    with pytest.raises(TranslationError, match="no 'router bgp'"):
        eos_bgpd(intent.name, "hostname spine01\n")


def test_host_routing_is_what_netplan_and_sysctl_apply() -> None:
    fab = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    host = plan(fab, "gpu001")
    files = render_device(host).files
    r = host_routing(files["netplan.yaml"], files["sysctl.conf"])
    nic = host.nics["eth0"]
    assert r.nics["eth0"] == (nic.mtu, [nic.address])
    assert f"rule add from {nic.address.split('/')[0]} table {nic.table}" in r.ip_commands
    assert f"route replace default via {nic.gateway} dev eth0 table {nic.table}" in r.ip_commands
    assert r.sysctls == host.sysctls


@pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR (vtysh) not installed")
@pytest.mark.parametrize("name", ["leaf-su1-r1", "leaf-su2-r1", "spine01"])
def test_frr_accepts_every_translation(name: str, tmp_path: Path) -> None:
    """vtysh --dryrun parses the file with FRR's own grammar (no daemon needed)."""
    intent, files = rendered(name)
    conf = {"sonic": lambda: sonic_bgpd(name, files["config_db.json"]),
            "cumulus": lambda: cumulus_bgpd(name, files["nvue.commands"]),
            "eos": lambda: eos_bgpd(name, files["config.eos"])}[intent.platform]()
    path = tmp_path / "bgpd.conf"
    path.write_text(conf)
    proc = subprocess.run(["vtysh", "--dryrun", "-f", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
