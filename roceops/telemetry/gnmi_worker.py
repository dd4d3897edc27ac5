"""One switch's gNMI stream: subscribe in STREAM/SAMPLE mode to its room's paths, turn every update into readings
for the store; on any failure mark it down, back off and reconnect, so a device that is down, slow or refusing
never holds up another.

Every switch's stream runs on one asyncio loop (:class:`GnmiLoop`, grpc.aio) with pygnmi's gNMI messages and path
builder/degenerator (:func:`parse` reads a notification as pygnmi's parser does, JSON by orjson). pygnmi's own
client runs each subscription on two threads whose blocking gRPC reads wake every 0.1 s (grpc's
``MAXIMUM_WAIT_TIMEOUT``): 1,008 switches made ~10,000 wake-ups a second, most of the collector's CPU
(bench/RESULTS.md, issue 30's eighth round). HTTP/2 flow control bounds what a slow collector holds per stream."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import orjson
from pygnmi.create_gnmi_path import gnmi_path_degenerator, gnmi_path_generator
from pygnmi.spec.v080 import gnmi_pb2 as pb
from pygnmi.spec.v080.gnmi_pb2_grpc import gNMIStub

from roceops.platforms.gnmi_paths import GnmiPaths, Interest, Reading
from roceops.redact import redact
from roceops.telemetry.store import Store
from roceops.telemetry.targets import Target
from roceops.util.picklable import PicklableError

log = logging.getLogger("roceops.telemetry")

CONNECT_TIMEOUT_S = 5.0
RECONNECT_SAMPLES = 6  # no update for this many intervals: drop the session and reconnect
MAX_MESSAGE_BYTES = 64 * 2**20  # one SONiC COUNTERS path of a 512-port switch exceeds gRPC's 4 MiB default


@dataclass(frozen=True)
class GnmiSettings:
    """How every switch is reached; secrets only from the environment (roceops.telemetry.collector)."""

    username: str
    password: str = field(repr=False)  # never in a repr, a log line or an exception
    insecure: bool = False  # plaintext gRPC (the lab; never a real fabric unless the operator says so)
    root_ca: str | None = None  # PEM file of the CA that signed the switches' gNMI certificates
    interval_s: float = 10.0
    retry_s: tuple[float, float] = (1.0, 60.0)  # reconnect backoff: first delay, cap


class Backoff:
    """Reconnect delays: 1 s doubling to ``cap`` with +-20 % jitter, so N collectors do not retry in step."""

    def __init__(self, first: float = 1.0, cap: float = 60.0) -> None:
        self.first, self.cap, self.current = first, cap, first

    def next(self) -> float:
        delay = self.current * random.uniform(0.8, 1.2)
        self.current = min(self.cap, self.current * 2)
        return delay

    def reset(self) -> None:
        self.current = self.first


def describe(exc: BaseException) -> str:
    """One line about a failure, without secrets: a gRPC status and its details, else the exception."""
    exc = getattr(exc, "orig_exc", None) or exc  # pygnmi's gNMIException wraps the grpc error
    code, details = getattr(exc, "code", None), getattr(exc, "details", None)
    if callable(code) and callable(details):
        status = code()
        text = f"{getattr(status, 'name', status)}: {details()}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return redact(text)[:300]


def readings_of(target: Target, spec: GnmiPaths, update: dict[str, Any]) -> Iterator[tuple[str, list[Reading]]]:
    """(path, readings) per update in one pygnmi-parsed notification (paths the room does not know are skipped);
    counters of lossy priorities and queues only once they move (:class:`Interest`)."""
    want = Interest(target.lossless_priorities, target.lossless_queues)
    notification = update.get("update") or {}
    prefix = str(notification.get("prefix") or "").strip("/")
    merged: dict[str, list[Reading]] = {}
    for item in notification.get("update") or ():
        path = str(item.get("path") or "").strip("/")
        path = f"{prefix}/{path}" if prefix else path
        part = spec.part_of(path)
        if part is None:
            continue
        readings = list(spec.decode(path, item.get("val"), want))
        if not spec.leaves:
            yield part, readings
        else:  # one leaf per update: the notification's leaves of one subscription path together
            merged.setdefault(part, []).extend(readings)
    yield from merged.items()


_SCALARS = ("uint_val", "int_val", "float_val", "double_val", "string_val", "bool_val")


def _value(typed: pb.TypedValue) -> Any:
    kind = typed.WhichOneof("value")
    if kind in ("json_ietf_val", "json_val"):
        return orjson.loads(getattr(typed, kind))
    return getattr(typed, kind) if kind in _SCALARS else None


def parse(response: pb.SubscribeResponse) -> dict[str, Any]:
    """A notification in the shape of pygnmi's ``telemetryParser`` (``{"update": {"prefix", "update": [{"path",
    "val"}]}}``, paths by pygnmi's ``gnmi_path_degenerator``), with JSON values parsed by orjson: parsing sonic-gnmi's
    per-path JSON documents is the largest per-sample cost (stdlib json ~0.7 ms, orjson ~0.4 ms for a 64-port
    leaf's 149 KiB)."""
    n = response.update
    out: dict[str, Any] = {"update": [{"path": gnmi_path_degenerator(u.path), "val": _value(u.val)}
                                      for u in n.update]}
    if n.HasField("prefix"):
        out["prefix"] = gnmi_path_degenerator(n.prefix) or ""
    return {"update": out}


def subscribe_request(spec: GnmiPaths, interval_s: float) -> pb.SubscribeRequest:
    """STREAM of SAMPLE subscriptions to the room's paths, JSON_IETF, the room's target in the prefix."""
    interval_ns = int(interval_s * 1e9)
    subscriptions = [pb.Subscription(path=gnmi_path_generator(p), mode=pb.SubscriptionMode.Value("SAMPLE"),
                                     sample_interval=interval_ns) for p in spec.paths]
    return pb.SubscribeRequest(subscribe=pb.SubscriptionList(
        prefix=gnmi_path_generator("", spec.target or None), subscription=subscriptions,
        mode=pb.SubscriptionList.Mode.Value("STREAM"), encoding=pb.Encoding.Value("JSON_IETF")))


class StreamEnded(PicklableError, ConnectionError):
    """A stream's final gRPC status (``code()``/``details()`` as grpc's errors, for :func:`describe`)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


async def _status(call: Any) -> StreamEnded:
    code = await call.code()
    return StreamEnded(code, await call.details() or "the switch ended the stream")


class GnmiLoop:
    """The one event loop (on its own thread) that runs every switch's stream."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="gnmi-loop", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def submit(self, coro: Any) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self, timeout: float) -> None:
        """Cancel every stream and wait for their channels to close, then end the loop and its thread."""
        if not self.thread.is_alive():
            return
        try:
            asyncio.run_coroutine_threadsafe(_cancel_all(), self.loop).result(timeout)
        except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError):
            log.warning("gNMI streams did not close within %g s", timeout)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)


