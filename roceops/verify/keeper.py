"""Keeps a fabric's routing plane up for ``roceops lab up --routing`` until SIGTERM.

``python -m roceops.verify.keeper FABRIC OUT.json``: builds and converges the plane (:func:`running_plane`),
writes ``{"pid": ..., "run_id": ..., "bgpd_vty": {device: socket}}`` to OUT.json atomically, then waits;
SIGTERM/SIGINT tear everything down (``lab down`` sends it). A failure is written as ``{"error": ...}``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from roceops.model.loader import load_intent
from roceops.topology.expand import expand
from roceops.verify.engine import VerifyOptions, preflight, running_plane


def _write(path: Path, doc: dict[str, object]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(path)


def main(argv: list[str]) -> int:
    fabric_path, out = Path(argv[0]), Path(argv[1])
    try:
        preflight()
        fabric = expand(load_intent(fabric_path))
        with running_plane(fabric, VerifyOptions(state_dir=out.parent / "verify")) as run:
            _write(out, {"pid": os.getpid(), "run_id": run.plane.run_id, "bgpd_vty": run.bgpd_vty()})
            while True:
                signal.pause()
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # reported to `lab up`, which waits for this file
        _write(out, {"error": f"{type(exc).__name__}: {exc}"})
        return 1
    finally:
        if out.exists() and "error" not in out.read_text():
            out.unlink()  # the plane is gone: lab shows fall back to their own BGP model


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
