"""Today's audit, health and verify results -> the report's Items and RunMeta (the one place that knows them).

When audit, health and verify share one Result type, these three become one adapter; the renderer stays as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from roceops.audit.engine import AuditResult
from roceops.audit.findings import Finding
from roceops.health.engine import HealthReport
from roceops.health.model import CheckResult
from roceops.report.html.model import Item, RunMeta, Status
from roceops.topology.fabric import Fabric
from roceops.verify.engine import VerifyResult

# audit findings that say a device was not read, and what the map calls them
_NOT_READ: dict[str, Status] = {"device.unreachable": "unreachable", "device.timeout": "unreachable",
                                "device.unparsable": "unknown", "device.failed": "unknown"}
# a health result's status -> what it makes its node (a failure drains; a warning never does)
_HEALTH: dict[str, Status] = {"fail": "drain", "unknown": "unknown", "warn": "ok"}


def started_at(seconds: float) -> str:
    """When a run that took ``seconds`` and just ended started, ISO 8601 UTC to the second."""
    return (datetime.now(UTC) - timedelta(seconds=seconds)).replace(microsecond=0).isoformat()


def _item(f: Finding, status: Status, device: str | None = None, message: str | None = None) -> Item:
    return Item(device=device or f.device, check=f.check, status=status, path=f.path, expected=f.expected,
                observed=f.observed, severity=f.severity, message=f.message if message is None else message,
                hint=f.hint)


def from_audit(result: AuditResult, command: str) -> tuple[list[Item], RunMeta]:
    items = [_item(f, _NOT_READ.get(f.check, "drift")) for f in result.findings]
    verdict = {0: "no drift", 1: f"drift on {len({f.device for f in result.drift})} devices"}.get(
        result.exit_code, f"{len(result.unreachable)} devices not audited")
    return items, RunMeta(kind="audit", fabric=result.fabric, command=command, started=started_at(result.seconds),
                          seconds=round(result.seconds, 3), exit_code=result.exit_code, verdict=verdict,
                          scope=tuple(result.devices))


def _health_item(r: CheckResult) -> Item:
    return Item(device=r.node, check=r.check, status=_HEALTH[r.status], path=r.item, expected=r.expected,
                observed=r.observed, severity="warning" if r.status == "warn" else "error", message=r.message,
                hint="drain the node and fix the item named" if r.status == "fail" else "")


def from_health(report: HealthReport, fabric: Fabric, command: str) -> tuple[list[Item], RunMeta]:
    """Nodes take their verdict (a failure drains, a warning is a note); their leaves are in scope, ok unless
    they could not be read (those results name the node, as its verdict does)."""
    items = [_health_item(r) for r in report.results if r.status in _HEALTH]
    leaves = [nic.leaf for n in report.nodes if n in fabric.by_name for nic in getattr(fabric.by_name[n], "nics", [])]
    drained = sum(1 for v in report.verdicts if v.status == "drain")
    unknown = sum(1 for v in report.verdicts if v.status == "unknown")
    verdict = f"{drained} to drain, {unknown} unknown of {len(report.nodes)} nodes"
    return items, RunMeta(kind="health", fabric=fabric.intent.name, command=command,
                          started=started_at(report.seconds), seconds=round(report.seconds, 3),
                          exit_code=report.exit_code, verdict=verdict,
                          scope=tuple(dict.fromkeys([*report.nodes, *leaves])))


def _session_peer(fabric: Fabric, f: Finding) -> str | None:
    """The far end of a ``bgp.session`` finding (its path is ``bgp[<peer address>]``)."""
    if f.check != "bgp.session" or not f.path.startswith("bgp["):
        return None
    ip = f.path[4:-1]
    for link in fabric.links_of(f.device):
        for end, addr in ((link.a, link.a_ip), (link.b, link.b_ip)):
            if end.device != f.device and addr and addr.split("/")[0] == ip:
                return end.device
    return None


def from_verify(result: VerifyResult, fabric: Fabric, command: str) -> tuple[list[Item], RunMeta]:
    """Every finding fails its device; a broken session fails both its ends (the far end gets a copy)."""
    items: list[Item] = []
    for f in result.findings:
        items.append(_item(f, "fail"))
        if (peer := _session_peer(fabric, f)) is not None:
            items.append(_item(f, "fail", device=peer, message=f"{f.message} (far end of {f.device})"))
    verdict = {0: "routing verified", 1: f"{len(result.findings)} findings"}.get(
        result.exit_code, "some devices could not be built")
    return items, RunMeta(kind="verify routing", fabric=result.fabric, command=command,
                          started=started_at(result.seconds), seconds=round(result.seconds, 3),
                          exit_code=result.exit_code, verdict=verdict, scope=tuple(result.devices))


def affected(items: Iterable[Item]) -> set[str]:
    """Devices some item makes worse than ok."""
    return {i.device for i in items if i.status != "ok"}
