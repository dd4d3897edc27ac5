"""Rules guarding invariants that expansion builds by construction: tested with a hand-modified Fabric."""

from __future__ import annotations

import dataclasses

import pytest
from lint_helpers import base, base_fabric, broken, intent, run

import roceops.lint
from roceops.lint import RuleRegistry, Severity, lint
from roceops.topology.fabric import Endpoint, Fabric, Link


def _ids(fabric: Fabric) -> set[str]:
    report = run(base(), fabric)
    print(report)
    return report.ids


def test_unmodified_fabric_is_clean() -> None:
    assert _ids(base_fabric()) == set()


def test_topo002_radix_exceeded() -> None:
    f = base_fabric()
    extra = Link(a=Endpoint("leaf-su1-r1", "Ethernet64"), b=Endpoint("spine01", "Ethernet64"), tier="leaf-spine",
                 plane=1, speed=400_000, cable_length=40, a_ip="10.1.0.201/31", b_ip="10.1.0.200/31")
    assert _ids(dataclasses.replace(f, links=[*f.links, extra])) == {"TOPO002"}


def test_topo002_port_used_twice() -> None:
    f = base_fabric()
    links = list(f.links)
    on_leaf = [i for i, link in enumerate(links) if link.b.device == "leaf-su1-r1" and link.tier == "host-leaf"]
    first, second = on_leaf[:2]
    links[second] = dataclasses.replace(links[second], b=links[first].b)
    assert _ids(dataclasses.replace(f, links=links)) == {"TOPO002"}


def test_topo005_spines_too_small_for_target() -> None:
    grown = broken(("scalable_units.target_count", 8))
    report = lint(intent(grown), base_fabric())  # a fabric built for 2 SUs, an intent that wants to grow to 8
    assert report.ids == {"TOPO005"}
    assert report.findings[0].path == "scalable_units.target_count"


def test_topo008_nic_off_its_rail() -> None:
    f = base_fabric()
    host = f.hosts[0]
    nics = [host.nics[0].model_copy(update={"leaf": "leaf-su1-r2"}), *host.nics[1:]]
    hosts = [host.model_copy(update={"nics": nics}), *f.hosts[1:]]
    assert _ids(dataclasses.replace(f, hosts=hosts)) == {"TOPO008"}


def test_topo009_leaf_misses_a_spine() -> None:
    f = base_fabric()
    links = list(f.links)
    a = [i for i, x in enumerate(links) if x.a.device == "leaf-su1-r1" and x.b.device == "spine02"]
    b = [i for i, x in enumerate(links) if x.a.device == "leaf-su1-r2" and x.b.device == "spine01"]
    assert len(a) == len(b) == 2
    for i, j in zip(a, b, strict=True):  # swap spine ends: port counts stay, each leaf loses one spine
        links[i], links[j] = (dataclasses.replace(links[i], b=links[j].b), dataclasses.replace(links[j], b=links[i].b))
    assert _ids(dataclasses.replace(f, links=links)) == {"TOPO009"}


def test_asn002_spine_group_split() -> None:
    f = base_fabric()
    switches = [sw.model_copy(update={"asn": sw.asn + 50}) if sw.name == "spine02" else sw for sw in f.switches]
    assert _ids(dataclasses.replace(f, switches=switches)) == {"ASN002"}


def test_topo000_unexpected_expansion_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_intent: object) -> Fabric:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(roceops.lint, "expand", boom)
    report = run(base())
    assert report.ids == {"TOPO000"}
    assert "RuntimeError: kaboom" in report.findings[0].message
    assert report.fabric is None


def test_crashing_rule_becomes_a_finding() -> None:
    registry = RuleRegistry()

    @registry.rule("TEST001", "warning", "always crashes", "none")
    def crash(_ctx: object) -> list[object]:
        raise ZeroDivisionError("nope")

    report = lint(intent(base()), registry=registry)
    (f,) = report.findings
    assert (f.id, f.severity) == ("LINT000", Severity.ERROR)
    assert "TEST001" in f.message
    assert not report.ok


def test_rule_ids_are_unique() -> None:
    registry = RuleRegistry()
    registry.rule("X001", "error", "a", "b")(lambda ctx: [])
    with pytest.raises(ValueError, match="registered twice"):
        registry.rule("X001", "error", "a", "b")(lambda ctx: [])
