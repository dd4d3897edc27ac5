"""Issue 31 in a real browser: the reports of audit, health and verify routing loaded in Debian's headless
Chromium (the DOM after scripts, a screenshot, a log of attempted requests). Skips without chromium.

``ROCEOPS_UPDATE_SCREENSHOT=1`` also writes the audit report's screenshot to docs/report-audit.png (README).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import RequestLog, chromium, dump_dom
from conftest import REPO
from htmlscan import device_status, elements, external_references
from labtools import free_endpoint_base, lab_mini
from typer.testing import CliRunner

from roceops.audit.engine import AuditResult
from roceops.audit.report import run_of as audit_run
from roceops.cli.main import app
from roceops.device.intent import SwitchIntent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import LabThread
from roceops.plan import plan
from roceops.report.html import render_html
from roceops.report.result import Result
from roceops.verify.engine import VerifyOptions, VerifyUnavailable, preflight, verify_routing
from roceops.verify.report import run_of as verify_run

pytestmark = [pytest.mark.browser, pytest.mark.lab,
              pytest.mark.skipif(chromium() is None, reason="Debian's chromium is not installed (apt-get install "
                                                            "chromium)")]

LAB_MINI = str(REPO / "inventory" / "lab-mini.yaml")
CANARY = "canary.roceops.invalid"
# services Chromium calls by itself (time, component update, sign-in), whatever page it opens
CHROMIUM_OWN = (".google.com", ".googleapis.com", ".gvt1.com", ".gstatic.com")
# a click on a device and a status filter, run after the report's own script (the page's CSP allows inline script)
CLICK = ("<script>document.querySelector('.map .dev[data-device=\"{device}\"]')"
         ".dispatchEvent(new MouseEvent('click', {{bubbles: true}}));</script>")
FILTER = ("<script>var s = document.getElementById('f-status'); s.value = '{status}';"
          "s.dispatchEvent(new Event('change'));</script>")
# keyboard focus on a device (as Tab gives it)
FOCUS = "<script>document.querySelector('.map .dev[data-device=\"{device}\"]').focus();</script>"


def _host(request_line: str) -> str:
    """``GET http://h/x HTTP/1.1`` or ``CONNECT h:443 HTTP/1.1`` -> ``h``."""
    target = request_line.split(" ")[1] if " " in request_line else request_line
    return target.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]


@pytest.fixture(scope="module")
def browser_log() -> Iterator[RequestLog]:
    log = RequestLog()
    yield log
    log.close()


@pytest.fixture(scope="module")
def own_hosts(browser_log: RequestLog, tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """What Chromium requests by itself, from a canary page (which also proves the log sees a page's requests)."""
    page = tmp_path_factory.mktemp("canary") / "canary.html"
    page.write_text(f'<!doctype html><img src="http://{CANARY}/x.png" alt="">')
    hosts = {_host(r) for r in _open(page, browser_log)[1]}
    assert CANARY in hosts, f"the request log missed the canary page's request: {hosts}"
    return hosts - {CANARY}


def _open(page: Path, log: RequestLog, png: Path | None = None,
          flags: list[str] | None = None) -> tuple[str, list[str]]:
    """(DOM after scripts, requests made meanwhile); with ``png``, a 1400x1000 screenshot in the same run;
    ``flags``: more Chromium flags."""
    before = len(log.requests)
    extra = ([f"--screenshot={png}", "--window-size=1400,1000"] if png else []) + (flags or [])
    dom = dump_dom(page, log, extra)
    time.sleep(0.3)  # the log's thread records a request just after Chromium sent it
    return dom, log.requests[before:]


def _page_requests(requests: list[str], own: set[str]) -> list[str]:
    return [r for r in requests if _host(r) not in own and not _host(r).endswith(CHROMIUM_OWN)]


def _with_script(report: Path, script: str) -> Path:
    page = report.with_name(report.stem + "-driven.html")
    page.write_text(report.read_text().replace("</body>", script + "</body>"))
    return page


@pytest.fixture
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh lab-mini with its configuration already in place (audits clean; config faults outlive
    ``lab clear``, so each test gets its own); yields the lab's state folder."""
    state = tmp_path_factory.mktemp("lab") / "lab"
    base, port = free_endpoint_base()
    thread = LabThread(lab_specs(lab_mini(), configured=True), state, base_address=base, port=port).start()
    try:
        yield state
    finally:
        thread.stop()


def _cli(monkeypatch: pytest.MonkeyPatch, lab: Path, tmp_path: Path, *args: str) -> str:
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(lab))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code in (0, 1), result.output
    return result.output


