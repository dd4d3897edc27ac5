"""Run the lab in the foreground: ``python -m roceops.lab --spec lab-spec.json [--state-dir DIR]``.

The spec file is a :class:`roceops.lab.runtime.LabConfig` as JSON (``{"devices": [...]}``);
devices without address/port get the default allocation. Stop with Ctrl-C, SIGTERM or the
control channel's ``stop``. ``--daemon`` is used by ``start_lab(detach=True)``: fork, print
the lab's pid on stdout, and continue in the background with output going to ``lab.log``.
Errors are reported as one line (``roceops lab: error: ...``) and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from roceops.lab.personality import LabError
from roceops.lab.runtime import DEFAULT_STATE_DIR, ERROR_FILE, LOG_FILE, LabConfig, serve
from roceops.lab.spec import ensure_state_dir


def _daemonize(state_dir: Path) -> None:
    log_fd = os.open(state_dir / LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    pid = os.fork()
    if pid > 0:
        os.write(1, f"{pid}\n".encode())
        os._exit(0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m roceops.lab", description="Run the roceops SSH lab.")
    parser.add_argument("--spec", required=True, type=Path, help="JSON file with {'devices': [...]}")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--daemon", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--error-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    state_dir = ensure_state_dir(args.state_dir)
    if args.daemon:
        _daemonize(state_dir)
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr
    )
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    # "socket.send() raised exception": a client closed while its output was in flight (normal
    # for netmiko's disconnect, which does not wait for the answer to "exit").
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    error_file = args.error_file or state_dir / ERROR_FILE
    ready = False

    def on_ready(_lab: object) -> None:
        nonlocal ready
        ready = True

    try:
        try:
            config = LabConfig.model_validate_json(args.spec.read_text())
        except OSError as exc:
            raise LabError(f"cannot read lab spec {args.spec}: {exc.strerror or exc}") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise LabError(f"invalid lab spec {args.spec}: {where}: {first['msg']}") from None
        asyncio.run(serve(config, state_dir, on_ready=on_ready))
    except LabError as exc:
        print(f"roceops lab: error: {exc}", file=sys.stderr)
        if args.daemon and not ready:
            error_file.write_text(f"{exc}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
