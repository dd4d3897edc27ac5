"""Reads of a real FRR bgpd for ``lab up --routing``: the personality answers BGP shows from it.

The lab's own small client of FRR's vty socket protocol (command + NUL; the answer ends in NUL NUL NUL and
a status byte), so the simulator stays independent of the product (it never imports roceops.verify).
The socket path comes from the device spec (``extra["bgp_vty"]``), written by ``roceops lab up --routing``.
"""

from __future__ import annotations

import json
import socket
from typing import Any

TIMEOUT_S = 5.0


def bgp_peers(vty_path: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]] | None:
    """(summary header, {peer ip: FRR's peer object}) from ``show bgp ipv4 unicast summary json``; None
    when bgpd does not answer (the personality then reports no BGP, as a box whose bgpd is down)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(TIMEOUT_S)
            s.connect(vty_path)
            s.sendall(b"show bgp ipv4 unicast summary json\0")
            data = b""
            while not (len(data) >= 4 and data[-4:-1] == b"\0\0\0"):
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    if len(data) < 4 or data[-1] != 0:
        return None
    try:
        doc = json.loads(data[:-4].decode(errors="replace") or "{}")
    except ValueError:
        return None
    peers = doc.get("peers", {}) if isinstance(doc, dict) else {}
    return doc, {str(ip): p for ip, p in peers.items() if isinstance(p, dict)}
