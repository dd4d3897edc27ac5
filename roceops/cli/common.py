"""Shared CLI plumbing: exit codes, console, loading a fabric with human errors."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

from roceops.cli.gc_tuning import run_gc
from roceops.model.loader import IntentError, LoadedIntent, load
from roceops.nornir_glue.credentials import KNOWN_HOSTS_ENV, from_environment
from roceops.topology.addressing import PoolExhausted
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.topology.sizing import TopologyError

DEFAULT_FABRIC = Path("inventory/fabric.yaml")

FabricOption = typer.Option(DEFAULT_FABRIC, "-f", "--fabric", help="fabric intent YAML", show_default=True)
LimitOption = typer.Option(None, "--limit", "-l", help="devices: names, globs, groups (leaf, su1, rail2, !x, a&b)")


class Exit(IntEnum):
    """Stable exit codes (documented in the README)."""

    OK = 0
    FINDINGS = 1  # lint errors, drift, nodes to drain, devices rolled back
    UNREACHABLE = 2  # some devices could not be reached or parsed
    BAD_INPUT = 3  # unreadable or invalid input, bad usage


console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: Exit = Exit.BAD_INPUT) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", markup=True)
    raise typer.Exit(int(code))


def load_intent_or_exit(path: Path) -> LoadedIntent:
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
    source = load_intent_or_exit(path)
    try:
        with run_gc(acyclic=True):
            fabric = expand(source.intent)
    except (TopologyError, PoolExhausted) as exc:
        line, col = source.locate(exc.path)
        fail(f"{source.file}:{line}:{col}: {exc.path}: {exc} (run `roceops validate` for all findings)")
    return Loaded(source=source, fabric=fabric)


def check_connection_settings() -> None:
    """Before a run that connects: a ROCEOPS_KNOWN_HOSTS that names no readable file is bad input (exit 3), not a
    fleet of refused connections."""
    known_hosts = from_environment().known_hosts
    if known_hosts and not os.access(known_hosts, os.R_OK):
        fail(f"{KNOWN_HOSTS_ENV}={known_hosts}: no readable known_hosts file there")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
