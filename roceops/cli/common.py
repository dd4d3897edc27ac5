"""Shared CLI plumbing: exit codes, console, loading a fabric with human errors."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

import typer

from roceops.cli.gc_tuning import run_gc
from roceops.hints import command
from roceops.resources import MissingResource, example_fabric
from roceops.util.safe_write import file_problem, folder_problem

# Heavy modules (rich's console, pydantic models, paramiko) are imported where they are used, so that
# `roceops --version` and `--help` stay fast (tests/cli/test_startup_imports.py).
if TYPE_CHECKING:
    from roceops.model.loader import LoadedIntent
    from roceops.report.tables import LiteralConsole
    from roceops.topology.fabric import Fabric

DEFAULT_FABRIC = Path("inventory/fabric.yaml")


def path_value(value: str | Path) -> Path:
    """The parser of every path option: an empty value is a usage error (exit 3), never the working directory."""
    text = str(value)
    if not text.strip():
        raise typer.BadParameter("an empty path names no file or folder")
    if "\0" in text:
        raise typer.BadParameter("a path cannot contain a NUL character")
    return Path(text)


FabricOption = typer.Option(DEFAULT_FABRIC, "-f", "--fabric", help="fabric intent YAML", show_default=True,
                            parser=path_value)
LimitOption = typer.Option(None, "--limit", "-l", help="devices: names, globs, groups (leaf, su1, rail2, !x, a&b)")


class Exit(IntEnum):
    """Stable exit codes (documented in the README)."""

    OK = 0
    FINDINGS = 1  # lint errors, drift, nodes to drain, devices rolled back
    UNREACHABLE = 2  # some devices could not be reached or parsed
    BAD_INPUT = 3  # unreadable or invalid input, bad usage


class _DeferredConsole:
    """A LiteralConsole made on first use: importing rich's console costs more than `roceops --version` may."""

    def __init__(self, *, stderr: bool) -> None:
        self._stderr = stderr
        self._console: LiteralConsole | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from roceops.report.tables import LiteralConsole

            self._console = LiteralConsole(stderr=self._stderr)
        return getattr(self._console, name)


console = cast("LiteralConsole", _DeferredConsole(stderr=False))
err_console = cast("LiteralConsole", _DeferredConsole(stderr=True))


def fail(message: str, code: Exit = Exit.BAD_INPUT) -> NoReturn:
    from rich.text import Text

    err_console.print(Text.assemble(("error:", "bold red"), " ", message))
    raise typer.Exit(int(code))


def load_intent_or_exit(path: Path) -> LoadedIntent:
    from roceops.model.loader import IntentError, load

    if path == DEFAULT_FABRIC and not os.path.lexists(path):
        fail(f"no fabric file: {path} does not exist here (no -f given); pass -f FILE, or start from the example "
             f"fabric roceops ships: -f {_example_hint()}")
    try:
        return load(path)
    except IntentError as exc:
        err_console.print(str(exc), markup=False)
        raise typer.Exit(int(Exit.BAD_INPUT)) from None


@dataclass(frozen=True)
class Loaded:
    source: LoadedIntent
    fabric: Fabric


def load_fabric_or_exit(path: Path) -> Loaded:
    """Load and expand; an unbuildable intent is reported at its YAML position (exit 3)."""
    from roceops import api
    from roceops.topology.addressing import PoolExhausted
    from roceops.topology.sizing import TopologyError

    source = load_intent_or_exit(path)
    try:
        with run_gc(acyclic=True):
            fabric = api.expand(source.intent)
    except (TopologyError, PoolExhausted) as exc:
        line, col = source.locate(exc.path)
        fail(f"{source.file}:{line}:{col}: {exc.path}: {exc} "
             f"(run `{command('validate', '-f', str(source.file))}` for all findings)")
    return Loaded(source=source, fabric=fabric)


def check_connection_settings() -> None:
    """Before a run that connects: a ROCEOPS_KNOWN_HOSTS that names no readable file, or a ROCEOPS_SSH_KEY that
    is no usable private key, is bad input (exit 3), not a fleet of refused or timed-out connections."""
    from roceops.nornir_glue.credentials import KNOWN_HOSTS_ENV, from_environment
    from roceops.platforms.ssh_keys import key_file_problem

    creds = from_environment()
    known_hosts = creds.known_hosts
    if known_hosts and not os.access(known_hosts, os.R_OK):
        fail(f"{KNOWN_HOSTS_ENV}={known_hosts}: no readable known_hosts file there")
    if creds.key_file and (problem := key_file_problem(creds.key_file)):
        fail(f"ROCEOPS_SSH_KEY={creds.key_file}: {problem}")


def _example_hint() -> str:
    try:
        return str(example_fabric())
    except MissingResource:
        return "inventory/lab-mini.yaml of a roceops checkout"


def shipped_fabric_or_exit() -> Path:
    """The example fabric roceops ships (lab-mini), for commands given no ``-f``."""
    try:
        return example_fabric()
    except MissingResource as exc:
        fail(str(exc))


def check_writable(path: Path | None, *, folder: bool = False) -> None:
    """Before any device is contacted: an output file (or folder) that cannot be written is bad input (exit 3).

    Missing parent folders are fine (the writers create them); the nearest one that exists must be a folder we can
    create files in, which is tried for real (permission bits say nothing for root or read-only mounts).
    """
    if path is None:
        return
    if problem := (folder_problem(path) if folder else file_problem(path)):
        fail(f"cannot write {path}: {problem}")
    existing = path if folder else path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        fail(f"cannot write {path}: {existing} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        fail(f"cannot write {path}: {existing}: {exc.strerror or exc}")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")


def parse_duration(text: str | float) -> float:
    """``5s`` -> 5.0, ``500ms`` -> 0.5, ``1m`` -> 60.0, ``30`` -> 30.0 (a typer option parser: bad text is a usage
    error, exit 3, before anything is loaded)."""
    if isinstance(text, int | float):  # the option's default, already a number
        return float(text)
    m = _DURATION.match(text)
    if not m or float(m.group(1)) <= 0:
        raise typer.BadParameter(f"{text!r} is not a positive duration like 5s, 500ms or 1m")
    value = float(m.group(1))
    return {"ms": value / 1000, "m": value * 60}.get(m.group(2) or "s", value)
