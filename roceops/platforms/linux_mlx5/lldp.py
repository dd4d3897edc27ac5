"""What each host NIC hears over LLDP, from lldpd's client: ``lldpcli -f json show neighbors``.

Format (lldpd/lldpd ``src/client/json_writer.c`` @ 06987a24, ``json_element_cleanup``; example in lldpd's
``tests/integration/test_lldpcli.py`` @ 4c8e6e37): ``{"lldp": {"interface": ...}}`` where ``interface`` is
``{"eth0": {...}}`` for one neighbour and ``[{"eth0": {...}}, {"eth1": {...}}]`` for several (an array of one
element is collapsed, an object with a ``name`` is re-keyed by it). Per interface: ``chassis`` keyed by the
neighbour's SysName (``{"id": ...}`` alone when it sends none) and ``port`` with ``id`` {``type``, ``value``}
and ``descr``. The neighbour's port is the PortID when its subtype is ``ifname`` or ``local`` (what switches
send), else the PortDescr (Linux lldpd sends the MAC as PortID and the interface name as PortDescr).
"""

from __future__ import annotations

import json
from typing import Any

from roceops.util import json_text

CMD_LLDP = "lldpcli -f json show neighbors"


class LldpParseError(ValueError):
    pass


def _interfaces(tree: Any) -> list[tuple[str, dict[str, Any]]]:
    lldp = tree.get("lldp") if isinstance(tree, dict) else None
    if lldp is None:
        raise LldpParseError("no 'lldp' object")
    raw = lldp.get("interface", {}) if isinstance(lldp, dict) else {}
    items = raw if isinstance(raw, list) else [raw]
    return [(name, body) for item in items if isinstance(item, dict)
            for name, body in item.items() if isinstance(body, dict)]


def _port(port: dict[str, Any]) -> str | None:
    pid = port.get("id")
    if isinstance(pid, dict) and pid.get("type") in ("ifname", "local") and pid.get("value"):
        return str(pid["value"])
    descr = port.get("descr")
    if isinstance(descr, str) and descr:
        return descr
    return str(pid["value"]) if isinstance(pid, dict) and pid.get("value") else None


def parse_lldpcli_json(text: str) -> dict[str, tuple[str, str]]:
    """Local interface -> (neighbour SysName, neighbour port); interfaces whose neighbour has no SysName or port
    are left out.

    >>> parse_lldpcli_json('{"lldp": {"interface": {"eth0": {"chassis": {"leaf1": {}},'
    ...                    ' "port": {"id": {"type": "ifname", "value": "Ethernet0"}}}}}}')
    {'eth0': ('leaf1', 'Ethernet0')}
    >>> parse_lldpcli_json('{"lldp": {}}')
    {}
    """
    try:
        tree = json_text.loads(text)
    except json.JSONDecodeError as exc:
        raise LldpParseError(f"not JSON ({exc.msg} at line {exc.lineno}): {text.strip()[:80]!r}") from None
    out: dict[str, tuple[str, str]] = {}
    for local, body in _interfaces(tree):
        chassis = body.get("chassis")
        names = [k for k in chassis if k != "id"] if isinstance(chassis, dict) else []
        port = _port(body["port"]) if isinstance(body.get("port"), dict) else None
        if names and port:
            out[local] = (names[0], port)
    return out
