"""Start, stop and query the lab process.

One lab runs per state dir (default ``.roceops/lab`` in the working directory); the running
lab holds an exclusive ``flock`` on ``lab.lock`` there for its whole life, which is how
"already running" and "nothing running" are decided (pid files alone can go stale). Files:

* ``host_key``, ``lab_client_key``, ``lab_client_key.pub`` -- created on first start, 0600
* ``lab-spec.json`` -- the device list the lab was started with
* ``lab.pid``, ``overlay.json``, ``control.sock`` -- exist while the lab runs
* ``lab.log`` -- output of a detached lab (startup errors are also raised by ``start_lab``)

``overlay.json`` maps device name -> ``{host, port, username, key_file}`` (no secrets), plus ``gnmi_port`` for a
device that serves gNMI (:mod:`roceops.lab.gnmi_server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from roceops.lab.control import ControlClient, ControlServer, LabNotRunning, control_socket_path
from roceops.lab.personality import LabError, device_module, get_personality, use_device_modules
from roceops.lab.spec import (
    DEFAULT_BASE_ADDRESS,
    DEFAULT_PORT,
    DEFAULT_USERNAME,
    PASSWORD_ENV,
    LabDeviceSpec,
    assign_endpoints,
    ensure_lab_keys,
    ensure_state_dir,
)
from roceops.util.processes import alive

if TYPE_CHECKING:
    from roceops.lab.sshserver import LabServer

__all__ = [
    "DEFAULT_STATE_DIR",
    "LabConfig",
    "LabDeviceSpec",
    "LabError",
    "LabStarted",
    "LabThread",
    "lab_status",
    "read_overlay",
    "running_pid",
    "serve",
    "start_lab",
    "stop_lab",
]

log = logging.getLogger("roceops.lab")

DEFAULT_STATE_DIR = Path(".roceops/lab")
SPEC_FILE = "lab-spec.json"
PID_FILE = "lab.pid"
LOCK_FILE = "lab.lock"
OVERLAY_FILE = "overlay.json"
KNOWN_HOSTS_FILE = "known_hosts"  # the devices' host key, for ROCEOPS_KNOWN_HOSTS (strict host key checks)
LOG_FILE = "lab.log"
ERROR_FILE = "startup-error.txt"
_MODULE = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"  # a dotted Python module name


class LabConfig(BaseModel):
    """What ``python -m roceops.lab --spec FILE`` reads: devices with resolved endpoints."""

    model_config = ConfigDict(extra="forbid")

    devices: list[LabDeviceSpec] = Field(min_length=1)
    username: str = DEFAULT_USERNAME
    # platform -> its simulated device's module, as the starting process's platform registry names it: the lab
    # process then imports only the lab's own device modules, not every platform room
    device_modules: dict[str, Annotated[str, StringConstraints(pattern=_MODULE)]] = Field(default_factory=dict)


@dataclass(frozen=True)
class LabStarted:
    pid: int
    state_dir: Path
    overlay: Path
    devices: int
    seconds: float


def _already_running(pid: int) -> LabError:
    who = f"pid {pid}" if pid else "still starting"
    return LabError(f"lab already running, {who}, stop it with `roceops lab down`")


# --------------------------------------------------------------------------- lock / pid


class _Lock:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LOCK_FILE
        self.fd: int | None = None

    def try_acquire(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock
            self.fd = None


def running_pid(state_dir: Path = DEFAULT_STATE_DIR) -> int | None:
    """Pid of the lab running in ``state_dir`` (0 while it starts), or None."""
    state_dir = Path(state_dir).absolute()
    if not (state_dir / LOCK_FILE).exists():
        return None
    probe = _Lock(state_dir)
    if probe.try_acquire():
        probe.release()
        return None
    try:
        return int((state_dir / PID_FILE).read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _raise_fd_limit(devices: int) -> None:
    needed = devices + 2048  # listeners + headroom for sessions and the control socket
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < devices + 64:
        raise LabError(f"{devices} devices need more than {hard} open files; raise `ulimit -n`")
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def read_overlay(state_dir: Path = DEFAULT_STATE_DIR) -> dict[str, dict[str, Any]]:
    """The running lab's connection overlay: device -> {host, port, username, key_file}."""
    path = Path(state_dir).absolute() / OVERLAY_FILE
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise LabError(f"no lab is running (no {path})") from None


