"""Usage errors of the telemetry command and of health --counters-from are bad input (exit 3), named."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

from roceops.cli.main import app

MINI = str(EXAMPLES["lab-mini"])


@pytest.mark.parametrize(("args", "says"), [
    (["--listen", "nowhere"], "ADDR:PORT"),
    (["--shard", "5/4"], "1 <= I <= N"),
    (["--shard", "0/4"], "1 <= I <= N"),
    (["--shard", "one"], "must be I/N"),
    (["--limit", "!*"], "selects no device"),
])
def test_telemetry_usage_errors_exit_3(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["telemetry", "-f", MINI, *args])
    assert result.exit_code == 3 and says in result.output


def test_health_counters_from_needs_an_http_url() -> None:
    result = CliRunner().invoke(app, ["health", "gpu001", "-f", MINI, "--counters-from", "prometheus:9090"])
    assert result.exit_code == 3 and "http://HOST:PORT" in result.output
