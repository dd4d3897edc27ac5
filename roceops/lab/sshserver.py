"""The lab's SSH transport: one asyncio process serving many simulated devices over SSH.

Each device gets its own loopback listener (``127.x.y.z:port``, or ``127.0.0.1:port+i``). All
listeners share one :class:`asyncssh.SSHServerConnectionOptions` object and one host key, and
every connection finds its device by the local address it was accepted on, so a device costs
one listening socket and its :class:`~roceops.lab.personality.DeviceState` -- no threads.

Shell sessions do their own terminal handling (asyncssh's line editor is off): input is split
into lines on CR, LF or CRLF; each character is echoed exactly once (a completed line's echo
goes out right before its output, so output is never interleaved); every response is
``output + prompt`` written in one piece. Platform behaviour lives in personalities.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import ctypes
import errno
import gc
import hmac
import logging
import socket
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceops.lab import cnp_flow, rewire
from roceops.lab.personality import (
    CloseSession,
    DeviceState,
    LabError,
    Personality,
    Reply,
    Session,
    SessionInfo,
    canonical_fault_name,
    get_personality,
)
from roceops.lab.spec import (
    DEFAULT_BASE_ADDRESS,
    DEFAULT_PORT,
    DEFAULT_USERNAME,
    PASSWORD_ENV,
    LabDeviceSpec,
    LabKeys,
    allocate_address,
    assign_endpoints,
    ensure_lab_keys,
    ensure_state_dir,
)
from roceops.lab.ssh_lib import asyncssh

__all__ = [
    "DEFAULT_BASE_ADDRESS",
    "DEFAULT_PORT",
    "DEFAULT_USERNAME",
    "PASSWORD_ENV",
    "InputLine",
    "LabDevice",
    "LabDeviceSpec",
    "LabKeys",
    "LabServer",
    "LineBuffer",
    "allocate_address",
    "assign_endpoints",
    "ensure_lab_keys",
    "ensure_state_dir",
    "to_wire",
]

log = logging.getLogger("roceops.lab")

_LISTEN_BACKLOG = 256
# Key exchange the lab offers: classic curve25519, what most switch SSH servers negotiate today (otherwise
# Paramiko and asyncssh agree on the costlier hybrid mlkem768x25519; cost in bench/RESULTS.md).
LAB_KEX = ("curve25519-sha256", "curve25519-sha256@libssh.org")
_READ_SIZE = 65536


# --------------------------------------------------------------------------- terminal input


class LineBuffer:
    """Turns raw PTY input into ``str`` echo pieces and :class:`InputLine` items, in order.

    Lines end at CR, LF or CRLF (also when CR and LF arrive in different chunks). Backspace/DEL
    edit the pending line, Ctrl-C discards it, Ctrl-D on an empty line means end of input.
    """

    def __init__(self, nl: str = "\r\n") -> None:
        self._nl = nl
        self._chars: list[str] = []
        self._after_cr = False

    def feed(self, text: str) -> list[str | InputLine]:
        items: list[str | InputLine] = []
        echo: list[str] = []
        for ch in text:
            if ch == "\n" and self._after_cr:
                self._after_cr = False
                continue
            self._after_cr = ch == "\r"
            if ch in "\r\n":
                echo.append(self._nl)
                items.append("".join(echo))
                echo.clear()
                items.append(InputLine("".join(self._chars)))
                self._chars.clear()
            elif ch in "\x7f\x08":
                if self._chars:
                    self._chars.pop()
                    echo.append("\b \b")
            elif ch == "\x03":
                echo.append("^C" + self._nl)
                items.append("".join(echo))
                echo.clear()
                items.append(InputLine("", interrupted=True))
                self._chars.clear()
            elif ch == "\x04" and not self._chars:
                items.append("".join(echo))
                echo.clear()
                items.append(InputLine("", eof=True))
            else:
                self._chars.append(ch)
                echo.append(ch)
        if echo:
            items.append("".join(echo))
        return [item for item in items if item != ""]


@dataclass(frozen=True, slots=True)
class InputLine:
    text: str
    interrupted: bool = False
    eof: bool = False


def to_wire(text: str, nl: str) -> str:
    """Normalise handler output to ``nl`` line endings, ending with one newline if non-empty."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    return text.replace("\n", nl) if nl != "\n" else text


# --------------------------------------------------------------------------- server


