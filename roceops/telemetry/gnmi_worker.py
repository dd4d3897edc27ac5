"""One switch's gNMI stream: connect with pygnmi, subscribe in STREAM/SAMPLE mode to its room's paths, turn every
update into readings for the store; on any failure mark it down, back off and reconnect. Each switch has its own
thread, so a device that is down, slow or refusing never holds up another."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pygnmi.client import gNMIclient

from roceops.platforms.gnmi_paths import GnmiPaths, Interest, Reading
from roceops.redact import redact
from roceops.telemetry.store import Store
from roceops.telemetry.targets import Target

log = logging.getLogger("roceops.telemetry")

CONNECT_TIMEOUT_S = 5.0
STALE_SAMPLES = 2.5  # no update for this many intervals: target_up 0
RECONNECT_SAMPLES = 6  # ... for this many: drop the session and reconnect
WAIT_SLICE_S = 1.0  # how often a waiting worker looks at the stop flag


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
    for item in (update.get("update") or {}).get("update") or ():
        path = str(item.get("path", "")).strip("/")
        if path in spec.paths:
            yield path, list(spec.decode(path, item.get("val"), want))


def _items(update: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """path -> update item of one pygnmi-parsed notification."""
    return {str(item.get("path", "")): item for item in (update.get("update") or {}).get("update") or ()}


def newest(stream: Any, update: dict[str, Any]) -> dict[str, Any]:
    """``update`` merged with every update already queued behind it, the newest of each path winning: a worker
    that fell behind its device processes one sample, so pygnmi's queue never grows with a slow collector."""
    latest = _items(update)
    while stream.peek():
        latest.update(_items(stream.get_update(timeout=0)))
    return {"update": {"update": list(latest.values())}}


class GnmiWorker(threading.Thread):
    def __init__(self, target: Target, spec: GnmiPaths, store: Store, settings: GnmiSettings,
                 stop: threading.Event) -> None:
        super().__init__(name=f"gnmi-{target.name}", daemon=True)
        self.target, self.spec, self.store, self.settings, self.stop = target, spec, store, settings, stop
        self.sessions = 0
        self.last_error = ""
        self._client: gNMIclient | None = None
        self._lock = threading.Lock()

    def run(self) -> None:
        backoff = Backoff(*self.settings.retry_s)
        while not self.stop.is_set():
            got = False
            try:
                got = self._session()
            except Exception as exc:  # any failure of one device is that device's: log, back off, reconnect
                self.last_error = describe(exc)
                if not self.stop.is_set():
                    log.warning("%s: gNMI session ended: %s", self.target.name, self.last_error)
            finally:
                self._close()
            self.store.down(self.target.name)
            if got:
                backoff.reset()
            self.stop.wait(backoff.next())

    def close(self) -> None:
        """Called from another thread at shutdown: closing the channel cancels a blocked RPC."""
        self._close()

    def _close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception as exc:  # closing a channel that never opened
                log.debug("%s: close: %s", self.target.name, exc)

    def _connect(self) -> gNMIclient:
        t, s = self.target, self.settings
        client = gNMIclient(target=(t.host, t.port or self.spec.default_port), username=s.username,
                            password=s.password, insecure=s.insecure, path_root=s.root_ca,
                            gnmi_timeout=CONNECT_TIMEOUT_S)
        with self._lock:
            self._client = client
        if self.stop.is_set():
            raise InterruptedError("stopping")
        client.connect()
        return client

    def _session(self) -> bool:
        """One connection's life; True if it delivered at least one sample."""
        client = self._connect()
        self.sessions += 1
        interval_ns = int(self.settings.interval_s * 1e9)
        request = {"subscription": [{"path": p, "mode": "sample", "sample_interval": interval_ns}
                                    for p in self.spec.paths], "mode": "stream", "encoding": "json_ietf"}
        stream = client.subscribe_stream(subscribe=request, target=self.spec.target or None)
        got = False
        last = time.monotonic()
        try:
            while not self.stop.is_set():
                try:
                    update = stream.get_update(timeout=min(WAIT_SLICE_S, self.settings.interval_s))
                except TimeoutError:
                    if stream.error is not None:
                        raise stream.error from None
                    quiet = (time.monotonic() - last) / self.settings.interval_s
                    if quiet > STALE_SAMPLES:
                        self.store.down(self.target.name)
                    if quiet > RECONNECT_SAMPLES:
                        raise TimeoutError(f"no sample for {quiet:.0f} intervals") from None
                    continue
                for path, readings in readings_of(self.target, self.spec, newest(stream, update)):
                    self.store.put(self.target.name, readings, part=path)
                    got = True
                last = time.monotonic()
        finally:
            stream.close()
        return got