async def _cancel_all() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class GnmiWorker:
    """One switch's stream on the shared loop: ``start``, ``close`` (from any thread), ``join``."""

    def __init__(self, target: Target, spec: GnmiPaths, store: Store, settings: GnmiSettings,
                 stop: threading.Event, loop: GnmiLoop) -> None:
        self.target, self.spec, self.store, self.settings, self.stop = target, spec, store, settings, stop
        self.loop = loop
        self.name = f"gnmi-{target.name}" + (f"-{spec.target}" if spec.target else "")
        self.sessions = 0
        self.last_error = ""
        self._future: concurrent.futures.Future[Any] | None = None
        self._request = subscribe_request(spec, settings.interval_s)

    def start(self) -> None:
        self._future = self.loop.submit(self.run())

    def close(self) -> None:
        if self._future is not None:
            self._future.cancel()  # cancels the task on the loop: its channel closes in run()'s finally

    def is_alive(self) -> bool:
        return self._future is not None and not self._future.done()

    def join(self, timeout: float | None = None) -> None:
        if self._future is not None:
            concurrent.futures.wait([self._future], timeout)

    async def run(self) -> None:
        backoff = Backoff(*self.settings.retry_s)
        while not self.stop.is_set():
            got = False
            try:
                got = await self._session()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure of one device is that device's: log, back off, reconnect
                self.last_error = describe(exc)
                if not self.stop.is_set():
                    log.warning("%s: gNMI session ended: %s", self.target.name, self.last_error)
            self.store.down(self.target.name)
            if got:
                backoff.reset()
            await asyncio.sleep(backoff.next())

    def _channel(self) -> grpc.aio.Channel:
        t, s = self.target, self.settings
        address = f"{t.host}:{t.port or self.spec.default_port}"
        options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
        if s.insecure:
            return grpc.aio.insecure_channel(address, options=options)
        root = None
        if s.root_ca:
            with open(s.root_ca, "rb") as f:
                root = f.read()
        return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=root), options)

    async def _session(self) -> bool:
        """One connection's life; True if it delivered at least one sample."""
        channel = self._channel()
        try:
            try:
                await asyncio.wait_for(channel.channel_ready(), CONNECT_TIMEOUT_S)
            except TimeoutError:
                raise ConnectionError(f"no gNMI connection in {CONNECT_TIMEOUT_S:g} s") from None
            metadata = (("username", self.settings.username), ("password", self.settings.password))
            call = gNMIStub(channel).Subscribe(metadata=metadata)
            self.sessions += 1
            try:
                await call.write(self._request)  # the request side stays open for the stream's life (as pygnmi's)
            except grpc.aio.AioRpcError:
                raise await _status(call) from None  # a switch that refused the call: its status, not the write's
            return await self._receive(call)
        finally:
            await channel.close(None)

    async def _receive(self, call: Any) -> bool:
        got = False
        quiet = RECONNECT_SAMPLES * self.settings.interval_s
        while not self.stop.is_set():
            try:
                async with asyncio.timeout(quiet):  # a timer, not wait_for's task per message
                    response = await call.read()
            except TimeoutError:
                raise TimeoutError(f"no sample for {RECONNECT_SAMPLES} intervals") from None
            if response is grpc.aio.EOF:
                raise await _status(call)
            if not response.HasField("update"):
                continue  # sync_response
            for part, readings in readings_of(self.target, self.spec, parse(response)):
                self.store.put(self.target.name, readings, part=part, merge=self.spec.leaves)
                got = True
        return got
