"""The self-contained HTML report (and the topology picture): jinja2 page templates around the SVG from
``svg.py``. Everything is inline (CSS, the small hand-written JS, SVG); a Content-Security-Policy forbids any
request, so the file can be mailed or attached to a ticket and opened offline.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import cache
from html import escape
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from roceops.report.fabric_map import FabricMap, fabric_map
from roceops.report.html import adapters, layout, svg
from roceops.report.html.model import RANK, STATUSES, Item, RunMeta, Status, device_statuses, worst
from roceops.report.result import Result, Run
from roceops.topology.fabric import Fabric

# no fetch of any kind: only the inline style and script of the page itself, and data: images
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def cell(value: Any) -> str:
    """A value as one table cell, whole: strings as they are, anything else as JSON, ``-`` for none.

    >>> cell([3, 4]), cell("on"), cell(None)
    ('[3, 4]', 'on', '-')
    """
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return str(value) if type(value) is int else json.dumps(value, default=str)  # ints are most values: no encoder


@cache
def _env() -> Environment:
    env = Environment(loader=PackageLoader("roceops.report.html", "templates"), undefined=StrictUndefined,
                      autoescape=select_autoescape(default=True, default_for_string=True), trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["cell"] = cell
    return env


@cache
def _static(name: str) -> str:
    return files("roceops.report.html").joinpath(f"static/{name}").read_text()


def _page_assets() -> dict[str, str]:
    return {"css": _static("page.css") + svg.map_css(), "js": _static("report.js"), "icons": svg.icon_defs(),
            "csp": CSP}


def _maps(fabric: FabricMap, status: dict[str, Status] | None, scope: set[str] | None, checks: dict[str, str],
          findings: dict[str, int]) -> dict[str, Any]:
    """One map with every device, or (large fabrics) the overview of groups and one collapsed map per group."""
    devices = fabric.devices
    if len(devices) <= layout.FULL_MAP_MAX:
        return {"full": svg.draw(layout.full_map(fabric), status, scope=scope, checks=checks, findings=findings,
                                 title=f"fabric map of {fabric.name}"), "groups": []}
    by_group: dict[str, list[Any]] = defaultdict(list)
    for d in devices:
        by_group[layout.group_of(d)].append(d)
    groups = []
    for group, members in by_group.items():
        inside = [m.name for m in members if scope is None or m.name in scope]
        st = None if status is None else worst(status.get(m, "ok") for m in inside) if inside else "unknown"
        bad = sum(1 for m in inside if status is not None and status.get(m, "ok") != "ok")
        groups.append({"id": group, "label": layout.group_label(group), "status": st, "devices": len(members),
                       "bad": bad, "svg": svg.draw(layout.full_map(fabric, members), status, scope=scope,
                                                   checks=checks, findings=findings,
                                                   title=layout.group_label(group))})
    return {"full": svg.draw(layout.overview(fabric), status, scope=scope, title="overview: one tile per group"),
            "groups": groups}


def finding_rows(items: list[Item]) -> Markup:
    """The findings table's rows, built here rather than in a template loop: a fabric-wide drift has tens of
    thousands, and this is several times faster than Jinja per row. Every value is escaped (``html.escape``, in C,
    where markupsafe may run as pure Python)."""
    out = []
    for i in items:
        word = i.status if i.status != "ok" else i.severity
        fix = f'<br><span class="fix">fix: <code>{escape(i.hint)}</code></span>' if i.hint else ""
        out.append(f'<tr data-device="{escape(i.device)}" data-check="{escape(i.check)}" data-status="{i.status}">'
                   f'<td class="st"><svg class="ico" aria-hidden="true"><use href="#i-{i.status}"/></svg>'
                   f'{escape(word)}</td><td>{escape(i.device)}</td><td>{escape(i.check)}</td>'
                   f'<td><code>{escape(i.path or "-")}</code></td><td><code>{escape(cell(i.expected))}</code></td>'
                   f'<td><code>{escape(cell(i.observed))}</code></td><td>{escape(i.message)}{fix}</td></tr>')
    return Markup("\n".join(out))


def _summary(items: list[Item], status: dict[str, Status], scope: set[str]) -> dict[str, Any]:
    by_check: dict[tuple[str, str], set[str]] = defaultdict(set)
    counts: Counter[tuple[str, str]] = Counter()
    for i in items:
        counts[(i.check, i.severity)] += 1
        by_check[(i.check, i.severity)].add(i.device)
    rows = [{"check": c, "severity": s, "findings": n, "devices": len(by_check[(c, s)])}
            for (c, s), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    per_status = Counter(status[d] for d in scope if d in status)
    return {"checks": rows, "statuses": [(s, per_status.get(s, 0)) for s in STATUSES]}


def to_html(results: Sequence[Result], run: Run) -> str:
    """The report of one run (audit, health, verify routing, or a merge of shards) as one HTML page, from its
    results and its Run alone: the Run carries the fabric's map (``fabric_map``) and the command line that started
    it (``invocation``, shown as typed). The ``html`` reporter of :data:`roceops.report.formats.REPORTERS`."""
    if run.fabric_map is None:
        raise ValueError("the HTML report draws the fabric's map, and this run carries none (Run.fabric_map)")
    items = adapters.items_of(results, run, run.fabric_map)
    return render_page(items, adapters.meta_of(run, items, run.fabric_map, run.invocation), run.fabric_map)


def with_map(run: Run, fabric: Fabric, command_line: str = "") -> Run:
    """``run`` carrying what its HTML report draws: ``fabric``'s map and the command line that started it."""
    return run.model_copy(update={"fabric_map": fabric_map(fabric), "invocation": command_line})