@dataclass(eq=False)
class LabDevice:
    spec: LabDeviceSpec
    state: DeviceState
    personality: Personality
    server: asyncio.Server | None = None
    sessions: int = 0
    connections: set[asyncssh.SSHServerConnection] = field(default_factory=set)

    @property
    def endpoint(self) -> tuple[str, int]:
        assert self.spec.address is not None and self.spec.port is not None
        return self.spec.address, self.spec.port


class _Dropped(Exception):
    """Internal: the ``drop`` fault fired; abort the connection."""


class _ResetProtocol(asyncio.Protocol):
    """Accepts and immediately resets a TCP connection (``refuse`` fault): no SSH banner."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        _reset(transport)


def _reset(transport: Any) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


class _LabSSHServer(asyncssh.SSHServer):
    """Per-connection auth policy; finds its device by the accepting (address, port)."""

    def __init__(self, lab: LabServer) -> None:
        self._lab = lab
        self.device: LabDevice | None = None
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        sockname = conn.get_extra_info("sockname")
        self.device = self._lab.by_endpoint.get(tuple(sockname[:2])) if sockname else None
        self._conn = conn
        if self.device is not None:
            self.device.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.device is not None and self._conn is not None:
            self.device.connections.discard(self._conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def _allowed(self, username: str) -> bool:
        return (
            self.device is not None
            and not self.device.state.faults.auth_reject
            and username == self._lab.username
        )

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        return self._allowed(username) and key.public_data == self._lab.client_public_data

    def password_auth_supported(self) -> bool:
        return self._lab.password is not None

    def validate_password(self, username: str, password: str) -> bool:
        expected = self._lab.password
        if expected is None:
            return False
        ok = hmac.compare_digest(password.encode(), expected.encode())
        return self._allowed(username) and ok


def _release_free_heap() -> None:
    """Hand the C heap's free pages back to the system (glibc ``malloc_trim``; elsewhere nothing). Building the
    devices frees the spec's ~65 MB of preloaded files, which otherwise stay resident, unused, for the lab's life.
    ``malloc_trim(0)``: https://man7.org/linux/man-pages/man3/malloc_trim.3.html (glibc >= 2.8 releases free
    pages anywhere in the heap, not only at its top)."""
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # the process's own symbols, libc's among them
    except OSError:
        return
    if trim is not None:
        trim(0)


class LabServer:
    """All device listeners of one lab. Create, ``await start()``, ``await stop()``."""

    def __init__(
        self,
        devices: Iterable[LabDeviceSpec],
        state_dir: Path,
        *,
        username: str = DEFAULT_USERNAME,
        password: str | None = None,
    ) -> None:
        self.state_dir = ensure_state_dir(state_dir)
        self.username = username
        self.password = password or None
        self.devices: dict[str, LabDevice] = {}
        self.by_endpoint: dict[tuple[str, int], LabDevice] = {}
        self.rewired: dict[str, rewire.Moved] = {}  # device a cabling fault was injected on -> what moved
        for spec in devices:
            if spec.address is None or spec.port is None:
                raise LabError(f"device {spec.name} has no address/port; call assign_endpoints() first")
            personality = get_personality(spec.platform)
            state = personality.state_factory(spec.name, spec.platform, spec.extra)
            for key in ("preload_files", "preload_install"):  # applied by the state; don't keep ~100 KB per device
                spec.extra.pop(key, None)
                state.extra.pop(key, None)
            dev = LabDevice(spec, state, personality)
            self.devices[spec.name] = dev
            self.by_endpoint[dev.endpoint] = dev
        self.keys = ensure_lab_keys(self.state_dir)
        self.client_public_data = asyncssh.read_public_key(self.keys.client_pub).public_data
        self._options: asyncssh.SSHServerConnectionOptions | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._running = False

    # ---- lifecycle

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._options = asyncssh.SSHServerConnectionOptions(
            server_factory=lambda: _LabSSHServer(self),
            server_host_keys=[asyncssh.read_private_key(self.keys.host_key)],
            process_factory=self._run_process,
            encoding=None,
            line_editor=False,
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            login_timeout=30,
            keepalive_interval=0,
            kex_algs=LAB_KEX,
        )
        socks = self._bind_all()  # all of them first: a busy port fails the start, whatever the faults
        try:
            for dev, sock in zip(self.devices.values(), socks, strict=True):
                dev.server = await loop.create_server(self._protocol_factory(loop, dev), sock=sock)
        except BaseException:
            for sock in socks:
                sock.close()
            await self.stop()
            raise
        self._running = True
        for dev in self.devices.values():
            await self.sync_listener(dev)
        # the devices' preloaded state lives as long as the lab: keep the cyclic GC from walking it again in
        # every full collection, which otherwise lands inside whichever answer happens to trigger it
        gc.collect()
        gc.freeze()
        _release_free_heap()
        log.info("lab serving %d devices", len(self.devices))

    async def sync_listener(self, dev: LabDevice) -> None:
        """Close or reopen ``dev``'s listener to match its ``refuse`` fault.

        A refused device has no listener, so clients get a real "connection refused"; sessions
        already open stay up. (If ``faults.refuse`` is set without calling this, connections are
        reset at accept instead, before the SSH banner.)
        """
        if not self._running:
            return
        if dev.state.faults.refuse and dev.server is not None:
            dev.server.close()
            dev.server = None
        elif not dev.state.faults.refuse and dev.server is None:
            loop = asyncio.get_running_loop()
            dev.server = await loop.create_server(self._protocol_factory(loop, dev), sock=_bind_listener(dev))

    async def inject(self, device: str, fault: str, **params: Any) -> dict[str, Any]:
        """Apply a fault (see :meth:`DeviceState.apply_fault`); returns the device's active faults."""
        dev = self.device(device)
        try:
            dev.state.apply_fault(fault, **params)
        except TypeError as exc:  # a personality's apply_fault with a fixed signature
            raise LabError(f"bad parameters for fault '{fault}' on {device}: {exc}") from None
        if canonical_fault_name(fault) == "rail_swap":  # spans devices: the far ends move too (lab/rewire.py)
            self.rewired.setdefault(device, []).extend(
                rewire.swap_cables({n: d.state for n, d in self.devices.items()}, device, params))
        if canonical_fault_name(fault) == "no_lldpd":  # spans devices: no far end hears its LLDP
            rewire.silence({n: d.state for n, d in self.devices.items()}, device, True)
        if canonical_fault_name(fault) == "ecn_no_cnp":  # spans devices: its rail peers handle fewer CNPs
            cnp_flow.rebalance({n: d.state for n, d in self.devices.items()})
        await self.sync_listener(dev)
        return dev.state.faults.active()

    async def clear(self, device: str | None = None) -> list[str]:
        """Clear the faults of one device, or of all devices; returns the names cleared."""
        targets = [self.device(device)] if device else list(self.devices.values())
        states = {n: d.state for n, d in self.devices.items()}
        for dev in targets:
            rewire.restore(states, self.rewired.pop(dev.spec.name, []))
            rewire.silence(states, dev.spec.name, False)
        for dev in targets:
            dev.state.clear_faults()
            await self.sync_listener(dev)
        cnp_flow.rebalance(states)  # a cleared receiver sends CNPs again: its peers handle them again
        return [dev.spec.name for dev in targets]

    def _bind_all(self) -> list[socket.socket]:
        socks: list[socket.socket] = []
        try:
            for dev in self.devices.values():
                socks.append(_bind_listener(dev))
        except BaseException:
            for sock in socks:
                sock.close()
            raise
        return socks

    def _protocol_factory(self, loop: asyncio.AbstractEventLoop, dev: LabDevice) -> Any:
        options = self._options
        if options is None:  # start() sets them before it creates the first listener
            raise LabError("the lab is not started")

        def factory() -> asyncio.BaseProtocol:
            if dev.state.faults.refuse:
                return _ResetProtocol()
            return asyncssh.SSHServerConnection(loop, options)

        return factory

    async def stop(self) -> None:
        """Stop listening and abort every open connection."""
        self._running = False
        servers = [dev.server for dev in self.devices.values() if dev.server is not None]
        for srv in servers:
            srv.close()
        for dev in self.devices.values():
            dev.server = None
            for conn in list(dev.connections):
                conn.abort()
        for srv in servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(srv.wait_closed(), 2)
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=2)
            for task in pending:  # e.g. sleeping in a long Reply.delay_ms
                task.cancel()

    # ---- queries

    def device(self, name: str) -> LabDevice:
        try:
            return self.devices[name]
        except KeyError:
            raise LabError(f"no lab device named '{name}'") from None

    def session_count(self) -> int:
        return sum(dev.sessions for dev in self.devices.values())

    # ---- sessions

    async def _run_process(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        conn = process.channel.get_connection()
        owner = conn.get_owner()
        dev = owner.device if isinstance(owner, _LabSSHServer) else None
        if dev is None:
            process.exit(255)
            return
        pty = process.get_terminal_type() is not None
        info = SessionInfo(
            username=process.get_extra_info("username") or self.username,
            pty=pty,
            term_type=process.get_terminal_type(),
            peer=tuple(peer[:2]) if (peer := process.get_extra_info("peername")) else None,
            exec_command=process.command,
        )
        dev.sessions += 1
        session: Session | None = None
        try:
            session = dev.personality.session_factory(dev.state, info)
            if process.subsystem:
                _write(process, f"subsystem {process.subsystem} is not available on this lab device\n")
                process.exit(1)
            elif process.command is not None:
                await self._run_exec(process, dev, session, "\r\n" if pty else "\n")
            else:
                await self._run_shell(process, dev, session, pty)
        except _Dropped:
            log.info("drop fault: resetting connection to %s", dev.spec.name)
            _reset(conn)
        except (BrokenPipeError, ConnectionError, asyncssh.Error):
            pass  # client went away
        except Exception:
            log.exception("lab session on %s (platform %s) failed", dev.spec.name, dev.spec.platform)
            with contextlib.suppress(Exception):
                process.exit(255)
        finally:
            dev.sessions -= 1
            if session is not None:
                with contextlib.suppress(Exception):
                    session.close()
            if task is not None:
                self._tasks.discard(task)

    def _call(self, dev: LabDevice, session: Session, line: str) -> Reply:
        """Run the personality on one line; its bugs become output, never a dead server."""
        try:
            result = session.handle(line)
        except CloseSession:
            raise
        except Exception as exc:
            log.exception("personality %s failed on device %s", dev.spec.platform, dev.spec.name)
            return Reply(
                f"% lab: internal error in the {dev.spec.platform} personality ({type(exc).__name__})", 0, 1
            )
        return result if isinstance(result, Reply) else Reply(str(result))

    @staticmethod
    async def _delay(dev: LabDevice, extra_ms: int = 0) -> None:
        total = dev.state.faults.slow_ms + max(extra_ms, 0)
        if total > 0:
            await asyncio.sleep(total / 1000)

    async def _run_exec(
        self, process: asyncssh.SSHServerProcess[bytes], dev: LabDevice, session: Session, nl: str
    ) -> None:
        command = process.command or ""
        if command.strip() and dev.state.consume_command(command):
            raise _Dropped
        try:
            reply = self._call(dev, session, command)
        except CloseSession as close:
            reply = Reply(close.output, 0, close.exit_status)
        await self._delay(dev, reply.delay_ms)
        _write(process, to_wire(reply.text, nl))
        await process.stdout.drain()
        process.exit(reply.exit_status)

    async def _run_shell(
        self, process: asyncssh.SSHServerProcess[bytes], dev: LabDevice, session: Session, pty: bool
    ) -> None:
        nl = "\r\n" if pty else "\n"
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        lines = LineBuffer(nl)
        await self._delay(dev)
        if pty:
            _write(process, to_wire(session.banner(), nl) + session.prompt())
        while True:
            try:
                data = await process.stdin.read(_READ_SIZE)
            except (asyncssh.BreakReceived, asyncssh.SignalReceived, asyncssh.TerminalSizeChanged):
                continue
            if not data:
                break
            for item in lines.feed(decoder.decode(data)):
                if isinstance(item, str):
                    if pty:
                        _write(process, item)
                    continue
                if item.eof:
                    _write(process, to_wire("logout", nl) if pty else "")
                    process.exit(0)
                    return
                if item.interrupted:
                    _write(process, session.prompt() if pty else "")
                    continue
                if item.text.strip() and dev.state.consume_command(item.text):
                    raise _Dropped
                try:
                    reply = self._call(dev, session, item.text)
                except CloseSession as close:
                    await self._delay(dev)
                    _write(process, to_wire(close.output, nl))
                    await process.stdout.drain()
                    process.exit(close.exit_status)
                    return
                await self._delay(dev, reply.delay_ms)
                _write(process, to_wire(reply.text, nl) + (session.prompt() if pty else ""))
                await process.stdout.drain()
        process.exit(0)


def _write(process: asyncssh.SSHServerProcess[bytes], text: str) -> None:
    if text:
        process.stdout.write(text.encode("utf-8", errors="replace"))


def _bind_listener(dev: LabDevice) -> socket.socket:
    address, port = dev.endpoint
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(_LISTEN_BACKLOG)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        where = f"{address}:{port} (device {dev.spec.name})"
        if exc.errno == errno.EADDRINUSE:
            raise LabError(
                f"port already in use: {where}; stop whatever listens there or choose another port"
            ) from None
        if exc.errno == errno.EACCES:
            raise LabError(f"permission denied binding {where}; ports below 1024 need root") from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise LabError(f"cannot bind {where}: address not available on this host") from None
        raise LabError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    return sock
