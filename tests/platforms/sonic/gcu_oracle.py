"""Test helpers for the SONiC vendor oracles in ../shared/oracles: a SKU's vendor-default CONFIG_DB (its own
buffers.json.j2 + qos.json.j2 rendered by sonic-cfggen, as `config qos reload` does) and gcu-check's verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

GCU_CHECK = SHARED / "oracles" / "sonic-gcu" / "gcu-check"
CFGGEN = SHARED / "oracles" / "sonic-cfggen" / "cfggen"
SKUS = SHARED / "reference" / "hardware" / "sonic" / "skus"
PORT_FIELDS = ("lanes", "alias", "index", "speed", "mtu", "admin_status")


def need_oracles() -> None:
    if not GCU_CHECK.is_file() or not CFGGEN.is_file():
        pytest.skip(f"vendor oracles not present ({GCU_CHECK.parent.parent}): ../shared is absent")
    for mod in ("natsort", "netaddr", "lxml", "yaml"):
        try:
            __import__(mod)
        except ImportError:
            pytest.skip(f"the oracles need the Python package {mod!r} (pip install -e '.[dev]')")


def boot_config(rendered: dict[str, Any]) -> dict[str, Any]:
    """What a switch has before any QoS: its DEVICE_METADATA identity and the SKU's PORT rows."""
    meta = rendered["DEVICE_METADATA"]["localhost"]
    return {"DEVICE_METADATA": {"localhost": {k: meta[k] for k in ("hostname", "hwsku", "type") if k in meta}},
            "PORT": {k: {f: v[f] for f in PORT_FIELDS if f in v} for k, v in rendered["PORT"].items()}}


@cache
def _vendor_default(base_text: str) -> str:
    base = json.loads(base_text)
    sku = base["DEVICE_METADATA"]["localhost"]["hwsku"]
    out: dict[str, Any] = json.loads(base_text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config_db.json"
        path.write_text(base_text)
        for template in ("buffers.json.j2", "qos.json.j2"):
            r = subprocess.run([sys.executable, str(CFGGEN), "-j", str(path), "-t", template], cwd=SKUS / sku,
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, f"sonic-cfggen {sku}/{template}: {r.stderr[-800:]}"
            for table, entries in json.loads(r.stdout).items():
                out.setdefault(table, {}).update(entries)
    return json.dumps(out, sort_keys=True)


def vendor_default(rendered: dict[str, Any]) -> dict[str, Any]:
    """The CONFIG_DB a switch has after `config qos reload` with its SKU's own templates (cached per PORT set)."""
    return json.loads(_vendor_default(json.dumps(boot_config(rendered), sort_keys=True)))  # type: ignore[no-any-return]


def gcu_check(release: str, asic_type: str, current: dict[str, Any], patch: list[dict[str, Any]],
              build_version: str) -> dict[str, Any]:
    """gcu-check --json on ``patch`` against ``current`` (the device's HWSKU from its DEVICE_METADATA)."""
    with tempfile.TemporaryDirectory() as tmp:
        cur, pat = Path(tmp) / "current.json", Path(tmp) / "patch.json"
        cur.write_text(json.dumps(current))
        pat.write_text(json.dumps(patch))
        r = subprocess.run([sys.executable, str(GCU_CHECK), "--release", release, "--asic-type", asic_type,
                            "--build-version", build_version, "--current", str(cur), "--patch", str(pat), "--json"],
                           capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1, 3), f"gcu-check failed: {r.stderr[-800:]}"
    return json.loads(r.stdout)  # type: ignore[no-any-return]
