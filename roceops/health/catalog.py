"""The health-check catalog (the ANTA pattern): each check is a small class with a name, what it
looks at, and a ``test()`` that records one result per item. Checks read only the sampled
state in a :class:`LinkContext`; collection happens elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from roceops.device.intent import NicIntent, SwitchIntent, SwitchPort
from roceops.device.observed import (
    Observed,
    ObservedHost,
    ObservedNic,
    ObservedQueue,
    ObservedSwitch,
    ObservedSwitchPort,
)
from roceops.device.oper import OperState, PortOper
from roceops.health.model import ResultStatus, Thresholds
from roceops.report.result import Result


@dataclass
class Sample:
    """What one device showed: its configuration (the room's Observed model) and two operational samples over
    the window."""

    observed: Observed | None = None
    first: OperState | None = None
    second: OperState | None = None
    window_s: float = 0.0
    error: str | None = None
    counters_only: bool = False  # counters from Prometheus (health --counters-from): no configuration was read


@dataclass
class LinkContext:
    """One NIC of a node and the leaf port it is cabled to."""

    node: str
    nic: NicIntent
    host: Sample
    leaf: SwitchIntent
    leaf_port: SwitchPort
    switch: Sample
    thresholds: Thresholds


def _port(state: OperState | None, name: str) -> PortOper | None:
    return state.ports.get(name) if state is not None else None


def _delta(sample: Sample, port: str, counter: str) -> tuple[int, float] | None:
    a, b = _port(sample.first, port), _port(sample.second, port)
    if a is None or b is None or counter not in a.counters or counter not in b.counters or sample.window_s <= 0:
        return None
    return b.counters[counter] - a.counters[counter], sample.window_s


def _unread(sample: Sample, port: str, counters: tuple[str, ...]) -> str:
    """Why the sampled port's ``counters`` could not be read ("" when the platform just lacks them)."""
    reasons = {r for state in (sample.first, sample.second) if (p := _port(state, port)) is not None
               for c in counters if (r := p.unread.get(c))}
    return "; ".join(sorted(reasons))


class Check:
    name: ClassVar[str]
    description: ClassVar[str]

    def test(self, ctx: LinkContext) -> list[Result]:
        raise NotImplementedError

    def result(self, ctx: LinkContext, item: str, ok: bool | None, expected: Any, observed: Any,
               message: str) -> Result:
        status: ResultStatus = "unknown" if ok is None else "ok" if ok else "fail"
        return Result(device=ctx.node, check=self.name, path=item, status=status, expected=expected,
                           observed=observed, message=message)

    @staticmethod
    def nic_item(ctx: LinkContext) -> str:
        return f"{ctx.node}:{ctx.nic.netdev}"

    @staticmethod
    def port_item(ctx: LinkContext) -> str:
        return f"{ctx.leaf.name}:{ctx.leaf_port.name}"


class NicLink(Check):
    name, description = "nic.link", "NIC link up at the planned speed"

    def test(self, ctx: LinkContext) -> list[Result]:
        p = _port(ctx.host.second or ctx.host.first, ctx.nic.netdev)
        if p is None or p.oper_up is None:
            return [self.result(ctx, self.nic_item(ctx), None, "up", None, ctx.host.error or "no link state")]
        ok = bool(p.oper_up) and (p.speed in (None, ctx.nic.speed))
        return [self.result(ctx, self.nic_item(ctx), ok, f"up {ctx.nic.speed // 1000}G",
                            f"{'up' if p.oper_up else 'down'} {(p.speed or 0) // 1000}G",
                            "NIC link down or at the wrong speed" if not ok else "")]


def observed_nic(sample: Sample, netdev: str) -> ObservedNic | None:
    observed = sample.observed
    return (observed.nics or {}).get(netdev) if isinstance(observed, ObservedHost) else None


def observed_port(sample: Sample, port: str) -> ObservedSwitchPort | None:
    observed = sample.observed
    return (observed.ports or {}).get(port) if isinstance(observed, ObservedSwitch) else None


class NicMtu(Check):
    name, description = "nic.mtu", "NIC MTU as planned"

    def test(self, ctx: LinkContext) -> list[Result]:
        nic = observed_nic(ctx.host, ctx.nic.netdev)
        mtu = nic.mtu if nic is not None else None
        if mtu is None:
            return [self.result(ctx, self.nic_item(ctx), None, ctx.nic.mtu, None, ctx.host.error or "MTU not seen")]
        ok = int(mtu) == ctx.nic.mtu
        return [self.result(ctx, self.nic_item(ctx), ok, ctx.nic.mtu, mtu, "" if ok else "MTU mismatch on the NIC")]


class NicRoce(Check):
    name, description = "nic.roce", "NIC RoCE settings (trust, PFC, DSCP map, DCQCN, CNP) match intent"
    FIELDS: ClassVar[tuple[str, ...]] = ("trust", "pfc_priorities", "dscp_to_priority", "cnp_dscp", "cnp_priority")

    def test(self, ctx: LinkContext) -> list[Result]:
        nic = observed_nic(ctx.host, ctx.nic.netdev)
        item = self.nic_item(ctx)
        if not nic or not nic.model_fields_set:
            return [self.result(ctx, item, None, "intent", None, ctx.host.error or "NIC settings not seen")]
        bad = [f for f in self.FIELDS
               if f in nic.model_fields_set and _norm(getattr(nic, f)) != _norm(getattr(ctx.nic, f))]
        lossless = set(ctx.nic.pfc_priorities)
        for part in ("rp_enabled", "np_enabled"):
            seen = getattr(nic.dcqcn, part) if nic.dcqcn is not None else None
            if getattr(ctx.nic.dcqcn, part) and seen is not None and not lossless <= set(seen):
                bad.append(f"dcqcn.{part}")
        if not bad:
            return [self.result(ctx, item, True, "intent", "intent", "")]
        return [self.result(ctx, item, False, "intent", bad,
                            f"NIC lost RoCE settings ({', '.join(bad)}): e.g. DCQCN/trust reset by a driver "
                            "reload, or a reboot without the persisted settings")]


def _norm(value: Any) -> Any:
    """Dicts keyed by strings, lists sorted, all the way down (scalars are not passed down: a DSCP map has 64)."""
    if isinstance(value, dict):
        return {str(k): _norm(v) if isinstance(v, dict | list) else v for k, v in value.items()}
    if isinstance(value, list):
        return sorted(_norm(v) if isinstance(v, dict | list) else v for v in value)
    return value


class LeafPort(Check):
    name, description = "leaf.port", "leaf port up, planned speed and MTU, PFC and ECN on the lossless queue"

    def test(self, ctx: LinkContext) -> list[Result]:
        item = self.port_item(ctx)
        if ctx.switch.counters_only and ctx.switch.error is None:
            return [Result(device=ctx.node, check=self.name, path=item, status="skipped",
                           message="leaf configuration not read: with --counters-from the leaf's counters come "
                                   "from Prometheus, which holds counters only (roceops telemetry streams no port "
                                   "state, speed, MTU, PFC or ECN settings); `roceops audit` or health without "
                                   "--counters-from checks them")]
        p = _port(ctx.switch.second or ctx.switch.first, ctx.leaf_port.name)
        cfg = observed_port(ctx.switch, ctx.leaf_port.name)
        if p is None and cfg is None:
            return [self.result(ctx, item, None, "healthy port", None, ctx.switch.error or "leaf not read")]
        problems = []
        if p is not None and p.oper_up is False:
            problems.append("down")
        if p is not None and p.speed not in (None, ctx.leaf_port.speed):
            problems.append(f"speed {(p.speed or 0) // 1000}G")
        mtu = cfg.mtu if cfg is not None and "mtu" in cfg.model_fields_set else (p.mtu if p else None)
        if mtu is not None and int(mtu) != ctx.leaf_port.mtu:
            problems.append(f"mtu {mtu}")
        if cfg is not None and "pfc_priorities" in cfg.model_fields_set and not set(
                ctx.leaf_port.pfc_priorities) <= set(cfg.pfc_priorities or ()):
            missing = sorted(set(ctx.leaf_port.pfc_priorities) - set(cfg.pfc_priorities or ()))
            problems.append(f"PFC off on priority {missing}")
        queues = _queues_of(ctx.switch, cfg)
        for qid, q in ctx.leaf.qos.queues.items():
            seen = queues.get(qid)
            if q.lossless and q.ecn is not None and seen is not None and "ecn" in seen.model_fields_set \
                    and not seen.ecn:
                problems.append(f"ECN off on queue {qid}")
        ok = not problems
        return [self.result(ctx, item, ok, "up, PFC+ECN on lossless", problems or "ok", ", ".join(problems))]


def _queues_of(switch: Sample, port: ObservedSwitchPort | None) -> dict[int, ObservedQueue]:
    """The queues a port uses: its own where the device keeps queues per port, else the device-wide ones."""
    if port is not None and port.queues is not None:
        return port.queues
    observed = switch.observed
    if isinstance(observed, ObservedSwitch) and observed.qos is not None:
        return observed.qos.queues or {}
    return {}


class _RateCheck(Check):
    """A counter on both ends of the link over the sampling window: a rate per second, or a count in the window.

    Reasons name the value with its unit and the limit; the item (``node:eth0``) is added by the verdict."""

    counter_names: ClassVar[tuple[str, ...]]
    unit: ClassVar[str]  # what is counted, plural: "pause frames"

    def limit(self, ctx: LinkContext, speed: int) -> float:
        raise NotImplementedError

    def counters(self, ctx: LinkContext) -> tuple[str, ...]:
        """The counters this check adds up on both ends of the link."""
        return self.counter_names

    def test(self, ctx: LinkContext) -> list[Result]:
        out = []
        counter_names = self.counters(ctx)
        for sample, port, item, speed in ((ctx.host, ctx.nic.netdev, self.nic_item(ctx), ctx.nic.speed),
                                         (ctx.switch, ctx.leaf_port.name, self.port_item(ctx), ctx.leaf_port.speed)):
            if sample.first is None or sample.second is None or _port(sample.second, port) is None:
                out.append(self.result(ctx, item, None, None, None, sample.error or "counters not sampled"))
                continue
            known = [d for c in counter_names if (d := _delta(sample, port, c)) is not None]
            if not known:
                unread = _unread(sample, port, counter_names)
                if unread:  # the platform has the counter but it could not be read: unknown, never ok
                    out.append(self.result(ctx, item, None, None, None, unread))
                continue  # this platform does not expose the counter: not applicable
            worst = max(d / w for d, w in known)
            total = sum(d for d, _ in known)
            limit = self.limit(ctx, speed)
            ok = worst <= limit if self.per_second else total <= limit
            observed = round(worst, 3) if self.per_second else total
            unit = f"{self.unit}/s" if self.per_second else f"{self.unit} in {sample.window_s:g}s"
            out.append(self.result(ctx, item, ok, f"<= {limit:g} {unit}", f"{observed:g} {unit}",
                                   "" if ok else f"{self.description}: {observed:g} {unit} (limit {limit:g})"))
        return out

    per_second: ClassVar[bool] = True


class PauseStorm(_RateCheck):
    name, description, unit = "counters.pause", "PFC pause-frame rate (storm)", "pause frames"

    def counters(self, ctx: LinkContext) -> tuple[str, ...]:
        # link-level pause too: older mlx5 drivers count only those (no rx_prio*_pause); a port that shows PFC
        # totals only (no per-priority counts) is judged on its totals, an upper bound of the lossless priorities'
        return (*(f"pfc_{d}_{p}" for p in ctx.nic.pfc_priorities for d in ("rx", "tx")), "pause_rx", "pause_tx",
                "pfc_rx_total", "pfc_tx_total")

    def limit(self, ctx: LinkContext, speed: int) -> float:
        return ctx.thresholds.pause_rate_max


class WatchdogEvents(_RateCheck):
    name, description, per_second, unit = "counters.pfcwd", "PFC watchdog storm detections", False, "storms"
    counter_names = ("pfcwd_storms",)

    def limit(self, ctx: LinkContext, speed: int) -> float:
        return ctx.thresholds.watchdog_events_max


class CrcErrors(_RateCheck):
    name, description, unit = "counters.crc", "CRC errors above the BER bound", "CRC errors"
    counter_names = ("crc_errors",)

    def limit(self, ctx: LinkContext, speed: int) -> float:
        return ctx.thresholds.ber_max * speed * 1e6  # errored frames/s allowed at this bit rate


class FecUncorrected(_RateCheck):
    name, description, per_second, unit = "counters.fec", "uncorrectable FEC blocks", False, "blocks"
    counter_names = ("fec_uncorrected",)

    def limit(self, ctx: LinkContext, speed: int) -> float:
        return ctx.thresholds.fec_uncorrected_max


class LinkFlaps(_RateCheck):
    name, description, per_second, unit = "counters.flaps", "link flaps (carrier changes)", False, "carrier changes"
    counter_names = ("carrier_changes",)

    def limit(self, ctx: LinkContext, speed: int) -> float:
        return ctx.thresholds.carrier_changes_max


class Optics(Check):
    name, description = "optics.rx_power", "optics receive power inside thresholds"

    def test(self, ctx: LinkContext) -> list[Result]:
        out = []
        t = ctx.thresholds
        for sample, port, item in ((ctx.host, ctx.nic.netdev, self.nic_item(ctx)),
                                   (ctx.switch, ctx.leaf_port.name, self.port_item(ctx))):
            p = _port(sample.second or sample.first, port)
            if p is None or not p.rx_power_dbm:
                continue  # not every platform exposes DOM; absence is not a failure
            bad = [v for v in p.rx_power_dbm if not t.rx_power_min_dbm <= v <= t.rx_power_max_dbm]
            out.append(self.result(ctx, item, not bad, f"{t.rx_power_min_dbm}..{t.rx_power_max_dbm} dBm",
                                   p.rx_power_dbm, f"optics rx power out of range: {bad} dBm" if bad else ""))
        return out


LINK_CHECKS: tuple[type[Check], ...] = (NicLink, NicMtu, NicRoce, LeafPort, PauseStorm, WatchdogEvents, CrcErrors,
                                        FecUncorrected, LinkFlaps, Optics)
