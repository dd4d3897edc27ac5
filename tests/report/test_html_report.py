"""Issue 31: the HTML report and the topology picture, read back without a browser (tests/report/
test_html_browser.py loads them in Chromium)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache

from htmlscan import device_status, elements, external_references
from labtools import lab_mini
from typer.testing import CliRunner

from roceops.audit.engine import AuditResult
from roceops.audit.report import run_of as audit_run
from roceops.cli.main import app
from roceops.health.engine import HealthReport
from roceops.health.model import Verdict
from roceops.health.report import run_of as health_run
from roceops.model.intent import FabricIntent
from roceops.report.html import render_html, topology_html, topology_svg
from roceops.report.html.layout import FULL_MAP_MAX
from roceops.report.result import Result
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.verify.engine import VerifyResult
from roceops.verify.report import run_of as verify_run

ALL = [d.name for d in lab_mini().devices()]


def audit_result(findings: list[Result], devices: list[str] = ALL) -> AuditResult:
    return AuditResult(fabric="lab-mini", devices=devices, audits=[], findings=findings, seconds=1.5)


def audit_html(result: AuditResult, fabric: Fabric, command: str) -> str:
    return render_html(result.findings, audit_run(result), fabric, command)


def pfc_off(device: str = "leaf-su1-r1") -> Result:
    return Result(check="config.drift", device=device, path="ports[Ethernet0].pfc_priorities", expected=[3],
                   observed=[], hint=f"roceops deploy --limit {device} --commit")


def test_audit_report_marks_each_device_once_by_its_worst_finding() -> None:
    findings = [pfc_off(), Result(check="device.unreachable", device="gpu003", status="error", message="refused"),
                Result(check="config.drift", device="spine01", path="mtu", expected=9216, observed=1500,
                        status="warn")]
    html = audit_html(audit_result(findings), lab_mini(), "roceops audit --lab --format html")
    status = device_status(html)
    assert sorted(status) == sorted(ALL)
    assert {d: s for d, s in status.items() if s != "ok"} == {
        "leaf-su1-r1": "drift", "gpu003": "unreachable", "spine01": "drift"}
    rows = [a for t, a in elements(html) if t == "tr" and "data-device" in a]
    assert sorted((r["data-device"], r["data-check"]) for r in rows) == sorted(
        (f.device, f.check) for f in findings)
    assert "roceops audit --lab --format html" in html and "ports[Ethernet0].pfc_priorities" in html
    assert "roceops deploy --limit leaf-su1-r1 --commit" in html  # the fix hint


def test_report_is_self_contained_and_escapes_observed_values() -> None:
    evil = Result(check="config.drift", device="leaf-su1-r1", path="description", expected="x",
                   observed='<script src="https://evil.example/x.js"></script>')
    html = audit_html(audit_result([evil]), lab_mini(), "roceops audit")
    assert '<script src="https://evil.example' not in html
    assert html.count("evil.example") == 1  # as text in its table cell, escaped, and nowhere else
    assert all("evil.example" in ref for ref in external_references(html))
    tags = elements(html)
    assert [a for t, a in tags if t in ("link", "img", "iframe", "object", "embed")] == []
    assert all("src" not in a for t, a in tags if t == "script")
    csp = [a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")


def test_every_status_has_its_own_icon_and_text_not_only_a_colour() -> None:
    html = audit_html(audit_result([pfc_off()]), lab_mini(), "roceops audit")
    tags = elements(html)
    icons = {a["id"] for t, a in tags if t == "symbol"}
    assert icons == {f"i-{s}" for s in ("ok", "drift", "fail", "drain", "unreachable", "unknown")}
    leaf = next(a for t, a in tags if a.get("data-device") == "leaf-su1-r1")
    assert leaf["aria-label"] == "leaf-su1-r1: drift, 1 finding" and leaf["tabindex"] == "0"
    assert ">leaf-su1-r1</text>" in html  # the name is text, not a path


def test_devices_outside_the_run_are_drawn_as_not_checked() -> None:
    html = audit_html(audit_result([pfc_off()], ["leaf-su1-r1", "gpu001"]), lab_mini(), "roceops audit")
    out = [a["data-device"] for t, a in elements(html) if t == "g" and a.get("data-scope") == "out"]
    assert sorted(out) == sorted(set(ALL) - {"leaf-su1-r1", "gpu001"})


def test_health_report_marks_the_drained_nodes_and_keeps_warnings_as_notes() -> None:
    results = [Result(device="gpu002", check="nic.pfc", path="eth0", status="fail", expected=[3], observed=[]),
               Result(device="gpu005", check="leaf.uplinks", path="leaf-su2-r1", status="warn", message="skew"),
               Result(device="gpu006", check="leaf.port", path="leaf-su2-r2:swp2", status="unknown")]
    nodes = ["gpu002", "gpu005", "gpu006", "gpu007"]
    verdicts = [Verdict(node="gpu002", status="drain"), Verdict(node="gpu005", status="ok"),
                Verdict(node="gpu006", status="unknown"), Verdict(node="gpu007", status="ok")]
    report = HealthReport(nodes=nodes, results=results, verdicts=verdicts, seconds=2.0, devices=8)
    html = render_html(report.results, health_run(report), lab_mini(), "roceops health")
    status = device_status(html)
    assert {d for d, s in status.items() if s == "drain"} == {"gpu002"}
    assert status["gpu006"] == "unknown" and status["gpu005"] == "ok" and status["leaf-su2-r1"] == "ok"
    assert "skew" in html


def test_verify_report_fails_both_ends_of_a_broken_session() -> None:
    fabric = lab_mini()
    link = next(link for link in fabric.links if link.tier == "leaf-spine")
    assert link.b_ip
    finding = Result(check="bgp.session", device=link.a.device, path=f"bgp[{link.b_ip.split('/')[0]}]",
                      expected="Established", observed="Active")
    result = VerifyResult(fabric="lab-mini", run_id="rv1", devices=ALL, findings=[finding], seconds=7.0)
    html = render_html(result.findings, verify_run(result), fabric, "roceops verify routing")
    assert {d for d, s in device_status(html).items() if s == "fail"} == {link.a.device, link.b.device}


@cache
def ten_sus() -> Fabric:
    """Ten SUs of 32 nodes x 8 rails: past FULL_MAP_MAX, so the map collapses per group."""
    return expand(FabricIntent.model_validate({
        "name": "ten-su", "scalable_units": {"count": 10, "nodes_per_su": 32},
        "switch_models": {"sw64": {"radix": 64, "port_speed": "400G", "hwsku": "Mellanox-SN5600-O128"}},
        "tiers": {"leaf": {"model": "sw64", "platform": "sonic"}, "spine": {"model": "sw64", "platform": "eos"},
                  "core": {"model": "sw64", "platform": "eos"}},
        "addressing": {"loopbacks": "10.0.0.0/16", "p2p": "10.64.0.0/12", "hosts": "10.128.0.0/9",
                       "management": "172.16.0.0/12"}}))


def test_large_fabric_collapses_per_su_with_the_worst_status() -> None:
    fabric = ten_sus()
    names = [d.name for d in fabric.devices()]
    assert len(names) > FULL_MAP_MAX
    leaf = next(s.name for s in fabric.switches if s.role == "leaf" and s.su == 3)
    result = AuditResult(fabric=fabric.intent.name, devices=names, audits=[], findings=[pfc_off(leaf)], seconds=9.0)
    html = audit_html(result, fabric, "roceops audit")
    tags = elements(html)
    tiles = {a["data-group"]: a.get("data-status") for t, a in tags if t == "a" and "tile" in a.get("class", "")}
    assert tiles["su3"] == "drift" and all(s == "ok" for g, s in tiles.items() if g != "su3")
    details = {a["id"]: a.get("data-status") for t, a in tags if t == "details"}
    assert set(details) == {f"g-{g}" for g in tiles} and details["g-su3"] == "drift"
    assert not any("open" in a for t, a in tags if t == "details")  # collapsed
    assert sorted(device_status(html)) == sorted(names)  # yet every device is on the page once


def test_topology_svg_is_xml_with_every_device_and_the_cable_counts() -> None:
    fabric = lab_mini()
    root = ET.fromstring(topology_svg(fabric))
    ns = "{http://www.w3.org/2000/svg}"
    devices = [g.get("data-device") for g in root.iter(f"{ns}g") if g.get("data-device")]
    assert sorted(devices) == sorted(ALL)
    assert all(g.get("data-status") is None for g in root.iter(f"{ns}g"))  # a plan has no status
    title = root.find(f"{ns}title")
    assert title is not None and "host-leaf 16" in (title.text or "") and "leaf-spine 16" in (title.text or "")
    labels = [t.text for t in root.iter(f"{ns}text")]
    assert labels.count("4 cables") == 4  # each leaf's bundle to its SU's four hosts


def test_topology_cli_writes_svg_and_html() -> None:
    runner = CliRunner()
    svg = runner.invoke(app, ["topology", "-f", "inventory/lab-mini.yaml", "--format", "svg"])
    assert svg.exit_code == 0, svg.output
    assert svg.output.startswith("<svg") and "data-device=\"gpu008\"" in svg.output
    page = runner.invoke(app, ["topology", "-f", "inventory/lab-mini.yaml", "--format", "html"])
    assert page.exit_code == 0 and external_references(page.output) == []
    assert page.output == topology_html(lab_mini(), _command_of(page.output))


def _command_of(html: str) -> str:
    import html as h

    start = html.index('<code id="command">') + len('<code id="command">')
    return h.unescape(html[start:html.index("</code>", start)])
