"""The HTML report with a fabric map, and the topology picture (see ``render.py``)."""

from roceops.report.html.model import Item, RunMeta
from roceops.report.html.render import render_html, to_html, topology_html, topology_svg, with_map

__all__ = ["Item", "RunMeta", "render_html", "to_html", "topology_html", "topology_svg", "with_map"]
