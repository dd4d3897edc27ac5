"""WCAG 2.1 AA contrast of the report's colours, read from its stylesheets: text >= 4.5:1 on its background,
status icons and outlines >= 3:1 on their box (1.4.3, 1.4.11)."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest

from roceops.report.html.model import STATUSES

STATIC = files("roceops.report.html").joinpath("static")
MAP_CSS = STATIC.joinpath("map.css").read_text()
PAGE_CSS = STATIC.joinpath("page.css").read_text()


def luminance(hex_colour: str) -> float:
    """Relative luminance (WCAG 2.1) of ``#rgb`` or ``#rrggbb``."""
    h = hex_colour.lstrip("#")
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def rule(css: str, selector: str, prop: str) -> str:
    block = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert block, f"no rule for {selector}"
    value = re.search(rf"(?:^|;|\s){prop}\s*:\s*(#[0-9a-fA-F]{{3,6}})", block.group(1))
    assert value, f"{selector} sets no {prop}"
    return value.group(1)


def test_contrast_formula_matches_wcag_examples() -> None:
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#767676", "#fff") == pytest.approx(4.54, abs=0.01)  # the lightest grey AA allows on white


@pytest.mark.parametrize("status", STATUSES)
def test_each_status_box_keeps_text_icon_and_outline_readable(status: str) -> None:
    fill = rule(MAP_CSS, f'.map [data-status="{status}"] > rect', "fill")
    stroke = rule(MAP_CSS, f'.map [data-status="{status}"] > rect', "stroke")
    icon = rule(MAP_CSS, f'.map [data-status="{status}"]', "color")
    name, caption = rule(MAP_CSS, ".map text", "fill"), rule(MAP_CSS, ".map text.cap", "fill")
    assert contrast(name, fill) >= 4.5 and contrast(caption, fill) >= 4.5
    assert contrast(icon, fill) >= 3 and contrast(stroke, fill) >= 3
    assert contrast(icon, "#fff") >= 4.5  # the same colour marks the status word in the legend and tables


def test_page_text_colours_on_white_and_on_the_header() -> None:
    assert contrast(rule(PAGE_CSS, ":root", "--muted"), "#fff") >= 4.5
    assert contrast(rule(MAP_CSS, ".map [data-scope=\"out\"] text", "fill"), "#fff") >= 4.5
    assert contrast(rule(MAP_CSS, ".map .frame text", "fill"), rule(MAP_CSS, ".map .frame rect", "fill")) >= 4.5
    assert contrast("#fff", rule(PAGE_CSS, "header", "background")) >= 4.5
