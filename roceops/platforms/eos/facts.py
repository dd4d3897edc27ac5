"""Arista EOS device facts (pure): ``version`` and ``modelName`` from ``show version | json``, Ethernet ports
from ``show interfaces | json`` (keys as in ANTA's show version tests, aristanetworks/anta tests/units)."""

from __future__ import annotations

from roceops.device.change import DeviceFacts
from roceops.platforms.eos.parsers import CMD_INTERFACES, CMD_VERSION, interfaces_document, parse_version_json

COMMANDS = (CMD_VERSION, CMD_INTERFACES)


def parse_facts(version_json: str, interfaces_json: str) -> DeviceFacts:
    version = parse_version_json(version_json)
    interfaces = interfaces_document(interfaces_json).get("interfaces") or {}
    return DeviceFacts(nos_version=version["version"] or None, hardware=version["model"] or None,
                       ports=frozenset(name for name in interfaces if name.startswith("Ethernet")))
