"""Issue 14 defects 16 and 18: tables print user data literally ([swp1] stays, :100: is no emoji) and, with no
terminal, never cut a device name or any other cell."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES
from typer.testing import CliRunner

from roceops.audit import report as audit_report
from roceops.audit.engine import AuditResult
from roceops.cli.main import app
from roceops.health import report as health_report
from roceops.health.engine import HealthReport
from roceops.health.model import Verdict
from roceops.report.result import Result as Finding
from roceops.report.tables import LiteralConsole

LONG = "leaf-su1-r1-with-a-name-long-enough-to-be-cut-at-eighty-columns"


def _printed(print_fn, *args) -> str:
    console = LiteralConsole()
    with console.capture() as capture:
        print_fn(console, *args)
    return capture.get()


def test_audit_table_keeps_brackets_and_whole_cells_when_piped() -> None:
    finding = Finding(check="config.drift", device=LONG, path="ports[swp1].pfc_priorities", expected=[3, 4],
                      observed=[4], hint="roceops deploy --limit [bold]x[/] :100:")
    result = AuditResult(fabric="f", devices=[LONG], audits=[], findings=[finding], seconds=1.0)
    text = _printed(audit_report.print_table, result, [])
    assert "ports[swp1].pfc_priorities" in text, text
    assert LONG in text and "…" not in text, text
    assert "[bold]x[/] :100:" in text, text


def test_health_table_keeps_node_names_and_reasons_whole() -> None:
    reason = "leaf.port " + LONG + ":Ethernet0: PFC off on priority [3]"
    report = HealthReport(nodes=["gpu001"], results=[], verdicts=[Verdict(node="gpu001", status="drain",
                                                                          reasons=[reason])],
                          seconds=1.0, devices=2)
    text = _printed(health_report.print_table, report)
    assert reason in text and "…" not in text, text


def test_cli_errors_print_file_names_literally(tmp_path: Path) -> None:
    weird = tmp_path / "[red]x:100:.yaml"
    weird.write_text(EXAMPLES["lab-mini"].read_text().replace("count: 2", "count: two"))
    result = CliRunner().invoke(app, ["validate", "-f", str(weird)])
    assert result.exit_code == 3
    assert f"{weird}:" in result.output, result.output


def test_validate_table_is_not_cut_at_80_columns(tmp_path: Path) -> None:
    fabric = tmp_path / "f.yaml"
    fabric.write_text(EXAMPLES["lab-mini"].read_text())
    result = CliRunner().invoke(app, ["validate", "-f", str(fabric)])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and str(fabric) in result.output, result.output


def test_a_rule_stays_short_when_piped() -> None:
    console = LiteralConsole()
    with console.capture() as capture:
        console.rule("leaf-su1-r1 (sonic)")
    assert "leaf-su1-r1 (sonic)" in capture.get() and len(capture.get()) <= 81