# --------------------------------------------------------------------------- serving


async def serve(
    config: LabConfig,
    state_dir: Path = DEFAULT_STATE_DIR,
    *,
    stop_event: asyncio.Event | None = None,
    on_ready: Callable[[LabServer], None] | None = None,
    install_signal_handlers: bool = True,
) -> None:
    """Run the lab in the current event loop until ``stop_event``, a control ``stop`` or a signal."""
    state_dir = ensure_state_dir(state_dir)
    lock = _Lock(state_dir)
    if not lock.try_acquire():
        raise _already_running(running_pid(state_dir) or 0)
    pid_path, overlay_path = state_dir / PID_FILE, state_dir / OVERLAY_FILE
    try:
        _write_atomic(pid_path, f"{os.getpid()}\n")
        overlay_path.unlink(missing_ok=True)
        use_device_modules(config.device_modules)
        devices = assign_endpoints(config.devices)
        _raise_fd_limit(len(devices))
        password = os.environ.get(PASSWORD_ENV) or None
        from roceops.lab.sshserver import LabServer  # asyncssh loads only in the process that serves the lab

        lab = LabServer(devices, state_dir, username=config.username, password=password)
        stop = stop_event or asyncio.Event()
        await lab.start()
        control = ControlServer(lab, control_socket_path(state_dir), stop.set)
        from roceops.lab.gnmi_server import LabGnmi  # grpc only in the lab process: CLI start-up stays light

        gnmi = LabGnmi(lab)
        loop = asyncio.get_running_loop()
        try:
            await gnmi.start()  # before the control socket: "ready" means the overlay's gNMI ports are there too
            await control.start()
            overlay = {
                dev.spec.name: {
                    "host": dev.spec.address,
                    "port": dev.spec.port,
                    "username": lab.username,
                    "key_file": str(lab.keys.client_key),
                    **({"gnmi_port": gnmi.ports[dev.spec.name]} if dev.spec.name in gnmi.ports else {}),
                }
                for dev in lab.devices.values()
            }
            _write_atomic(overlay_path, json.dumps(overlay, indent=1) + "\n")
            _write_atomic(state_dir / KNOWN_HOSTS_FILE, known_hosts_text(lab))
            if install_signal_handlers:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.add_signal_handler(sig, stop.set)
            log.info("lab ready: %d devices, pid %d", len(devices), os.getpid())
            if on_ready is not None:
                on_ready(lab)
            await stop.wait()
            log.info("lab stopping")
        finally:
            if install_signal_handlers:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            await control.close()
            await gnmi.stop()
            await lab.stop()
            overlay_path.unlink(missing_ok=True)
    finally:
        pid_path.unlink(missing_ok=True)
        lock.release()


def known_hosts_text(lab: LabServer) -> str:
    """An OpenSSH known_hosts file naming every lab device at its address and port with the lab's host key."""
    from roceops.lab.ssh_lib import asyncssh

    key = asyncssh.read_private_key(lab.keys.host_key).export_public_key("openssh").decode().split()
    public = " ".join(key[:2])
    lines = (dev.spec.address if dev.spec.port == 22 else f"[{dev.spec.address}]:{dev.spec.port}"
             for dev in lab.devices.values())
    return "".join(f"{name} {public}\n" for name in lines)


