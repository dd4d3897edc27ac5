"""One result type for every check roceops runs (audit, health, verify), and the metadata of the run that made
them. Reporters (:mod:`roceops.report.formats`) read only a list of :class:`Result` and one :class:`Run`; sharded
runs merge results, never reports.

>>> r = Result(check="config.drift", device="leaf1", path="ports[Ethernet0].mtu", expected=9216, observed=1500)
>>> r.status, r.departs, r.not_checked
('fail', True, False)
>>> Result(check="device.unreachable", device="leaf2", status="error").not_checked
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from roceops.report.fabric_map import FabricMap

# ok: checked and as expected; fail: checked and departs (a finding); warn: departs, reported but not failing;
# error: the device could not be checked at all (unreachable, timed out, unparsable, failed); unknown: the value
# could not be read (never read as ok); skipped: not run, why in the message
Status = Literal["ok", "fail", "warn", "error", "unknown", "skipped"]
Seen = Literal["new", "persisting"]


class Result(BaseModel):
    """What one check found on one device at one path (``""``: the whole device)."""

    model_config = ConfigDict(extra="forbid")

    check: str  # e.g. config.drift, pfc.mismatch, lldp.neighbor, device.unreachable, link.pfc_storm
    device: str
    path: str = ""  # e.g. ports[Ethernet0].pfc_priorities, eth0, leaf-su1-r1:Ethernet0
    status: Status = "fail"
    expected: Any = None
    observed: Any = None
    message: str = ""
    hint: str = ""  # the one-line fix (a roceops command where there is one)
    seen: Seen | None = None  # audit history: first seen in this run, or still open from an earlier one
    context: list[str] = Field(default_factory=list)  # reasons other checks add to this one (audit merge)

    @property
    def key(self) -> tuple[str, str]:
        return (self.device, self.path)

    @property
    def node(self) -> str:
        """Health's word for ``device``: the node whose verdict this result counts toward."""
        return self.device

    @property
    def item(self) -> str:
        """Health's word for ``path``: what was checked for that node (``eth0``, ``leaf-su1-r1:Ethernet0``)."""
        return self.path

    @property
    def departs(self) -> bool:
        """A finding: the device departs from what was expected (fail or warn)."""
        return self.status in ("fail", "warn")

    @property
    def not_checked(self) -> bool:
        """The device could not be checked: never read as "no drift"."""
        return self.status == "error"


class Column(BaseModel):
    """One column of a run's table and Markdown: its header and the Result field it shows (``fix``: the hint, or
    the message where there is no hint; ``path``: ``-`` when empty)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    header: str
    field: Literal["seen", "status", "device", "check", "path", "expected", "observed", "message", "fix"]


class Run(BaseModel):
    """What a reporter knows of the run besides its results: what ran, over which devices, how it ended, and how
    the command shows itself (title, columns, summary lines). Plain data: JSON-serialisable for merged runs."""

    model_config = ConfigDict(extra="forbid")

    command: str  # "audit", "health", "verify routing"
    fabric: str
    devices: list[str]  # every device the run covered, in order (JUnit: one testcase each)
    groups: dict[str, str] = Field(default_factory=dict)  # device -> its group (platform): JUnit classname
    default_group: str = "unknown"
    seconds: float
    exit_code: int
    title: str = ""  # the table's title
    columns: list[Column] = Field(default_factory=list)
    headline: str = ""  # Markdown: the line under the heading
    summary: list[str] = Field(default_factory=list)  # table: lines printed after the table
    sections: dict[str, list[str]] = Field(default_factory=dict)  # Markdown: extra sections (heading -> bullets)
    results_key: str = "results"  # JSON: the key the results are listed under
    document: dict[str, Any] = Field(default_factory=dict)  # JSON: the command's own fields besides the results
    last_success: float | None = None  # Prometheus: carried over when this run did not reach every device
    fabric_map: FabricMap | None = None  # HTML: the fabric's map (report.fabric_map; None: no HTML report)
    invocation: str = ""  # HTML: the command line that started the run, as typed

    def group(self, device: str) -> str:
        return self.groups.get(device, self.default_group)


def columns(*pairs: tuple[str, str]) -> list[Column]:
    """``columns(("device", "device"), ("fix", "fix"))``: a run's columns from (header, field) pairs."""
    return [Column.model_validate({"header": h, "field": f}) for h, f in pairs]


def by_device(results: Sequence[Result]) -> Mapping[str, list[Result]]:
    """Results grouped by device, each device's in the order given."""
    out: dict[str, list[Result]] = {}
    for r in results:
        out.setdefault(r.device, []).append(r)
    return out