def render_html(results: Sequence[Result], run: Run, fabric: Fabric, command_line: str = "") -> str:
    """:func:`to_html` of ``run`` with ``fabric``'s map and ``command_line`` (for a caller that holds the Fabric)."""
    return to_html(results, with_map(run, fabric, command_line))


def render_page(results: list[Item], meta: RunMeta, fabric: FabricMap) -> str:
    """The page of ``results`` (already adapted) of the run ``meta``."""
    scope = set(meta.scope)
    status = device_statuses(results, scope)
    checks: dict[str, set[str]] = defaultdict(set)
    findings: Counter[str] = Counter()
    for i in results:
        checks[i.device].add(i.check)
        findings[i.device] += 1
    check_attr = {d: " ".join(sorted(c)) for d, c in checks.items()}
    items = sorted(results, key=lambda i: (-RANK[i.status], i.device, i.check, i.path))
    return _env().get_template("report.html.j2").render(
        meta=meta, items=items, rows=finding_rows(items), summary=_summary(results, status, scope), statuses=STATUSES,
        all_checks=sorted({i.check for i in results}), maps=_maps(fabric, status, scope, check_attr, dict(findings)),
        devices=len(fabric.devices), **_page_assets())


def _cables(fabric: Fabric) -> list[tuple[str, int]]:
    return sorted(Counter(link.tier for link in fabric.links).items())


def topology_svg(fabric: Fabric) -> str:
    """The plan as one standalone SVG (the overview of groups for large fabrics)."""
    devices = sum(1 for _ in fabric.devices())
    drawn = fabric_map(fabric)
    drawing = layout.full_map(drawn) if devices <= layout.FULL_MAP_MAX else layout.overview(drawn)
    cables = ", ".join(f"{tier} {n}" for tier, n in _cables(fabric))
    return svg.draw(drawing, title=f"{fabric.intent.name}: {fabric.tiers}-tier fabric, {devices} devices; "
                                   f"cables {cables}", standalone=True) + "\n"


def topology_html(fabric: Fabric, command: str) -> str:
    """The plan as a page: tier summary, cable counts and the map (collapsed per group for large fabrics)."""
    return _env().get_template("topology.html.j2").render(
        fabric=fabric, command=command, cables=_cables(fabric), maps=_maps(fabric_map(fabric), None, None, {}, {}),
        devices=sum(1 for _ in fabric.devices()), **_page_assets())