def _prepare(
    devices: Iterable[LabDeviceSpec],
    state_dir: Path,
    port: int,
    per_port: bool,
    base_address: str,
    username: str,
) -> tuple[Path, LabConfig]:
    state_dir = ensure_state_dir(state_dir)
    specs = assign_endpoints(devices, port=port, per_port=per_port, base_address=base_address)
    if not specs:
        raise LabError("no devices to start")
    config = LabConfig(devices=specs, username=username)
    pid = running_pid(state_dir)
    if pid is not None:
        raise _already_running(pid)
    for platform in sorted({dev.platform for dev in config.devices}):
        get_personality(platform)  # unknown platform: clear error before anything starts
        config.device_modules[platform] = device_module(platform)
    ensure_lab_keys(state_dir)
    _write_atomic(state_dir / SPEC_FILE, config.model_dump_json(indent=1) + "\n")
    return state_dir, config


def start_lab(
    devices: Iterable[LabDeviceSpec],
    state_dir: Path = DEFAULT_STATE_DIR,
    port: int = DEFAULT_PORT,
    detach: bool = True,
    *,
    per_port: bool = False,
    base_address: str = DEFAULT_BASE_ADDRESS,
    username: str = DEFAULT_USERNAME,
    timeout: float = 60.0,
    on_ready: Callable[[LabStarted], None] | None = None,
) -> LabStarted:
    """Start a lab serving ``devices``.

    Device *i* without an address/port listens on ``allocate_address(i, base_address):port``
    (or ``127.0.0.1:port+i`` with ``per_port``). ``detach=True`` spawns a background process
    and returns once every listener is up; ``detach=False`` serves in this process until
    stopped (``on_ready`` is called once listening) and returns after shutdown.
    """
    t0 = time.monotonic()
    state_dir, config = _prepare(devices, state_dir, port, per_port, base_address, username)
    overlay = state_dir / OVERLAY_FILE
    if not detach:

        def ready(lab: LabServer) -> None:
            if on_ready is not None:
                on_ready(LabStarted(os.getpid(), state_dir, overlay, len(lab.devices), time.monotonic() - t0))

        asyncio.run(serve(config, state_dir, on_ready=ready))
        return LabStarted(os.getpid(), state_dir, overlay, len(config.devices), time.monotonic() - t0)
    result = _spawn(state_dir, len(config.devices), timeout, t0)
    if on_ready is not None:
        on_ready(result)
    return result


def _spawn(state_dir: Path, count: int, timeout: float, t0: float) -> LabStarted:
    import roceops

    pkg_root = str(Path(roceops.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_root, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "roceops.lab", "--spec", str(state_dir / SPEC_FILE)]
    error_file = state_dir / f"{ERROR_FILE}.{os.getpid()}.{time.monotonic_ns()}"  # this launch only
    cmd += ["--state-dir", str(state_dir), "--daemon", "--error-file", str(error_file)]
    log_path = state_dir / LOG_FILE
    try:
        return _launch(cmd, env, state_dir, log_path, error_file, count, timeout, t0)
    finally:
        error_file.unlink(missing_ok=True)


def _launch(
    cmd: list[str],
    env: dict[str, str],
    state_dir: Path,
    log_path: Path,
    error_file: Path,
    count: int,
    timeout: float,
    t0: float,
) -> LabStarted:
    with open(log_path, "ab") as logf:
        # The launcher forks the lab, prints the lab's pid and exits (so the lab is not our child).
        launcher = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=logf,
            env=env,
            start_new_session=True,
        )
    try:
        out, _ = launcher.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        launcher.kill()
        launcher.communicate()
        raise LabError(f"lab launcher hung; see {log_path}") from None
    try:
        pid = int(out.decode().strip())
    except ValueError:
        raise LabError(f"lab launcher failed (exit {launcher.returncode}); see {log_path}") from None
    client = ControlClient(state_dir, timeout=5)
    while True:
        if error_file.exists():
            raise LabError(error_file.read_text().strip() or f"lab failed to start; see {log_path}")
        try:
            status = client.status()
        except LabNotRunning:
            status = None
        if status is not None and status.get("ready") and int(status["pid"]) == pid:
            return LabStarted(pid, state_dir, state_dir / OVERLAY_FILE, count, time.monotonic() - t0)
        if not alive(pid):
            if error_file.exists():
                continue
            raise LabError(f"lab process exited during startup; see {log_path}")
        if time.monotonic() > t0 + timeout:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            raise LabError(f"lab did not become ready within {timeout:g} s; see {log_path}")
        time.sleep(0.05)


