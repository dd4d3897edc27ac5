"""``--lab``: which fabric the running lab serves, and refusing any device it does not serve.

``roceops lab up`` records the fabric file it serves (absolute path and sha256 of its bytes) in
``<lab dir>/fabric.json``. A command given ``--lab`` without ``-f`` uses that file; given another fabric it
is refused as a whole (exit 3); a selected device missing from the lab's connection overlay, or served on
an address outside 127.0.0.0/8, is refused before any connection is made. The inventory and the connection
code check the same things again (:mod:`roceops.nornir_glue.inventory`): this module gives the human error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from roceops.cli.common import Loaded, fail
from roceops.lab.paths import lab_dir

if TYPE_CHECKING:  # imported where used (CLI start-up time: tests/cli/test_startup_imports.py)
    from roceops.model.loader import LoadedIntent

FABRIC_RECORD = "fabric.json"


def record_lab_fabric(state_dir: Path, source: LoadedIntent) -> None:
    """Write which fabric file the lab in ``state_dir`` serves (read back by :func:`lab_fabric`)."""
    record = {"path": str(Path(source.file).resolve()), "sha256": source.source_hash, "name": source.intent.name}
    (state_dir / FABRIC_RECORD).write_text(json.dumps(record, indent=1) + "\n")


def forget_lab_fabric(state_dir: Path) -> None:
    """The lab stopped: it serves no fabric any more."""
    (state_dir / FABRIC_RECORD).unlink(missing_ok=True)


def lab_fabric(state_dir: Path) -> dict[str, Any] | None:
    """The lab's fabric record, or None when the lab (an in-process one, an older one) wrote none."""
    try:
        data = json.loads((state_dir / FABRIC_RECORD).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and {"path", "sha256"} <= data.keys() else None


def given(ctx: typer.Context, param: str) -> bool:
    """``param`` came from the command line or the environment, not from its default."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def fabric_for(ctx: typer.Context, fabric: Path, lab: bool) -> Path:
    """The fabric file a command works on: ``-f`` when given, else with ``--lab`` the one the lab serves."""
    if not lab or given(ctx, "fabric"):
        return fabric
    record = lab_fabric(lab_dir())
    return Path(record["path"]) if record else fabric


def check_lab_serves(loaded: Loaded, names: list[str], lab: bool) -> None:
    """With ``--lab``: the lab serves this very fabric file and every selected device, on loopback; else exit 3."""
    from roceops.nornir_glue.inventory import OVERLAY_FILE, is_loopback

    if not lab:
        return
    state = lab_dir()
    record = lab_fabric(state)
    if record is not None and record["sha256"] != loaded.source.source_hash:
        fail(f"the running lab serves {record['path']} (sha256 {record['sha256'][:12]}), not {loaded.source.file} "
             f"(sha256 {loaded.source.source_hash[:12]}); leave -f out to use the lab's fabric, or restart the "
             f"lab with `roceops lab up -f {loaded.source.file}`")
    try:
        overlay = json.loads((state / OVERLAY_FILE).read_text())
    except (OSError, ValueError):
        fail(f"no lab is running (no readable {state / OVERLAY_FILE}); start one with `roceops lab up`")
    served = overlay.get("devices", overlay) if isinstance(overlay, dict) else {}
    missing = [n for n in names if n not in served]
    if missing:
        more = f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
        fail(f"the running lab does not serve {len(missing)} of the {len(names)} selected devices: "
             f"{', '.join(missing[:5])}{more}; nothing was contacted")
    outside = [n for n in names if not is_loopback(str(served[n].get("host", "")))]
    if outside:
        fail(f"the lab overlay puts {', '.join(outside[:5])} outside 127.0.0.0/8; refusing to connect")
