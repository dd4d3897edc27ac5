"""Drawing -> SVG text. Every device is one ``<g class="dev">`` with ``data-device`` and (in a report)
``data-status``; colour, an icon and the outline style all say the status, and the name is real text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape
from importlib.resources import files

from roceops.report.html.layout import BOX_H, BOX_W, TILE_H, TILE_W, Drawing, Edge, Tile
from roceops.report.html.model import Status, plural, worst

# one 16x16 glyph per status, drawn in currentColor (so it follows the status colour and stays visible in print)
ICONS: dict[str, str] = {
    "ok": '<path d="M3 8.5l3.2 3.2L13 4.8" fill="none" stroke-width="2.2"/>',
    "drift": '<path d="M8 1.8L15 14.2H1z" fill="none" stroke-width="1.6"/><path d="M8 6v4.2" stroke-width="2"/>'
             '<circle cx="8" cy="12.3" r="1.1" stroke="none"/>',
    "fail": '<path d="M3.5 3.5l9 9M12.5 3.5l-9 9" stroke-width="2.4"/>',
    "drain": '<circle cx="8" cy="8" r="6.2" fill="none" stroke-width="1.8"/><path d="M4.4 8h7.2" stroke-width="2.4"/>',
    "unreachable": '<circle cx="8" cy="8" r="6.2" fill="none" stroke-width="1.6" stroke-dasharray="2.4 1.8"/>'
                   '<path d="M3.6 12.4l8.8-8.8" stroke-width="2"/>',
    "unknown": '<path d="M5.4 6.2a2.7 2.7 0 1 1 3.9 2.4c-.8.4-1.2 1-1.2 1.8v.6" fill="none" stroke-width="1.9"/>'
               '<circle cx="8.1" cy="13.3" r="1.1" stroke="none"/>',
}


def icon_defs() -> str:
    """The status glyphs as ``<symbol id="i-<status>">``, defined once per page (or per standalone SVG)."""
    body = "".join(f'<symbol id="i-{s}" viewBox="0 0 16 16">{g}</symbol>' for s, g in ICONS.items())
    return f'<defs>{body}</defs>'


def map_css() -> str:
    """The map's stylesheet (shared by the page and the standalone SVG)."""
    return files("roceops.report.html").joinpath("static/map.css").read_text()


def _edge(e: Edge) -> str:
    width = min(1 + math.log2(e.cables), 6)
    out = (f'<line class="e e-{e.tier}" x1="{e.x1:.0f}" y1="{e.y1:.0f}" x2="{e.x2:.0f}" y2="{e.y2:.0f}" '
           f'stroke-width="{width:.1f}"><title>{e.cables} cables ({e.tier})</title></line>')
    if e.label:
        # near the lower end, where a switch's lines have spread apart (their midpoints often meet)
        t = 0.5 if e.bundle else 0.25
        x, y = e.x1 + (e.x2 - e.x1) * t + 4, e.y1 + (e.y2 - e.y1) * t + 4
        text = f"{e.cables} cables" if e.bundle else f"&#215;{e.cables}"  # a multiplication sign
        out += f'<text class="cnt" x="{x:.0f}" y="{y:.0f}">{text}</text>'
    return out


def _status_word(status: Status | None, in_scope: bool) -> str:
    return "planned" if status is None else status if in_scope else "not checked"


