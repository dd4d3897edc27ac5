"""The fabric's map data (:class:`~roceops.report.fabric_map.FabricMap`) -> geometry of the map (no SVG text
here; ``svg.py`` draws what this places).

Tiers are rows (core, spine, leaf, host, top to bottom). Small fabrics get one map with every device; leaves
and hosts sit in one column per SU, a leaf per rail (planes as sub-rows), hosts under their SU's leaves with one
cable bundle per leaf. Large fabrics get an overview of groups (an SU, a spine pod or plane, a core group) with
the cables between them, and one detail map per group that the page shows collapsed.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from roceops.report.fabric_map import FabricMap, MapDevice

BOX_W, BOX_H, GAP, PAD, ROW_GAP, LABEL_W = 112, 30, 10, 14, 70, 64
TILE_W, TILE_H = 120, 46
FULL_MAP_MAX = 400  # devices on one map; above, the overview of groups plus one collapsed map per group
PAIR_LINES_MAX = 64  # switch pairs drawn one line each; above, one bundle per pair of groups


@dataclass(frozen=True, slots=True)
class Box:
    name: str
    tier: str
    group: str
    x: float
    y: float
    caption: str  # second line: rail/plane, or the group


@dataclass(frozen=True, slots=True)
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    cables: int
    tier: str
    label: bool  # show the cable count beside the line
    bundle: bool = False  # one line for many cables between two groups (labelled "N cables", not "xN")


@dataclass(frozen=True, slots=True)
class Frame:
    label: str
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True, slots=True)
class Tile:
    group: str
    label: str
    tier: str
    x: float
    y: float
    members: tuple[str, ...]


@dataclass
class Drawing:
    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    tiles: list[Tile] = field(default_factory=list)
    rows: list[tuple[str, float]] = field(default_factory=list)  # tier label and its y


def tier_of(device: MapDevice) -> str:
    return device.role


def group_of(device: MapDevice) -> str:
    """The collapsible group a device belongs to: its SU, its spine pod (or plane), its core group."""
    if device.role in ("host", "leaf"):
        return f"su{device.su}"
    if device.role == "spine":
        return f"pod{device.pod}" if device.pod is not None else f"spines-plane{device.plane}"
    return f"cores-group{device.group}" if device.group is not None else f"cores-plane{device.plane}"


def group_label(group: str) -> str:
    """``su3`` -> ``SU 3``; ``pod2`` -> ``spine pod 2``; ``cores-group4`` -> ``core group 4``."""
    for prefix, text in (("su", "SU "), ("pod", "spine pod "), ("spines-plane", "spines plane "),
                         ("cores-group", "core group "), ("cores-plane", "cores plane ")):
        if group.startswith(prefix) and group[len(prefix):].isdigit():
            return text + group[len(prefix):]
    return group


def _caption(device: MapDevice, planes: int) -> str:
    if device.role == "host":
        return f"SU {device.su}"
    if device.role == "leaf":
        return f"rail {device.rail}" + (f" · plane {device.plane}" if planes > 1 else "")
    return f"plane {device.plane}" if planes > 1 else ""


def _by_group(devices: Iterable[MapDevice]) -> dict[str, list[MapDevice]]:
    out: dict[str, list[MapDevice]] = defaultdict(list)
    for d in devices:
        out[group_of(d)].append(d)
    return dict(out)


def _row_of_boxes(devices: list[MapDevice], x0: float, y0: float, width: float, planes: int,
                  boxes: list[Box]) -> float:
    """Place ``devices`` left to right from (x0, y0), centred, wrapping at ``width``; return the height used."""
    per_line = max(1, int((width + GAP) // (BOX_W + GAP)))
    x0 += max(0.0, (width - min(per_line, len(devices)) * (BOX_W + GAP) + GAP) / 2)
    for i, d in enumerate(devices):
        boxes.append(Box(d.name, tier_of(d), group_of(d), x0 + (i % per_line) * (BOX_W + GAP),
                         y0 + (i // per_line) * (BOX_H + GAP), _caption(d, planes)))
    lines = math.ceil(len(devices) / per_line) if devices else 0
    return lines * (BOX_H + GAP) - GAP if lines else 0


def _su_column(leaves: list[MapDevice], hosts: list[MapDevice], x0: float, leaf_y: float, host_y: float, planes: int,
               d: Drawing) -> None:
    """One SU: a leaf per rail (a sub-row per plane), its hosts in a grid below, one bundle per leaf."""
    rails = sorted({s.rail or 0 for s in leaves})
    plane_ids = sorted({s.plane for s in leaves})
    for s in leaves:
        x = x0 + PAD + rails.index(s.rail or 0) * (BOX_W + GAP)
        y = leaf_y + plane_ids.index(s.plane) * (BOX_H + GAP)
        d.boxes.append(Box(s.name, "leaf", group_of(s), x, y, _caption(s, planes)))
    cols = max(len(rails), 1)
    for i, h in enumerate(hosts):
        d.boxes.append(Box(h.name, "host", group_of(h), x0 + PAD + (i % cols) * (BOX_W + GAP),
                           host_y + (i // cols) * (BOX_H + GAP), _caption(h, planes)))


def _su_width(leaves: list[MapDevice]) -> float:
    return 2 * PAD + max(len({s.rail for s in leaves}), 1) * (BOX_W + GAP) - GAP


def full_map(fabric: FabricMap, devices: list[MapDevice] | None = None) -> Drawing:
    """Every device of ``devices`` (default: the fabric) on one map, with the cables between them."""
    devices = fabric.devices if devices is None else devices
    planes = fabric.planes
    upper = {t: [d for d in devices if d.role == t] for t in ("core", "spine")}
    leaves = [d for d in devices if d.role == "leaf"]
    hosts = [d for d in devices if d.role == "host"]
    sus = sorted({s.su for s in leaves if s.su is not None} | {h.su for h in hosts if h.su is not None})
    leaves_of = {su: [s for s in leaves if s.su == su] for su in sus}
    hosts_of = {su: [h for h in hosts if h.su == su] for su in sus}
    widths = {su: _su_width(leaves_of[su]) for su in sus}
    width = max(sum(widths.values()) + GAP * max(len(sus) - 1, 0), 3 * (BOX_W + GAP)) + LABEL_W
    d = Drawing(width=width + PAD, height=0)
    y: float = PAD
    for tier, switches in upper.items():
        if not switches:
            continue
        d.rows.append((tier, y))
        groups = _by_group(switches)
        for group, members in groups.items():
            label = group_label(group) if len(groups) > 1 else ""
            top = y + (16 if label else 0)
            used = _row_of_boxes(members, LABEL_W + PAD, top, width - LABEL_W - 2 * PAD, planes, d.boxes)
            if label:
                d.frames.append(Frame(label, LABEL_W, y - 4, width - LABEL_W, used + 26))
            y = top + used + GAP + (12 if label else 0)
        y += ROW_GAP
    leaf_rows = max((len({s.plane for s in leaves_of[su]}) for su in sus), default=0)
    leaf_y, x = y + 18, float(LABEL_W)
    host_y = leaf_y + leaf_rows * (BOX_H + GAP) + ROW_GAP
    host_h = 0.0
    for su in sus:
        _su_column(leaves_of[su], hosts_of[su], x, leaf_y, host_y, planes, d)
        rows = math.ceil(len(hosts_of[su]) / max(len({s.rail for s in leaves_of[su]}), 1))
        host_h = max(host_h, rows * (BOX_H + GAP))
        d.frames.append(Frame(f"SU {su}", x, y, widths[su], host_y + rows * (BOX_H + GAP) + PAD - y))
        x += widths[su] + GAP
    if sus:
        d.rows += [("leaf", leaf_y), ("host", host_y)]
    d.height = host_y + host_h + 2 * PAD if sus else y
    d.edges = _edges(fabric, {b.name: b for b in d.boxes}, host_y)
    return d


def _edges(fabric: FabricMap, boxes: dict[str, Box], host_y: float) -> list[Edge]:
    """Leaf -> its hosts: one bundle per leaf. Between switch tiers: a line per pair of switches, or per pair of
    groups when there are more than PAIR_LINES_MAX pairs."""
    to_hosts: Counter[str] = Counter()
    pairs: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    # each cable once, from its lower end (a per-device index: a group's map never walks the whole fabric)
    for link in (link for name in boxes for link in fabric.links_of(name) if link.a == name):
        a, b = link.a, link.b
        if b not in boxes:
            continue
        if link.tier == "host-leaf":
            to_hosts[b] += 1
        else:
            pairs[link.tier][(a, b)] += 1
    out = [Edge(boxes[leaf].x + BOX_W / 2, boxes[leaf].y + BOX_H, boxes[leaf].x + BOX_W / 2, host_y - 2, n,
                "host-leaf", True, True) for leaf, n in to_hosts.items()]
    for tier, counts in pairs.items():
        if len(counts) > PAIR_LINES_MAX:
            out += _group_bundles(tier, counts, boxes)
        else:
            out += [Edge(boxes[a].x + BOX_W / 2, boxes[a].y, boxes[b].x + BOX_W / 2, boxes[b].y + BOX_H, n, tier,
                         n > 1) for (a, b), n in counts.items()]
    return out


def _group_bundles(tier: str, counts: Counter[tuple[str, str]], boxes: dict[str, Box]) -> list[Edge]:
    bundles: Counter[tuple[str, str]] = Counter()
    for (a, b), n in counts.items():
        bundles[(boxes[a].group, boxes[b].group)] += n

    def centre(group: str, top: bool) -> tuple[float, float]:
        members = [b for b in boxes.values() if b.group == group]
        xs = [b.x for b in members]
        y = min(b.y for b in members) if top else max(b.y for b in members) + BOX_H
        return (min(xs) + max(xs) + BOX_W) / 2, y

    out = []
    for (ga, gb), n in bundles.items():
        (x1, y1), (x2, y2) = centre(ga, True), centre(gb, False)
        out.append(Edge(x1, y1, x2, y2, n, tier, True, True))
    return out


def overview(fabric: FabricMap) -> Drawing:
    """One tile per group (core groups, spine pods, SUs) in tier rows, wrapped, with the cables between groups."""
    groups = _by_group(fabric.devices)
    per_tier: dict[str, list[str]] = defaultdict(list)
    for group, devs in groups.items():
        per_tier["su" if group.startswith("su") else tier_of(devs[0])].append(group)
    per_line = 16
    width = LABEL_W + PAD + per_line * (TILE_W + GAP)
    d = Drawing(width=width, height=0)
    y: float = PAD
    where: dict[str, Tile] = {}
    for tier in ("core", "spine", "su"):
        names = per_tier.get(tier, [])
        if not names:
            continue
        d.rows.append(("SUs" if tier == "su" else tier, y))
        for i, g in enumerate(names):
            tile = Tile(g, group_label(g), tier, LABEL_W + PAD + (i % per_line) * (TILE_W + GAP),
                        y + (i // per_line) * (TILE_H + GAP), tuple(x.name for x in groups[g]))
            d.tiles.append(tile)
            where[g] = tile
        y += math.ceil(len(names) / per_line) * (TILE_H + GAP) + ROW_GAP
    d.height = y - ROW_GAP + PAD
    group_by_device = {dev.name: g for g, devs in groups.items() for dev in devs}
    bundles: Counter[tuple[str, str, str]] = Counter()
    for link in fabric.links:
        if link.tier != "host-leaf":
            bundles[(group_by_device[link.a], group_by_device[link.b], link.tier)] += 1
    per_tier_count = Counter(tier for _, _, tier in bundles)
    uplinks: Counter[tuple[str, str]] = Counter()
    bus: dict[str, tuple[float, float, float]] = {}  # tier -> y of the bus, its left and right end
    for (ga, gb, tier), n in bundles.items():
        a, b = where[ga], where[gb]
        if per_tier_count[tier] <= PAIR_LINES_MAX:
            d.edges.append(Edge(a.x + TILE_W / 2, a.y, b.x + TILE_W / 2, b.y + TILE_H, n, tier, False))
            continue
        # too many group pairs to follow: each lower group gets one riser to a bus under the upper row
        uplinks[(ga, tier)] += n
        y, left, right = bus.get(tier, (0.0, math.inf, 0.0))
        bus[tier] = (max(y, b.y + TILE_H + 12), min(left, b.x + TILE_W / 2), max(right, b.x + TILE_W / 2))
    for (ga, tier), n in uplinks.items():
        a = where[ga]
        d.edges.append(Edge(a.x + TILE_W / 2, a.y, a.x + TILE_W / 2, bus[tier][0], n, tier, False))
    for tier, (y, left, right) in bus.items():
        d.edges.append(Edge(left, y, right, y, sum(n for (_, t), n in uplinks.items() if t == tier), tier, False))
    return d
