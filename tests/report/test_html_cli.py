"""``roceops verify routing --format html`` end to end on real FRR (root, ip netns, FRR; skips otherwise): the page
of a clean lab-mini run shows every device ok and the command as typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO
from htmlscan import device_status, external_references
from labtools import lab_mini
from typer.testing import CliRunner

from roceops.cli.main import app
from roceops.verify.engine import VerifyUnavailable, preflight

try:
    preflight()
    UNAVAILABLE = ""
except VerifyUnavailable as exc:
    UNAVAILABLE = str(exc)


@pytest.mark.skipif(bool(UNAVAILABLE), reason=UNAVAILABLE)
def test_verify_routing_html_of_a_clean_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lab-mini.yaml").write_text((REPO / "inventory" / "lab-mini.yaml").read_text())
    result = CliRunner().invoke(app, ["verify", "routing", "-f", "lab-mini.yaml", "--format", "html"])
    assert result.exit_code == 0, result.output[-2000:]
    html = result.output
    assert set(device_status(html).values()) == {"ok"}
    assert sorted(device_status(html)) == sorted(d.name for d in lab_mini().devices())
    assert '<code id="command">roceops verify routing --fabric lab-mini.yaml --format html</code>' in html
    assert "routing verified" in html and external_references(html) == []