def _screenshot_is_a_page(png: Path) -> None:
    """Pixel statistics, not a golden image: a full-size picture, mostly light, with dark text and the drift
    colour of the map's leaf box."""
    from PIL import Image, ImageStat

    with Image.open(png) as img:
        rgb = img.convert("RGB")
    assert rgb.size == (1400, 1000)
    grey = rgb.convert("L")
    stat = ImageStat.Stat(grey)
    assert stat.stddev[0] > 25, f"near-uniform screenshot (stddev {stat.stddev[0]:.1f})"
    hist = grey.histogram()
    dark = sum(hist[:80]) / (1400 * 1000)
    assert 0.01 < dark < 0.5, f"{dark:.3f} of the pixels are dark"
    colours = rgb.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50
    assert any(c == (0xFF, 0xF1, 0xC2) for _, c in colours), "no drift-coloured box on the map"


def test_audit_report_marks_exactly_the_injected_leaf(browser_log, own_hosts, lab, monkeypatch, tmp_path) -> None:
    _cli(monkeypatch, lab, tmp_path, "lab", "inject", "leaf-su1-r1", "pfc_off", "--port", "Ethernet0")
    (tmp_path / "lab-mini.yaml").write_text(Path(LAB_MINI).read_text())  # a short -f in the page's fix hints
    _cli(monkeypatch, lab, tmp_path, "audit", "-f", "lab-mini.yaml", "--lab", "--format", "html", "--output",
         "audit.html")
    report = tmp_path / "audit.html"
    png = tmp_path / "audit.png"
    dom, requests = _open(_with_script(report, CLICK.format(device="leaf-su1-r1")), browser_log, png)
    status = device_status(dom)
    assert sorted(status) == sorted(d.name for d in lab_mini().devices())
    assert {d: s for d, s in status.items() if s != "ok"} == {"leaf-su1-r1": "drift"}
    assert _page_requests(requests, own_hosts) == []
    assert external_references(report.read_text()) == []
    assert '<code id="command">roceops audit --fabric lab-mini.yaml --lab --format html --output audit.html<' in dom
    # the click showed the leaf's findings (path, expected, observed, fix) in the panel
    panel = dom[dom.index('id="panel"'):dom.index("</aside>")]
    assert "hidden" not in panel.split(">", 1)[0]
    assert "ports[Ethernet0]" in panel and "roceops deploy" in panel and 'data-device="leaf-su1-r1"' in panel
    _screenshot_is_a_page(png)
    if os.environ.get("ROCEOPS_UPDATE_SCREENSHOT"):
        _save_for_readme(png, REPO / "docs" / "report-audit.png")


def _save_for_readme(png: Path, target: Path) -> None:
    """The screenshot with its colours reduced to a palette (a small file for the repository)."""
    from PIL import Image

    with Image.open(png) as img:
        img.convert("RGB").quantize(colors=64).save(target, optimize=True)


def test_health_report_marks_exactly_the_drained_nodes(browser_log, own_hosts, lab, monkeypatch, tmp_path) -> None:
    _cli(monkeypatch, lab, tmp_path, "lab", "inject", "leaf-su1-r1", "pfc_off", "--port", "Ethernet4")
    _cli(monkeypatch, lab, tmp_path, "lab", "inject", "gpu006", "mtu_mismatch", "--port", "eth0", "--param",
         "mtu=1500")
    drain = tmp_path / "drain.txt"
    html = _cli(monkeypatch, lab, tmp_path, "health", "gpu[001-008]", "-f", LAB_MINI, "--lab", "--window", "1s",
                "--deadline", "20s", "--format", "html", "--drain-file", str(drain))
    drained = {line.split()[0] for line in drain.read_text().splitlines()}
    assert drained == {"gpu002", "gpu006"}
    report = tmp_path / "health.html"
    report.write_text(html)
    script = FILTER.format(status="drain") + FOCUS.format(device="gpu006")
    dom, requests = _open(_with_script(report, script), browser_log)
    status = device_status(dom)
    assert {d for d, s in status.items() if s == "drain"} == drained
    assert _page_requests(requests, own_hosts) == []
    # the status filter dims every device that is not drained and hides the other rows
    tags = [a for t, a in elements(dom) if t == "g" and "data-device" in a]
    assert {a["data-device"] for a in tags if "dim" not in a["class"].split()} == drained
    rows = [a for t, a in elements(dom) if t == "tr" and "data-status" in a and "hide" not in a.get("class", "")]
    assert rows and {r["data-status"] for r in rows} == {"drain"}
    # focus shows the node's findings (its NIC's MTU)
    assert '<h2 id="panel-h">gpu006</h2>' in dom
    panel = dom[dom.index('id="panel-rows"'):dom.index("</aside>")]
    assert 'data-device="gpu006"' in panel and "nic.mtu" in panel and 'data-device="gpu002"' not in panel