def _device(box_name: str, tier: str, caption: str, x: float, y: float, status: Status | None, in_scope: bool,
            checks: str, findings: int) -> str:
    name = escape(box_name)
    word = _status_word(status, in_scope)
    attrs = f' data-status="{status if in_scope else "unknown"}"' if status is not None else ""
    attrs += "" if in_scope else ' data-scope="out"'
    count = f", {plural(findings, 'finding')}" if findings else ""
    icon = (f'<use href="#i-{status if in_scope else "unknown"}" x="{x + 5:.0f}" y="{y + 7:.0f}" width="16" '
            f'height="16"/>' if status is not None else "")
    tx = x + (25 if status is not None else 8)
    sub = f'<text class="cap" x="{tx:.0f}" y="{y + 26:.0f}">{escape(caption)}</text>' if caption else ""
    return (f'<g class="dev t-{tier}" data-device="{name}"{attrs} data-checks="{escape(checks)}" tabindex="0" '
            f'role="button" aria-label="{name}: {word}{count}"><title>{name}: {word}{count}</title>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" height="{BOX_H}" rx="4"/>{icon}'
            f'<text x="{tx:.0f}" y="{y + (14 if caption else 19):.0f}">{name}</text>{sub}</g>')


def _tile(t: Tile, status: Mapping[str, Status] | None, scope: set[str] | None) -> str:
    members = [m for m in t.members if scope is None or m in scope]
    st = worst(status.get(m, "ok") for m in members) if status is not None else None
    bad = sum(1 for m in members if status is not None and status.get(m, "ok") != "ok")
    line = f"{len(t.members)} devices" + (f" · {bad} not ok" if bad else "")
    if status is not None and not members:
        st, line = "unknown", f"{len(t.members)} devices · not checked"
    label = escape(t.label)
    attrs = f' data-status="{st}"' if st is not None else ""
    icon = f'<use href="#i-{st}" x="{t.x + 6:.0f}" y="{t.y + 8:.0f}" width="16" height="16"/>' if st else ""
    return (f'<a class="tile" href="#g-{t.group}" data-group="{t.group}"{attrs} aria-label="{label}: {st or ""} '
            f'{line}"><title>{label}: {line}</title><rect x="{t.x:.0f}" y="{t.y:.0f}" width="{TILE_W}" '
            f'height="{TILE_H}" rx="6"/>{icon}<text x="{t.x + 27:.0f}" y="{t.y + 20:.0f}">{label}</text>'
            f'<text class="cap" x="{t.x + 8:.0f}" y="{t.y + 37:.0f}">{line}</text></a>')


def draw(d: Drawing, status: Mapping[str, Status] | None = None, *, scope: set[str] | None = None,
         checks: Mapping[str, str] | None = None, findings: Mapping[str, int] | None = None,
         title: str = "", standalone: bool = False) -> str:
    """The SVG of ``d``. ``status`` None: a plan (no status); otherwise devices outside ``scope`` are drawn as
    not checked. ``standalone`` adds the XML namespace, the icons and the stylesheet."""
    parts = [f'<svg class="map" viewBox="0 0 {d.width:.0f} {d.height:.0f}" width="{d.width:.0f}" '
             f'height="{d.height:.0f}" role="group" aria-label="{escape(title or "fabric map")}"'
             + (' xmlns="http://www.w3.org/2000/svg">' if standalone else ">")]
    if standalone:
        parts += [f"<style>{map_css()}</style>", icon_defs()]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts += [f'<text class="row" x="6" y="{y + 19:.0f}">{escape(label)}</text>' for label, y in d.rows]
    parts += [f'<g class="frame"><rect x="{f.x:.0f}" y="{f.y:.0f}" width="{f.w:.0f}" height="{f.h:.0f}" rx="8"/>'
              f'<text x="{f.x + 8:.0f}" y="{f.y + 12:.0f}">{escape(f.label)}</text></g>' for f in d.frames]
    parts += [_edge(e) for e in d.edges]
    in_scope = scope if scope is not None else set()
    for b in d.boxes:
        st = None if status is None else status.get(b.name, "ok")
        parts.append(_device(b.name, b.tier, b.caption, b.x, b.y, st, status is None or b.name in in_scope,
                             (checks or {}).get(b.name, ""), (findings or {}).get(b.name, 0)))
    parts += [_tile(t, status, scope) for t in d.tiles]
    parts.append("</svg>")
    return "".join(parts)
