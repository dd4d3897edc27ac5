"""Issue 14: property test over mutated fabric and playbook YAML. Whatever the file says, the CLI never prints a
traceback, never hangs (each case runs under a hard time bound) and exits with a documented code (0/1/2/3).

Mutations start from the shipped examples (inventory/*.yaml, playbooks/*.yaml): values replaced by other types and
hostile strings, keys deleted, renamed or added, values wrapped in lists or mappings, and characters inserted into
the YAML text. Runs in-process (typer's CliRunner) in a scratch directory; a playbook runs with ``--dry-run`` and a
fabric that does not exist, so no step reaches a device.
"""

from __future__ import annotations

import copy
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from roceops.cli.main import app

FABRICS = {p.name: yaml.safe_load(p.read_text()) for p in sorted((REPO / "inventory").glob("*.yaml"))}
PLAYBOOKS = {p.name: yaml.safe_load(p.read_text()) for p in sorted((REPO / "playbooks").glob("*.yaml"))}
EXIT_CODES = {0, 1, 2, 3}
CASE_SECONDS = 10  # a hard bound per case: far above a normal validate/render (< 0.5 s), far below a hang
# ROCEOPS_FUZZ_EXAMPLES=1000 for a longer hunt; the default keeps the two tests near 30 s
FUZZ = settings(max_examples=int(os.environ.get("ROCEOPS_FUZZ_EXAMPLES", "40")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

HOSTILE = ["", " ", "{", "}", "{node}", "{port}", "{n}", "{node:0999999d}", "{node.__class__}", "{0}", "../../x",
           "/etc/passwd", "a\nb", "eth{port}; reboot", "$(reboot)", "`id`", "2001:db8::/64", "10.0.0.0/33",
           "10.0.0.1/24", "400G", "1.5MB", "10us", "-5", "0", "true", "0x10", "1e400", "nan", "~", "*a", "%",
           "[swp1]", ":100:", "Ethernet{n}", "swp{n}s{n}", "x" * 300, "ü", "\x00", "leaf", "spine", "sonic",
           "linux_mlx5", "roceops/fabric/v1", "validate", "lab.up", "deploy"]
SCALARS = st.one_of(st.integers(-2**40, 2**40), st.integers(-3, 70), st.booleans(), st.none(),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(HOSTILE))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.text(max_size=6), SCALARS, max_size=2))
TEXT_INSERTS = ["\t", ":", ": ", "- ", "&a ", "*a", "*b ", "{", "}", "[", "]", "!!binary ", "!!python/name:os.system ",
                "<<: *a\n", "\x00", "\ufeff", "  ", "\n", "#", "'", '"', "? ", "|", ">", "%YAML 1.1\n", "---\n"]


def _slots(doc: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key-or-index) in the document, the root's children first."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield doc, k
            yield from _slots(v)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield doc, i
            yield from _slots(v)


@st.composite
def mutated(draw: st.DrawFn, docs: dict[str, Any]) -> tuple[str, str]:
    name = draw(st.sampled_from(sorted(docs)))
    doc = copy.deepcopy(docs[name])
    for _ in range(draw(st.integers(1, 3))):
        slots = list(_slots(doc))
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        op = draw(st.sampled_from(["replace", "replace", "delete", "rename", "wrap", "add"]))
        if op == "replace":
            container[key] = draw(VALUES)
        elif op == "delete":
            del container[key]
        elif op == "rename" and isinstance(container, dict):
            container[draw(st.one_of(st.text(max_size=10), st.sampled_from(HOSTILE)))] = container.pop(key)
        elif op == "wrap":
            container[key] = draw(st.sampled_from([[container[key]], {"value": container[key]}]))
        elif op == "add" and isinstance(container, dict):
            container[draw(st.sampled_from([*HOSTILE, "count", "name", "extra"]))] = draw(VALUES)
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    for _ in range(draw(st.integers(0, 2))):  # sometimes break the YAML itself
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(TEXT_INSERTS)) + text[at:]
    return name, text


class CaseTooSlow(Exception):
    pass


@contextmanager
def time_bound(seconds: int) -> Iterator[None]:
    """Interrupt the case (in this, the main thread) if it runs longer than ``seconds``: a hang fails the test."""
    def expired(signum: int, frame: Any) -> None:
        raise CaseTooSlow(f"case still running after {seconds}s")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    cwd = Path.cwd()
    os.chdir(tmp_path)  # journals, locks and --out folders land here
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def _invoke(args: list[str], text: str) -> None:
    with time_bound(CASE_SECONDS):
        result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, SystemExit) or result.exception is None, (
        f"{args}: {result.exception!r}\n--- input ---\n{text}")
    assert result.exit_code in EXIT_CODES, (result.exit_code, result.output, text)
    assert "Traceback" not in result.output, (result.output, text)


@FUZZ
@given(case=mutated(FABRICS))
def test_mutated_fabrics_never_crash_or_hang(scratch: Path, case: tuple[str, str]) -> None:
    name, text = case
    path = scratch / name
    path.write_text(text)
    _invoke(["validate", "-f", str(path)], text)
    if name == "lab-mini.yaml":  # small enough to render every time: names, patterns and templates get exercised
        _invoke(["render", "-f", str(path), "--out", str(scratch / "out"), "--skip-lint"], text)
    else:
        _invoke(["topology", "-f", str(path), "--format", "json"], text)


@FUZZ
@given(case=mutated(PLAYBOOKS))
def test_mutated_playbooks_never_crash_or_hang(scratch: Path, case: tuple[str, str]) -> None:
    name, text = case
    path = scratch / name
    path.write_text(text)
    _invoke(["play", str(path), "--dry-run", "-f", str(scratch / "no-such-fabric.yaml")], text)
