"""Parsers for SONiC's control-plane and identity shows: ``show lldp table``, ``show ndp``, ``show ip bgp summary``,
``show version`` (pure functions: text in, plain data out; tested on sonic-utilities' outputs)."""

from __future__ import annotations

import re
from typing import Any

from roceops.device.oper import canonical_mac
from roceops.platforms.sonic.parsers import _RULE, ParseError, _table, counter

__all__ = ["show_ip_bgp_summary", "show_lldp_table", "show_ndp", "show_version"]


def show_lldp_table(text: str) -> dict[str, dict[str, str]]:
    """``show lldp table`` -> {local port: {device, port, capability, port_descr}} (first neighbour per port)."""
    t = _table(text, "LocalPort", "show lldp table")
    out: dict[str, dict[str, str]] = {}
    for r in t.rows:
        out.setdefault(r["LocalPort"], {"device": r.get("RemoteDevice", ""), "port": r.get("RemotePortID", ""),
                                        "capability": r.get("Capability", ""),
                                        "port_descr": r.get("RemotePortDescr", "")})
    return out


def show_ndp(text: str) -> dict[str, list[str]]:
    """``show ndp`` (sonic-utilities ``scripts/nbrshow -6``: columns Address, MacAddress, Iface, Vlan, Status, then
    ``Total number of entries N``) -> {interface: [MAC, ...]} (lower case, in output order, each once). Rows whose
    MAC is not one (an entry still resolving) are left out; an empty table is {}."""
    if not text.strip() or text.lstrip().startswith("Total number of entries"):
        return {}
    t = _table(text, "Address", "show ndp")
    out: dict[str, list[str]] = {}
    for r in t.rows:
        mac = canonical_mac(r.get("MacAddress", ""))
        iface = r.get("Iface", "")
        if mac is not None and iface and iface != "-" and mac not in out.setdefault(iface, []):
            out[iface].append(mac)
    return out


def show_ip_bgp_summary(text: str) -> dict[str, Any]:
    """``show ip bgp summary`` (SONiC's formatter: ``Neighbhor`` header [sic], ``NeighborName`` column; the
    FRR vtysh layout with ``Neighbor`` is accepted too) -> {router_id, local_as, neighbors: {ip: {version,
    remote_as, msg_rcvd, msg_sent, up_down, state, prefixes, name}}}; ``state`` is ``Established`` when
    State/PfxRcd holds a prefix count."""
    rid = re.search(r"BGP router identifier (\S+), local AS number (\d+)", text)
    neighbors: dict[str, dict[str, Any]] = {}
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(r"^Neighb\w*\s+V\s+AS\b", line)), None)
    if start is None:
        if "Unicast Summary" in text or not text.strip():
            return {"router_id": rid.group(1) if rid else None, "local_as": int(rid.group(2)) if rid else None,
                    "neighbors": {}}
        raise ParseError("`show ip bgp summary`: no neighbour table in the output")
    for line in lines[start + 1:]:
        if not line.strip():
            break
        if _RULE.match(line):
            continue
        words = line.split()
        if len(words) < 10:
            continue
        state_words = [words[9]]
        rest = words[10:]
        if rest and rest[0].startswith("("):  # "Idle (Admin)", "Idle (PfxCt)"
            state_words.append(rest.pop(0))
        state_text = " ".join(state_words)
        prefixes = counter(state_text)
        neighbors[words[0]] = {
            "version": counter(words[1]), "remote_as": counter(words[2]), "msg_rcvd": counter(words[3]),
            "msg_sent": counter(words[4]), "up_down": words[8],
            "state": "Established" if prefixes is not None else state_text,
            "prefixes": prefixes, "name": " ".join(rest),
        }
    return {"router_id": rid.group(1) if rid else None, "local_as": int(rid.group(2)) if rid else None,
            "neighbors": neighbors}


def show_version(text: str) -> dict[str, str]:
    """``show version`` -> the ``Key: value`` lines before ``Docker images:`` (``SONiC Software Version``,
    ``Platform``, ``HwSKU``, ``ASIC``, ...)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("Docker images"):
            break
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith(" "):
            out[key.strip()] = value.strip()
    if "SONiC Software Version" not in out and text.strip():
        raise ParseError("`show version`: no 'SONiC Software Version:' line")
    return out
