"""Control channel of a running lab: JSON lines over a Unix socket in the lab state dir.

Request (one JSON object per line) and response (one per request)::

    {"op": "status"}                                  -> {"ok": true, "result": {...}}
    {"op": "status", "device": "leaf1"}               -> one device only
    {"op": "inject", "device": "leaf1", "fault": "slow", "params": {"ms": 500}}
    {"op": "clear", "device": "leaf1"}                -> "device" omitted or null: all devices
    {"op": "stop"}                                    -> answers, then the lab shuts down
    anything wrong                                    -> {"ok": false, "error": "one line"}

Fault names and params are those of :meth:`roceops.lab.personality.DeviceState.apply_fault`.
The socket is created mode 0600 (only the lab's user can talk to it).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import resource
import socket
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roceops.lab.personality import LabError

if TYPE_CHECKING:
    from roceops.lab.sshserver import LabDevice, LabServer

log = logging.getLogger("roceops.lab")

CONTROL_SOCKET = "control.sock"
_MAX_LINE = 1 << 20
_SUN_PATH_MAX = 100  # sockaddr_un.sun_path is 108 bytes on Linux; keep a margin


class LabNotRunning(LabError):
    """Nothing answers on the control socket of this state dir."""


def control_socket_path(state_dir: Path) -> Path:
    """``<state_dir>/control.sock``, or a short path in the temp dir if that one is too long
    for a Unix socket (deterministic, so clients find it from the state dir alone)."""
    state_dir = Path(state_dir).absolute()
    path = state_dir / CONTROL_SOCKET
    if len(os.fsencode(path)) <= _SUN_PATH_MAX:
        return path
    digest = hashlib.sha256(os.fsencode(state_dir)).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"roceops-lab-{os.getuid()}-{digest}.sock"


def _device_status(dev: LabDevice) -> dict[str, Any]:
    return {
        "name": dev.spec.name,
        "platform": dev.spec.platform,
        "host": dev.spec.address,
        "port": dev.spec.port,
        "listening": dev.server is not None,
        "sessions": dev.sessions,
        "faults": dev.state.faults.active(),
    }


class ControlServer:
    """Serves the control protocol for ``lab`` inside the lab's event loop."""

    def __init__(self, lab: LabServer, path: Path, request_stop: Callable[[], None]) -> None:
        self.lab = lab
        self.path = Path(path)
        self._request_stop = request_stop
        self._server: asyncio.AbstractServer | None = None
        self.started = time.time()
        self._monotonic_start = time.monotonic()

    async def start(self) -> None:
        self.path.unlink(missing_ok=True)  # stale socket of a crashed lab (caller holds the lock)
        old_umask = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._client, path=str(self.path), limit=_MAX_LINE)
        finally:
            os.umask(old_umask)
        self.path.chmod(0o600)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1)
            self._server = None
        self.path.unlink(missing_ok=True)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        stop_after = False
        try:
            while not stop_after:
                try:
                    raw = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    writer.write(_encode({"ok": False, "error": "request line too long"}))
                    break
                if not raw:
                    break
                if not raw.strip():
                    continue
                response, stop_after = await self.dispatch_raw(raw)
                writer.write(_encode(response))
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
                await writer.wait_closed()
            if stop_after:
                self._request_stop()

    async def dispatch_raw(self, raw: bytes) -> tuple[dict[str, Any], bool]:
        try:
            request = json.loads(raw)
            if not isinstance(request, dict):
                raise LabError("request must be a JSON object")
            op = request.get("op")
            return {"ok": True, "result": await self.dispatch(request)}, op == "stop"
        except json.JSONDecodeError as exc:
            return {"ok": False, "error": f"invalid JSON request: {exc.msg}"}, False
        except LabError as exc:
            return {"ok": False, "error": str(exc)}, False
        except Exception as exc:  # a personality's apply_fault/clear_faults bug: answer, keep serving
            log.exception("control request failed")
            return {"ok": False, "error": f"internal error in the lab: {type(exc).__name__}: {exc}"}, False

    async def dispatch(self, request: dict[str, Any]) -> Any:
        op = request.get("op")
        device = request.get("device")
        if device is not None and not isinstance(device, str):
            raise LabError("'device' must be a string")
        if op == "status":
            return self.status(device)
        if op == "inject":
            fault = request.get("fault")
            params = request.get("params") or {}
            if not device or not isinstance(fault, str) or not isinstance(params, dict):
                raise LabError("inject needs 'device', 'fault' and optional object 'params'")
            return {"device": device, "faults": await self.lab.inject(device, fault, **params)}
        if op == "clear":
            return {"cleared": await self.lab.clear(device)}
        if op == "stop":
            return {"stopping": True, "pid": os.getpid()}
        raise LabError(f"unknown op {op!r}; expected status, inject, clear or stop")

    def status(self, device: str | None = None) -> dict[str, Any]:
        devices = [self.lab.device(device)] if device else list(self.lab.devices.values())
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "pid": os.getpid(),
            "ready": True,
            "state_dir": str(self.lab.state_dir),
            "started_at": self.started,
            "uptime_s": round(time.monotonic() - self._monotonic_start, 3),
            "username": self.lab.username,
            "key_file": str(self.lab.keys.client_key),
            "device_count": len(self.lab.devices),
            "sessions": self.lab.session_count(),
            "rss_mb": _current_rss_mb(),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "devices": [_device_status(dev) for dev in devices],
        }


def _current_rss_mb() -> float | None:
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20), 1)


def _encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


class ControlClient:
    """Blocking client (one connection per request). Raises :class:`LabError` on any failure."""

    def __init__(self, state_dir: Path, timeout: float = 10.0) -> None:
        self.state_dir = Path(state_dir).absolute()
        self.path = control_socket_path(self.state_dir)
        self.timeout = timeout

    def request(self, op: str, **fields: Any) -> Any:
        payload = _encode({"op": op, **fields})
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(self.timeout)
                sock.connect(str(self.path))
                sock.sendall(payload)
                buf = b""
                while not buf.endswith(b"\n"):
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
        except (FileNotFoundError, ConnectionRefusedError):
            raise LabNotRunning(f"no lab is running (state dir {self.state_dir})") from None
        except TimeoutError:
            raise LabError(f"the lab did not answer '{op}' within {self.timeout:g} s") from None
        except OSError as exc:
            raise LabError(
                f"cannot reach the lab control socket {self.path}: {exc.strerror or exc}"
            ) from None
        if not buf:
            raise LabError(f"the lab closed the control connection without answering '{op}'")
        try:
            response = json.loads(buf)
        except json.JSONDecodeError:
            raise LabError(f"unreadable answer from the lab control socket to '{op}'") from None
        if not response.get("ok"):
            raise LabError(str(response.get("error", "unknown error")))
        return response.get("result")

    def status(self, device: str | None = None) -> dict[str, Any]:
        return self.request("status", **({"device": device} if device else {}))

    def inject(self, device: str, fault: str, **params: Any) -> dict[str, Any]:
        return self.request("inject", device=device, fault=fault, params=params)

    def clear(self, device: str | None = None) -> dict[str, Any]:
        return self.request("clear", device=device)

    def stop(self) -> dict[str, Any]:
        return self.request("stop")
