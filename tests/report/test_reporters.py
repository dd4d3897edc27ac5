"""One result type, one reporter per format (roceops.report): each reads only a list of Result and the Run."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from prometheus_client.parser import text_string_to_metric_families

from roceops.report import formats
from roceops.report.fabric_map import FabricMap, MapDevice, MapLink
from roceops.report.result import Result, Run, columns
from roceops.report.table import print_table
from roceops.report.tables import LiteralConsole

RESULTS = [
    Result(check="config.drift", device="leaf1", path="ports[Ethernet0].mtu", expected=9216, observed=1500,
           hint="roceops deploy --limit leaf1 --commit"),
    Result(check="config.drift", device="leaf1", path="ports[Ethernet0].description", status="warn",
           expected="a|b", observed=None, message="changed"),
    Result(check="device.unreachable", device="spine1", status="error", message="could not reach"),
    Result(check="link.up", device="gpu1", path="eth0", status="ok"),
    Result(check="traffic.rdma", device="gpu1", path="gpu1:mlx5_0", status="skipped", message="one node"),
]
RUN = Run(command="audit", fabric="fab", devices=["leaf1", "spine1", "gpu1"], groups={"leaf1": "sonic"},
          seconds=1.5, exit_code=2, title="t", headline="3 devices",
          columns=columns(("device", "device"), ("path", "path"), ("observed", "observed"), ("fix", "fix")),
          summary=["done"], sections={"Resolved": ["- x"], "Empty": []}, results_key="findings",
          document={"unreachable": ["spine1"]})
MAP = FabricMap(name="fab", planes=1, devices=[
    MapDevice(name="spine1", role="spine", plane=1), MapDevice(name="leaf1", role="leaf", plane=1, su=1, rail=1),
    MapDevice(name="gpu1", role="host", su=1, leaves=("leaf1",))],
    links=[MapLink(a="gpu1", b="leaf1", tier="host-leaf"), MapLink(a="leaf1", b="spine1", tier="leaf-spine")])


def test_every_file_format_is_registered_and_reads_only_results_and_run() -> None:
    assert set(formats.REPORTERS) == {"html", "json", "junit", "markdown", "prometheus"}
    run = RUN.model_copy(update={"fabric_map": MAP, "invocation": "roceops audit"})  # what html draws
    before = ([r.model_dump() for r in RESULTS], run.model_dump())
    for fmt in formats.REPORTERS:
        assert "leaf1" in formats.report(fmt, RESULTS, run)
    assert ([r.model_dump() for r in RESULTS], run.model_dump()) == before  # reporters only read


def test_html_needs_the_map_its_run_carries() -> None:
    with pytest.raises(ValueError, match="fabric's map"):
        formats.report("html", RESULTS, RUN)
    page = formats.report("html", RESULTS, RUN.model_copy(update={"fabric_map": MAP}))
    assert 'data-device="leaf1"' in page and 'data-device="gpu1"' in page


def test_junit_one_testcase_per_device_failures_errors_and_skips() -> None:
    suite = ET.fromstring(formats.report("junit", RESULTS, RUN)).find("testsuite")
    assert suite is not None
    assert (suite.get("name"), suite.get("tests"), suite.get("failures"), suite.get("errors")) == (
        "roceops audit fab", "3", "1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["leaf1"].get("classname") == "fab.sonic" and cases["gpu1"].get("classname") == "fab.unknown"
    assert [f.get("type") for f in cases["leaf1"].iter("failure")] == ["config.drift", "config.drift"]
    assert cases["spine1"].find("error") is not None
    assert cases["gpu1"].find("failure") is None and cases["gpu1"].find("skipped") is not None


def test_json_keeps_the_commands_fields_and_lists_results_under_its_key() -> None:
    doc = json.loads(formats.report("json", RESULTS, RUN))
    assert (doc["fabric"], doc["devices"], doc["exit_code"], doc["unreachable"]) == ("fab", 3, 2, ["spine1"])
    assert [Result.model_validate(r) for r in doc["findings"]] == RESULTS  # results round-trip (merging shards)


def test_markdown_cells_escape_pipes_and_show_missing_values() -> None:
    text = formats.report("markdown", RESULTS, RUN)
    assert text.startswith("# roceops audit: fab\n\n3 devices\n\n| device | path | observed | fix |\n|---|---|---|---|")
    assert "| leaf1 | ports[Ethernet0].mtu | 1500 | roceops deploy --limit leaf1 --commit |" in text
    assert "| spine1 | - | - | could not reach |" in text
    assert "## Resolved\n\n- x" in text and "Empty" not in text


def test_prometheus_counts_what_is_not_ok_and_reachability() -> None:
    families = {f.name: f for f in text_string_to_metric_families(formats.report("prometheus", RESULTS, RUN))}
    findings = {s.labels["device"]: s.value for s in families["roceops_audit_device_findings"].samples}
    assert findings == {"leaf1": 2, "spine1": 1, "gpu1": 1}  # gpu1's skipped check is not ok
    reachable = {s.labels["device"]: s.value for s in families["roceops_audit_device_reachable"].samples}
    assert reachable == {"leaf1": 1, "spine1": 0, "gpu1": 1}
    assert "roceops_audit_last_success_timestamp_seconds" not in {  # not every device reached, none carried over
        s.name for f in families.values() for s in f.samples}


def test_table_prints_rows_then_summary() -> None:
    console = LiteralConsole()
    with console.capture() as capture:
        print_table(console, RESULTS[:1], RUN)
    text = capture.get()
    assert "ports[Ethernet0].mtu" in text and text.rstrip().endswith("done")
