"""The lab's gNMI: every simulated switch whose personality answers gNMI (``Personality.gnmi``) serves the gNMI
service on its own loopback address, on a port of its own that the OS picks (``overlay.json`` records it as
``gnmi_port``). One ``grpc.aio`` server per device, all on the lab's event loop, so answers read the device state
on the same thread the SSH sessions use.

What a device serves comes from its own path table (e.g. :mod:`roceops.lab.devices.sonic.gnmi`); this module only
speaks the protocol (gNMI spec: https://github.com/openconfig/reference/blob/master/rpc/gnmi/gnmi-specification.md,
messages from pygnmi's bundled gnmi.proto v0.8.0): Capabilities, Get, and Subscribe in STREAM (SAMPLE), ONCE and
POLL modes, values as JSON_IETF. The device's faults apply: ``refuse`` answers UNAVAILABLE, ``auth_reject`` and a
wrong user/password UNAUTHENTICATED, ``slow`` delays every answer, ``drop`` ends the stream with UNAVAILABLE.
No TLS: the lab is loopback only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2 as pb
from pygnmi.spec.v080 import gnmi_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from roceops.lab.sshserver import LabDevice, LabServer

log = logging.getLogger("roceops.lab")

MIN_SAMPLE_S = 0.05  # a SAMPLE interval below this (or 0, "target's choice") is served at DEFAULT_SAMPLE_S
DEFAULT_SAMPLE_S = 10.0


def _path_elems(prefix: pb.Path, path: pb.Path) -> tuple[str, list[str]]:
    """(target, element names) of a request path under its prefix; legacy ``element`` strings too."""
    names = [e.name for e in prefix.elem] + [e.name for e in path.elem]
    names += list(prefix.element) + list(path.element)
    return prefix.target or path.target, [n for n in names if n]


def _typed(value: Any) -> pb.TypedValue:
    return pb.TypedValue(json_ietf_val=json.dumps(value, separators=(",", ":")).encode())


class _Service(pb_grpc.gNMIServicer):
    """The gNMI service of one simulated device."""

    def __init__(self, device: LabDevice, lab: LabServer) -> None:
        self.device = device
        self.lab = lab

    # ---- admission and faults

    async def _admit(self, context: grpc.aio.ServicerContext) -> None:
        faults = self.device.state.faults
        if faults.refuse:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "connection refused")
        meta = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        user, password = meta.get("username", ""), meta.get("password", "")
        expected = self.lab.password
        ok = (not faults.auth_reject and user == self.lab.username
              and (expected is None or hmac.compare_digest(password.encode(), expected.encode())))
        if not ok:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "authentication failed")
        await self._delay()

    async def _delay(self) -> None:
        slow = self.device.state.faults.slow_ms
        if slow:
            await asyncio.sleep(slow / 1000)

    def _notification(self, prefix: pb.Path, paths: list[pb.Path]) -> pb.Notification:
        personality = self.device.personality
        if personality.gnmi_leaves is not None:
            return self._leaf_notification(prefix, paths)
        answer = personality.gnmi
        assert answer is not None
        updates = []
        for path in paths:
            target, elems = _path_elems(prefix, path)
            updates.append(pb.Update(path=path, val=_typed(answer(self.device.state, target, elems))))
        return pb.Notification(timestamp=time.time_ns(), prefix=prefix, update=updates)

    def _leaf_notification(self, prefix: pb.Path, paths: list[pb.Path]) -> pb.Notification:
        """One update per leaf under each subscription path, with the leaf's full keyed path (empty prefix)."""
        answer = self.device.personality.gnmi_leaves
        assert answer is not None
        updates = []
        for path in paths:
            text = "/".join(e.name + "".join(f"[{k}={v}]" for k, v in sorted(e.key.items()))
                            for e in [*prefix.elem, *path.elem])
            for elems, value in answer(self.device.state, prefix.target or path.target, text):
                leaf = pb.Path(elem=[pb.PathElem(name=n, key=keys) for n, keys in elems])
                updates.append(pb.Update(path=leaf, val=pb.TypedValue(json_ietf_val=json.dumps(value).encode())))
        return pb.Notification(timestamp=time.time_ns(), update=updates)

    async def _answer(self, context: grpc.aio.ServicerContext, prefix: pb.Path,
                      paths: list[pb.Path]) -> pb.Notification:
        try:
            return self._notification(prefix, paths)
        except LookupError as exc:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
            raise  # abort raises; this keeps type checkers sure the function never falls through

    # ---- RPCs

    async def Capabilities(self, request: pb.CapabilityRequest,
                           context: grpc.aio.ServicerContext) -> pb.CapabilityResponse:
        await self._admit(context)
        return pb.CapabilityResponse(supported_encodings=[pb.Encoding.Value("JSON_IETF")], gNMI_version="0.8.0")

    async def Get(self, request: pb.GetRequest, context: grpc.aio.ServicerContext) -> pb.GetResponse:
        await self._admit(context)
        return pb.GetResponse(notification=[await self._answer(context, request.prefix, list(request.path))])

    async def Set(self, request: pb.SetRequest, context: grpc.aio.ServicerContext) -> pb.SetResponse:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "the lab serves read-only gNMI")
        raise AssertionError("unreachable")

    async def Subscribe(self, request_iterator: AsyncIterator[pb.SubscribeRequest],
                        context: grpc.aio.ServicerContext) -> AsyncIterator[pb.SubscribeResponse]:
        first = await anext(aiter(request_iterator), None)  # read before refusing: an abort racing the client's
        await self._admit(context)  # first message can reach it as INTERNAL instead of the status sent
        if first is None or not first.HasField("subscribe"):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first SubscribeRequest must subscribe")
            return
        sub = first.subscribe
        paths = [s.path for s in sub.subscription]
        yield pb.SubscribeResponse(update=await self._answer(context, sub.prefix, paths))
        yield pb.SubscribeResponse(sync_response=True)
        if sub.mode == pb.SubscriptionList.Mode.Value("ONCE"):
            return
        if sub.mode == pb.SubscriptionList.Mode.Value("POLL"):
            async for request in request_iterator:
                if request.HasField("poll"):
                    await self._admit(context)
                    yield pb.SubscribeResponse(update=await self._answer(context, sub.prefix, paths))
                    yield pb.SubscribeResponse(sync_response=True)
            return
        intervals = [s.sample_interval / 1e9 for s in sub.subscription if s.sample_interval]
        interval = min(intervals) if intervals else DEFAULT_SAMPLE_S
        interval = interval if interval >= MIN_SAMPLE_S else DEFAULT_SAMPLE_S
        while True:
            await asyncio.sleep(interval)
            faults = self.device.state.faults
            if faults.refuse:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "connection refused")
            if self.device.state.consume_command():
                await context.abort(grpc.StatusCode.UNAVAILABLE, "connection dropped")
            await self._delay()
            yield pb.SubscribeResponse(update=await self._answer(context, sub.prefix, paths))


class LabGnmi:
    """The gNMI servers of one lab: ``await start()`` after the SSH listeners, ``await stop()`` before they go."""

    def __init__(self, lab: LabServer) -> None:
        self.lab = lab
        self.servers: dict[str, grpc.aio.Server] = {}
        self.ports: dict[str, int] = {}

    async def start(self) -> None:
        try:
            for name, dev in self.lab.devices.items():
                if dev.personality.gnmi is None and dev.personality.gnmi_leaves is None:
                    continue
                server = grpc.aio.server()
                pb_grpc.add_gNMIServicer_to_server(_Service(dev, self.lab), server)
                port = server.add_insecure_port(f"{dev.spec.address}:0")
                if not port:
                    raise OSError(f"{name}: cannot bind gNMI on {dev.spec.address}")
                await server.start()
                self.servers[name], self.ports[name] = server, port
        except BaseException:
            await self.stop()
            raise
        log.info("lab gNMI on %d devices", len(self.servers))

    async def stop(self) -> None:
        servers, self.servers = self.servers, {}
        with contextlib.suppress(Exception):
            await asyncio.gather(*(s.stop(None) for s in servers.values()))