def stop_lab(state_dir: Path = DEFAULT_STATE_DIR, timeout: float = 15.0) -> int:
    """Stop the lab running in ``state_dir``; returns its pid. LabError if none runs."""
    state_dir = Path(state_dir).absolute()
    pid = running_pid(state_dir)
    if pid is None:
        raise LabError(f"no lab is running (state dir {state_dir})")
    try:
        ControlClient(state_dir, timeout=5).stop()
    except LabError:
        if pid and pid != os.getpid():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
    if _wait_stopped(state_dir, timeout):
        return pid
    if pid and pid != os.getpid():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        if _wait_stopped(state_dir, 5):
            for name in (PID_FILE, OVERLAY_FILE):
                (state_dir / name).unlink(missing_ok=True)
            control_socket_path(state_dir).unlink(missing_ok=True)
            return pid
    raise LabError(f"lab pid {pid} did not stop within {timeout:g} s")


def _wait_stopped(state_dir: Path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running_pid(state_dir) is None:
            return True
        time.sleep(0.05)
    return False


def lab_status(state_dir: Path = DEFAULT_STATE_DIR, device: str | None = None) -> dict[str, Any]:
    """Status of the running lab (pid, uptime, devices with addresses and active faults)."""
    return ControlClient(state_dir).status(device)


# --------------------------------------------------------------------------- in-process


class LabThread:
    """Run a lab inside this process on a background thread (tests, notebooks)::

    with LabThread(specs, tmp_path) as lab:
        lab.overlay["leaf1"]                      # connection data
        lab.inject("leaf1", "slow", ms=200)        # thread-safe
    """

    def __init__(
        self,
        devices: Iterable[LabDeviceSpec],
        state_dir: Path,
        *,
        port: int = DEFAULT_PORT,
        per_port: bool = False,
        base_address: str = DEFAULT_BASE_ADDRESS,
        username: str = DEFAULT_USERNAME,
        timeout: float = 30.0,
    ) -> None:
        self.state_dir, self.config = _prepare(devices, state_dir, port, per_port, base_address, username)
        self.timeout = timeout
        self.server: LabServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="roceops-lab", daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await serve(
                self.config,
                self.state_dir,
                stop_event=self._stop,
                on_ready=self._on_ready,
                install_signal_handlers=False,
            )

        try:
            asyncio.run(main())
        except BaseException as exc:
            self._error = exc
        finally:
            self._ready.set()

    def _on_ready(self, lab: LabServer) -> None:
        self.server = lab
        self._ready.set()

    def start(self) -> LabThread:
        # clients that close while output is in flight (netmiko's disconnect) make asyncio log a warning
        # per socket; harmless and very noisy, as in the detached lab process
        logging.getLogger("asyncio").setLevel(logging.ERROR)
        self._thread.start()
        if not self._ready.wait(self.timeout):
            raise LabError(f"in-process lab did not become ready within {self.timeout:g} s")
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)

    def __enter__(self) -> LabThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def overlay(self) -> dict[str, dict[str, Any]]:
        return read_overlay(self.state_dir)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn()`` on the lab's event loop thread and return its result (awaited if a coroutine)."""
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(_as_coro(fn), self._loop).result(10)

    def inject(self, device: str, fault: str, **params: Any) -> dict[str, Any]:
        assert self.server is not None
        server = self.server
        return self.call(lambda: server.inject(device, fault, **params))

    def clear(self, device: str | None = None) -> list[str]:
        assert self.server is not None
        server = self.server
        return self.call(lambda: server.clear(device))


async def _as_coro(fn: Callable[[], Any]) -> Any:
    result = fn()
    return await result if asyncio.iscoroutine(result) else result
