"""The switch's IPv6 neighbour table, per port: the MAC of what is cabled there when it sends no LLDP (pure).

Cumulus Linux keeps its neighbours in the kernel and its bash has iproute2, so the room reads
``ip -j -6 neigh show``: a JSON array of ``{"dst", "dev", "lladdr", "state": [...]}`` (iproute2's JSON, as in
vyos/vyos-1x ``src/op_mode/neighbor.py`` @ ec23c669, "Sample output of `ip --json neigh list`"; ``lladdr`` is
absent from FAILED/INCOMPLETE entries). IPv6 because link-local neighbours form on any cable, while a NIC cabled
to the wrong /31 gets no ARP answer and leaves no IPv4 entry.
"""

from __future__ import annotations

from roceops.device.oper import canonical_mac
from roceops.platforms.cumulus.parsers import ParseError
from roceops.util import json_text

NEIGH_JSON = "ip -j -6 neigh show"


def parse_ip_neigh_json(text: str) -> dict[str, list[str]]:
    """``ip -j neigh show`` -> {dev: [MAC aa:bb:cc:dd:ee:ff, ...]} (entries without a MAC left out).

    >>> parse_ip_neigh_json('[{"dst": "fe80::1", "dev": "swp1", "lladdr": "B8:CE:F6:00:00:01", "state": ["STALE"]}]')
    {'swp1': ['b8:ce:f6:00:00:01']}
    """
    try:
        data = json_text.loads(text.strip() or "[]")
    except ValueError:
        raise ParseError(f"{NEIGH_JSON}: not JSON: {text.strip()[:200]}") from None
    if not isinstance(data, list):
        raise ParseError(f"{NEIGH_JSON}: expected a JSON array")
    out: dict[str, list[str]] = {}
    for entry in data:
        if not isinstance(entry, dict):
            continue
        mac = canonical_mac(str(entry.get("lladdr", "")))
        dev = str(entry.get("dev", ""))
        if mac is not None and dev and mac not in out.setdefault(dev, []):
            out[dev].append(mac)
    return out
