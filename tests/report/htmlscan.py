"""Read back what an HTML report says, with the standard library's parser (the browser tests use Chromium)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# any address a page could fetch from: a scheme://, a protocol-relative //host, or a url(...) that is not data:
EXTERNAL = re.compile(r"""(?i)(?:\b(?:https?|ftp|wss?):)?//[a-z0-9.-]+\.[a-z]{2,}|url\(\s*['"]?(?!data:)[^)'"]""")
XMLNS = "http://www.w3.org/2000/svg"  # the SVG namespace is a name, never fetched


class Elements(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def elements(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = Elements()
    parser.feed(html)
    return parser.tags


def device_status(html: str) -> dict[str, str]:
    """``data-device`` -> ``data-status`` of the map's device elements (each device must appear once)."""
    out: dict[str, str] = {}
    for _, attrs in elements(html):
        if "data-device" in attrs and "dev" in attrs.get("class", "").split():
            assert attrs["data-device"] not in out, f"{attrs['data-device']} drawn twice"
            out[attrs["data-device"]] = attrs.get("data-status", "")
    return out


def external_references(html: str) -> list[str]:
    return [m.group(0) for m in EXTERNAL.finditer(html.replace(XMLNS, ""))]