def test_verify_routing_report_shows_both_ends_of_a_broken_session(browser_log, own_hosts, tmp_path) -> None:
    try:
        preflight()
    except VerifyUnavailable as exc:
        pytest.skip(str(exc))
    fabric = lab_mini()
    leaf = plan(fabric, "leaf-su1-r1")
    assert isinstance(leaf, SwitchIntent)
    first = leaf.bgp.neighbors[0]
    neighbors = [first.model_copy(update={"remote_asn": 65999}), *leaf.bgp.neighbors[1:]]
    broken = leaf.model_copy(update={"bgp": leaf.bgp.model_copy(update={"neighbors": neighbors})})
    opts = VerifyOptions(settle_s=1.0, settle_down_s=5.0, deadline_s=40.0, state_dir=tmp_path / "state")
    result = verify_routing(fabric, opts, intents={"leaf-su1-r1": broken})
    assert [(f.check, f.device) for f in result.findings] == [("bgp.session", "leaf-su1-r1")]
    peer = next(link.b.device for link in fabric.links_of("leaf-su1-r1")
                if link.b_ip and link.b_ip.split("/")[0] == first.ip)
    report = tmp_path / "verify.html"
    report.write_text(render_html(result.findings, verify_run(result), fabric, "roceops verify routing"))
    dom, requests = _open(report, browser_log)
    assert {d for d, s in device_status(dom).items() if s == "fail"} == {"leaf-su1-r1", peer}
    assert _page_requests(requests, own_hosts) == []


def test_large_fabric_tile_opens_its_collapsed_su(browser_log, own_hosts, tmp_path) -> None:
    from test_html_report import ten_sus

    fabric = ten_sus()
    names = [d.name for d in fabric.devices()]
    leaf = next(s.name for s in fabric.switches if s.role == "leaf" and s.su == 3)
    finding = Result(check="config.drift", device=leaf, path="ports[Ethernet0].pfc_priorities", expected=[3],
                      observed=[])
    result = AuditResult(fabric=fabric.intent.name, devices=names, audits=[], findings=[finding], seconds=9.0)
    report = tmp_path / "large.html"
    report.write_text(render_html(result.findings, audit_run(result), fabric, "roceops audit"))
    click = "<script>document.querySelector('.map .tile[data-group=\"su3\"]').dispatchEvent(" \
            "new MouseEvent('click', {bubbles: true, cancelable: true}));</script>"
    dom, requests = _open(_with_script(report, click), browser_log)
    opened = {a["id"]: "open" in a for t, a in elements(dom) if t == "details"}
    assert opened["g-su3"] and sum(opened.values()) == 1
    assert {d: s for d, s in device_status(dom).items() if s != "ok"} == {leaf: "drift"}
    assert _page_requests(requests, own_hosts) == []


def test_without_javascript_the_map_and_tables_still_render(browser_log, own_hosts, tmp_path) -> None:
    fabric = lab_mini()
    names = [d.name for d in fabric.devices()]
    finding = Result(check="config.drift", device="leaf-su1-r1", path="ports[Ethernet0].pfc_priorities",
                     expected=[3], observed=[])
    result = AuditResult(fabric="lab-mini", devices=names, audits=[], findings=[finding], seconds=1.0)
    page = render_html(result.findings, audit_run(result), fabric, "roceops audit")
    # scripts off for this page only (its CSP forbids them): Chromium's own switch for that also stops --dump-dom
    allowed = "script-src &#39;unsafe-inline&#39;"  # as the page's CSP meta tag spells it
    assert allowed in page
    report = tmp_path / "nojs.html"
    report.write_text(page.replace(allowed, "script-src &#39;none&#39;"))
    png = tmp_path / "nojs.png"
    dom, requests = _open(report, browser_log, png)
    assert {d: s for d, s in device_status(dom).items() if s != "ok"} == {"leaf-su1-r1": "drift"}
    tags = elements(dom)
    assert any(t == "form" and a.get("id") == "filters" and "hidden" in a for t, a in tags)  # no script: no filters
    assert [a["data-device"] for t, a in tags if t == "tr" and "data-device" in a] == ["leaf-su1-r1"]
    assert _page_requests(requests, own_hosts) == []
    _screenshot_is_a_page(png)
