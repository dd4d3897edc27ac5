"""A run's results (:class:`~roceops.report.result.Result`) and metadata (:class:`~roceops.report.result.Run`)
-> the map's Items and RunMeta: what each result's status means for its device depends on the command that ran
(an audit finding is drift, a health failure drains the node, a verify finding fails the device)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from roceops.report.fabric_map import FabricMap
from roceops.report.html.model import Item, RunMeta, Status, plural
from roceops.report.result import Result, Run

# Result.status -> the device's status on the map, per command (ok and skipped results are not drawn)
_STATUS: dict[str, dict[str, Status]] = {
    "audit": {"fail": "drift", "warn": "drift", "error": "unreachable", "unknown": "unknown"},
    "health": {"fail": "drain", "warn": "ok", "error": "unknown", "unknown": "unknown"},  # a warning never drains
    "verify routing": {"fail": "fail", "warn": "fail", "error": "fail", "unknown": "unknown"},
}
_ANY: dict[str, Status] = {"fail": "fail", "warn": "drift", "error": "unreachable", "unknown": "unknown"}
# audit: a device that answered but could not be read is unknown, not unreachable
_READ_BUT_NOT_UNDERSTOOD = ("device.unparsable", "device.failed")


def started_at(seconds: float) -> str:
    """When a run that took ``seconds`` and just ended started, ISO 8601 UTC to the second."""
    return (datetime.now(UTC) - timedelta(seconds=seconds)).replace(microsecond=0).isoformat()


def _status(r: Result, command: str) -> Status | None:
    if command == "audit" and r.status == "error" and r.check in _READ_BUT_NOT_UNDERSTOOD:
        return "unknown"
    return _STATUS.get(command, _ANY).get(r.status)


def _item(r: Result, status: Status, device: str | None = None, message: str | None = None) -> Item:
    return Item(device=device or r.device, check=r.check, status=status, path=r.path, expected=r.expected,
                observed=r.observed, severity=r.status,
                message=r.message if message is None else message, hint=r.hint)


def session_peer(fabric: FabricMap, r: Result) -> str | None:
    """The far end of a ``bgp.session`` result (its path is ``bgp[<peer address>]``)."""
    if r.check != "bgp.session" or not r.path.startswith("bgp["):
        return None
    ip = r.path[4:-1]
    for link in fabric.links_of(r.device):
        for end, addr in ((link.a, link.a_ip), (link.b, link.b_ip)):
            if end != r.device and addr and addr.split("/")[0] == ip:
                return end
    return None


def items_of(results: Sequence[Result], run: Run, fabric: FabricMap) -> list[Item]:
    """One Item per result that is not ok or skipped; a broken session (verify routing) also marks its far end."""
    out: list[Item] = []
    for r in results:
        status = _status(r, run.command)
        if status is None:
            continue
        out.append(_item(r, status))
        if run.command == "verify routing" and (peer := session_peer(fabric, r)) is not None:
            out.append(_item(r, status, device=peer, message=f"{r.message} (far end of {r.device})"))
    return out


def _scope(run: Run, fabric: FabricMap) -> tuple[str, ...]:
    """The devices the run checked: health checks its nodes and their leaves' ports."""
    leaves = [leaf for n in run.devices if n in fabric.by_name for leaf in fabric.by_name[n].leaves]
    return tuple(dict.fromkeys([*run.devices, *(leaves if run.command == "health" else [])]))


def _verdict(run: Run, items: list[Item]) -> str:
    bad = {i.device for i in items if i.status != "ok"}
    if run.command == "health":
        drain = {i.device for i in items if i.status == "drain"}
        unknown = {i.device for i in items if i.status == "unknown"} - drain
        return f"{len(drain)} to drain, {len(unknown)} unknown of {len(run.devices)} nodes"
    if run.command == "audit":
        not_read = {i.device for i in items if i.status in ("unreachable", "unknown")}
        return {0: "no drift", 1: f"drift on {plural(len(bad), 'device')}"}.get(
            run.exit_code, f"{plural(len(not_read), 'device')} not audited")
    if run.exit_code == 0:
        return "routing verified" if run.command == "verify routing" else "no findings"
    return f"{plural(len(items), 'finding')} on {plural(len(bad), 'device')}"


def meta_of(run: Run, items: list[Item], fabric: FabricMap, command_line: str) -> RunMeta:
    return RunMeta(kind=run.command, fabric=run.fabric or fabric.name, command=command_line or run.command,
                   started=started_at(run.seconds), seconds=round(run.seconds, 3), exit_code=run.exit_code,
                   verdict=_verdict(run, items), scope=_scope(run, fabric))
