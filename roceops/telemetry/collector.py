"""The collector: every switch's gNMI stream on one asyncio loop, one thread per host (SSH), one store, one
HTTP endpoint (the store's text and prometheus-client's registry, roceops.telemetry.endpoint) that Prometheus
scrapes; SIGTERM/SIGINT stop it cleanly (workers' channels and sessions closed, the HTTP server shut down) within a
few seconds."""

from __future__ import annotations

import importlib
import logging
import os
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import grpc
from prometheus_client import CollectorRegistry

from roceops.device.intent import HostIntent
from roceops.platforms.base import get_platform
from roceops.platforms.gnmi_paths import GnmiPaths
from roceops.telemetry.endpoint import serve
from roceops.telemetry.gnmi_worker import GnmiLoop, GnmiSettings, GnmiWorker
from roceops.telemetry.host_worker import HostWorker
from roceops.telemetry.store import MAX_SERIES_PER_DEVICE, Store
from roceops.telemetry.targets import Target
from roceops.topology.fabric import Fabric

log = logging.getLogger("roceops.telemetry")

THREAD_STACK_BYTES = 512 * 1024  # a thread per host (SSH): keep 1,000 hosts' stacks small
JOIN_S = 5.0

# environment variables of the gNMI credentials and TLS settings (never options, files or logs)
USER_ENV, PASSWORD_ENV, CA_ENV, INSECURE_ENV = (
    "ROCEOPS_GNMI_USERNAME", "ROCEOPS_GNMI_PASSWORD", "ROCEOPS_GNMI_CA", "ROCEOPS_GNMI_INSECURE")


def gnmi_settings(interval_s: float, lab_username: str | None = None) -> GnmiSettings:
    """gNMI credentials from the environment (fallback: the SSH ones, ROCEOPS_USERNAME/ROCEOPS_PASSWORD). With
    ``lab_username`` (the lab overlay's user): plaintext gRPC on loopback, the lab's password only when
    ROCEOPS_LAB_PASSWORD is set (as its SSH)."""
    if lab_username is not None:
        return GnmiSettings(username=lab_username, password=os.environ.get("ROCEOPS_LAB_PASSWORD", ""),
                            insecure=True, interval_s=interval_s)
    return GnmiSettings(
        username=os.environ.get(USER_ENV) or os.environ.get("ROCEOPS_USERNAME", "admin"),
        password=os.environ.get(PASSWORD_ENV) or os.environ.get("ROCEOPS_PASSWORD", ""),
        insecure=os.environ.get(INSECURE_ENV, "") == "1", root_ca=os.environ.get(CA_ENV) or None,
        interval_s=interval_s)


def _quiet_cancelled_streams(args: threading.ExceptHookArgs) -> None:
    """pygnmi's subscription thread re-raises the CANCELLED/UNAVAILABLE a closed channel or a lost switch causes;
    the worker already reads it from the subscription (``error``), so it is not printed again."""
    if isinstance(args.exc_value, grpc.RpcError) and "enqueue_updates" in (args.thread.name if args.thread else ""):
        return
    threading.__excepthook__(args)


@dataclass
class Collector:
    fabric: Fabric
    targets: list[Target]
    settings: GnmiSettings
    listen: tuple[str, int] = ("127.0.0.1", 9105)
    lab_dir: Path | None = None
    max_series: int = MAX_SERIES_PER_DEVICE
    stop_event: threading.Event = field(default_factory=threading.Event)
    workers: list[GnmiWorker | HostWorker] = field(default_factory=list)
    gnmi_loop: GnmiLoop = field(default_factory=GnmiLoop)
    store: Store = field(init=False)
    port: int = field(init=False, default=0)
    _server: Any = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.store = Store(self.max_series, self.settings.interval_s)

    def start(self) -> None:
        threading.excepthook = _quiet_cancelled_streams
        logging.getLogger("pygnmi").disabled = True  # it logs every gRPC error at CRITICAL; the workers report them
        threading.stack_size(THREAD_STACK_BYTES)
        registry = CollectorRegistry(auto_describe=False)
        registry.register(self.store.registry_collector)
        for t in self.targets:
            self.store.register(t.name, t.platform, t.place, own_place=t.via == "ssh")
        self._server, _ = serve(self.store, registry, self.listen[0], self.listen[1])
        self.port = int(self._server.server_address[1])
        self.workers = [*self._gnmi_workers(), *self._host_workers()]
        self.gnmi_loop.start()
        for w in self.workers:
            w.start()
        log.info("telemetry: %d devices, metrics on http://%s:%d/metrics", len(self.workers), self.listen[0],
                 self.port)

    def _gnmi_workers(self) -> list[GnmiWorker]:
        specs: dict[str, GnmiPaths] = {}
        out = []
        for t in self.targets:
            if t.via != "gnmi":
                continue
            if t.platform not in specs:
                module = get_platform(t.platform).gnmi_paths
                assert module is not None
                specs[t.platform] = importlib.import_module(module).GNMI
            for spec in (specs[t.platform], *specs[t.platform].also):  # one stream per target of the room
                out.append(GnmiWorker(t, spec, self.store, self.settings, self.stop_event, self.gnmi_loop))
        return out

    def _host_workers(self) -> list[HostWorker]:
        hosts = [t for t in self.targets if t.via == "ssh"]
        if not hosts:
            return []
        from roceops.nornir_glue.inventory import build_inventory
        from roceops.plan import plan

        inventory = build_inventory(self.fabric, None, self.lab_dir, only={t.name for t in hosts}, login="quick")
        out = []
        for t in hosts:
            intent = plan(self.fabric, t.name)
            assert isinstance(intent, HostIntent)
            out.append(HostWorker(t, intent, inventory.hosts[t.name], self.store, self.settings.interval_s,
                                  self.stop_event, self.settings.retry_s))
        return out

    def stop(self) -> None:
        """Stop every worker (closing channels and sessions unblocks them) and the HTTP server."""
        self.stop_event.set()
        for w in self.workers:
            w.close()
        for w in self.workers:
            w.join(JOIN_S)
        self.gnmi_loop.stop(JOIN_S)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def serve_until_signal(self) -> None:
        """After :meth:`start`: serve until SIGTERM or SIGINT (or ``stop_event``), then stop cleanly."""
        def on_signal(signum: int, frame: FrameType | None) -> None:
            self.stop_event.set()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not self.stop_event.wait(1.0):
                pass
        finally:
            self.stop()
            for s, handler in previous.items():
                signal.signal(s, handler)
