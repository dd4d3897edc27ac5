"""verify routing without root: the plane it would build (names, addresses, MTUs), the pure checks, and the
CLI's exit 3 where it cannot run."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from conftest import REPO, example_dict
from typer.testing import CliRunner

from roceops.cli.lab_routing import attach_vty
from roceops.cli.main import app
from roceops.lab.fabric_specs import lab_specs
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.verify import engine, frr
from roceops.verify.checks import check_ecmp, check_sessions, expected_widths
from roceops.verify.engine import select_pairs
from roceops.verify.netns import IFNAMSIZ
from roceops.verify.plane import Plane, build_plane


@cache
def plane_of(example: str) -> Plane:
    fab = expand(FabricIntent.model_validate(example_dict(example)))
    intents = {d.name: plan(fab, d.name) for d in fab.devices()}
    return build_plane("rv0abcd", fab, intents, {n: render_device(i) for n, i in intents.items()})


@pytest.mark.parametrize("example", ["lab-mini", "fabric"])
def test_names_fit_linux_and_never_collide(example: str) -> None:
    plane = plane_of(example)
    assert len(set(plane.namespaces)) == len(plane.namespaces)
    assert all(n.startswith("rv0abcd-") and len(n) <= IFNAMSIZ for n in plane.namespaces)
    per_ns: dict[str, set[str]] = {}
    macs = set()
    for c in plane.cables:
        for end in (c.a, c.b):
            assert re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", end.ifname), end
            assert end.ifname not in per_ns.setdefault(end.netns, set()), end
            per_ns[end.netns].add(end.ifname)
            macs.add(end.mac)
    assert len(macs) == 2 * len(plane.cables)
    assert all(s.bgpd_conf and not s.error for s in plane.switches.values())


def test_plane_carries_the_planned_addresses_mtus_and_sessions() -> None:
    plane = plane_of("fabric")
    assert (len(plane.switches), len(plane.hosts), len(plane.cables)) == (32, 64, 1024)
    assert len(plane.sessions) == 512 and len(plane.host_subnets) == 512
    eos_port = next(c.b for c in plane.cables if c.b.port == "Ethernet1/1")
    # '/' is not allowed in a Linux name; the EOS spines run 9214 (inventory/fabric.yaml spine override, the
    # DCS-7060X6-64PE profile maximum)
    assert eos_port.ifname != "Ethernet1/1" and eos_port.mtu == 9214
    host_end = next(c.a for c in plane.cables if c.tier == "host-leaf")
    assert host_end.mtu == 9000 and host_end.address and host_end.address.endswith("/31")


def test_expected_ecmp_width_is_uplinks_at_a_leaf_and_parallel_links_at_a_spine() -> None:
    plane = plane_of("lab-mini")
    widths = expected_widths(plane, plane.sessions)
    assert widths[("leaf-su1-r1", "leaf-su2-r1")] == 4  # 2 links to each of 2 spines
    assert widths[("spine01", "leaf-su2-r1")] == 2
    down = [s for s in plane.sessions if not (s.a == "leaf-su1-r1" and s.b == "spine01")]
    assert expected_widths(plane, down)[("leaf-su1-r1", "leaf-su2-r1")] == 2


def test_checks_report_a_down_session_once() -> None:
    plane = plane_of("lab-mini")
    states = {s: {} for s in plane.switches}  # type: dict[str, dict[str, str]]
    for s in plane.sessions:
        states[s.a][s.b_ip] = states[s.b][s.a_ip] = "Established"
    broken = plane.sessions[0]
    states[broken.a][broken.b_ip] = "Active"
    only = set(plane.switches)
    found = check_sessions(plane, states, only)
    assert [(f.check, f.device, f.path) for f in found] == [("bgp.session", broken.a, f"bgp[{broken.b_ip}]")]
    up = [s for s in plane.sessions if s != broken]
    widths = expected_widths(plane, up)
    fib = {sw: {p: widths.get((sw, o), 1) for p, o in plane.host_subnets.items()} for sw in plane.switches}
    assert check_ecmp(plane, fib, up, only) == []
    fib["spine01"] = {p: 1 for p in fib["spine01"]}
    assert [f.device for f in check_ecmp(plane, fib, up, only)] == ["spine01"]


def test_ping_sample_is_deterministic_and_spans_sus_and_rails() -> None:
    plane = plane_of("fabric")
    pairs = select_pairs(plane, 4, False, set(plane.hosts))
    assert pairs == select_pairs(plane, 4, False, set(plane.hosts)) and len(pairs) == 512 * 4
    first = [p for p in pairs if (p.host, p.netdev) == ("gpu001", "eth0")]
    rails = {plane.hosts[p.target_host].rails[next(d for d, v in plane.hosts[p.target_host].nics.items()
                                                   if v[0].split("/")[0] == p.target)] for p in first}
    assert len(first) == 4 and len(rails) >= 2
    assert {p.target_host for p in first if plane.hosts[p.target_host].su != plane.hosts["gpu001"].su}


def test_cli_exit_3_without_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine.os, "geteuid", lambda: 1000)
    res = CliRunner().invoke(app, ["verify", "routing", "-f", str(REPO / "inventory" / "lab-mini.yaml")])
    assert res.exit_code == 3 and "as root" in res.output


def test_cli_exit_3_without_frr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(engine.os, "geteuid", lambda: 0)
    monkeypatch.setattr(engine.shutil, "which", lambda _: "/usr/sbin/ip")
    monkeypatch.setattr(engine.subprocess, "run", lambda *a, **k: engine.subprocess.CompletedProcess(a, 0, "", ""))
    monkeypatch.setattr(frr, "FRR_DIR", tmp_path)
    res = CliRunner().invoke(app, ["verify", "routing", "-f", str(REPO / "inventory" / "lab-mini.yaml")])
    assert res.exit_code == 3 and "apt-get install frr" in res.output


def test_module_doctests() -> None:
    import doctest

    from roceops.verify import netns, plane

    for module in (frr, netns, plane):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_lab_routing_hands_the_vty_only_to_simulated_devices_that_read_it() -> None:
    fab = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    specs = lab_specs(fab)
    attach_vty(specs, {s.name: f"/run/{s.name}.vty" for s in specs})
    given = {s.platform for s in specs if "bgp_vty" in s.extra}
    assert given == {p for p in {s.platform for s in specs} if get_platform(p).lab_reads_frr}
    assert given == {"sonic", "cumulus"}  # their BGP shows read the real bgpd; EOS and hosts do not
    assert all(s.extra["bgp_vty"] == f"/run/{s.name}.vty" for s in specs if s.platform in given)
