"""Device facts before a push: each platform's facts parser on its real output shapes, and the comparison
with the intent (hardware, NOS release, supported range, ports)."""

from __future__ import annotations

import json
from functools import cache

import pytest
from labtools import lab_mini

from roceops.device.change import DeviceFacts
from roceops.device.facts import mismatches, release_key
from roceops.device.intent import SwitchIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.cumulus.facts import parse_facts as cumulus_facts
from roceops.platforms.eos.facts import parse_facts as eos_facts
from roceops.platforms.sonic.facts import parse_facts as sonic_facts

SONIC_VERSION = """\
SONiC Software Version: SONiC.20230531.22
SONiC OS Version: 11
Distribution: Debian 11.8
Kernel: 5.10.0-23-2-amd64
Build commit: 7cd8a1a
Build date: Wed Nov  1 04:18:29 UTC 2023
Built by: AzDevOps@sonic-build-workers-000OS4

Platform: x86_64-nvidia_sn5600-r0
HwSKU: Mellanox-SN5600-O128
ASIC: mellanox
ASIC Count: 1
Serial Number: MT2330X00000
Model Number: MSN5600-CS2FC
Hardware Revision: A1
Uptime: 10:02:11 up 3 days,  2:11,  1 user,  load average: 1.07, 1.12, 1.10
Date: Tue 07 Nov 2023 10:02:11

Docker images:
REPOSITORY                    TAG                    IMAGE ID       SIZE
docker-orchagent              latest                 6d4a91e2b8c3   412MB
"""


@cache
def leaf() -> SwitchIntent:
    intent = plan(lab_mini(), "leaf-su1-r1")
    assert isinstance(intent, SwitchIntent)
    return intent


def test_sonic_facts_from_show_version_and_config_db() -> None:
    db = {"DEVICE_METADATA": {"localhost": {"hwsku": "Mellanox-SN5600-O128"}},
          "PORT": {"Ethernet0": {}, "Ethernet4": {}}}
    facts = sonic_facts(SONIC_VERSION, db)
    assert facts == DeviceFacts(nos_version="20230531.22", hardware="Mellanox-SN5600-O128",
                                ports=frozenset({"Ethernet0", "Ethernet4"}))
    assert sonic_facts(SONIC_VERSION, {}).ports is None  # no PORT table: the port list is unknown, not empty


def test_sonic_facts_count_the_children_a_breakout_of_a_listed_cage_creates() -> None:
    """A fresh Z9864F boots cage Ethernet0 as one 1x800G port: its 2x400G(8) child Ethernet4 is a breakout away
    (BREAKOUT_CFG lists the cage), so it is not missing; a cage BREAKOUT_CFG does not list creates nothing."""
    version = SONIC_VERSION.replace("Mellanox-SN5600-O128", "Dell-Z9864f-O64")
    db = {"PORT": {"Ethernet0": {}, "Ethernet8": {}}, "BREAKOUT_CFG": {"Ethernet0": {"brkout_mode": "1x800G"}}}
    ports = sonic_facts(version, db).ports
    assert ports is not None and {"Ethernet0", "Ethernet4", "Ethernet8"} <= ports
    assert "Ethernet12" not in ports  # cage Ethernet8 is not in BREAKOUT_CFG
    assert sonic_facts(version, {"PORT": db["PORT"]}).ports == {"Ethernet0", "Ethernet8"}
    # a SKU outside the catalogue: only PORT
    unknown = SONIC_VERSION.replace("Mellanox-SN5600-O128", "Custom-SKU")
    assert sonic_facts(unknown, db).ports == {"Ethernet0", "Ethernet8"}


def test_cumulus_facts_from_old_and_new_nv_show_system() -> None:
    interfaces = json.dumps({"eth0": {}, "lo": {}, "swp1": {}, "swp2": {}})
    old = cumulus_facts(json.dumps({"hostname": "leaf01", "build": "Cumulus Linux 5.5.0", "uptime": 1}), interfaces)
    assert old == DeviceFacts(nos_version="5.5.0", hardware=None, ports=frozenset({"swp1", "swp2"}))
    new = cumulus_facts(json.dumps({"build": "Cumulus Linux 5.14.0", "product-release": "5.14.0",
                                    "platform": "MSN5600"}), interfaces)
    assert (new.nos_version, new.hardware) == ("5.14.0", "MSN5600")


def test_eos_facts_from_show_version_and_interfaces_json() -> None:
    version = json.dumps({"mfgName": "Arista", "modelName": "DCS-7060DX5-64S", "version": "4.32.2F",
                          "serialNumber": "JPE00000000"})
    interfaces = json.dumps({"interfaces": {"Ethernet1/1": {}, "Ethernet2/1": {}, "Management1": {},
                                            "Loopback0": {}}})
    assert eos_facts(version, interfaces) == DeviceFacts(nos_version="4.32.2F", hardware="DCS-7060DX5-64S",
                                                         ports=frozenset({"Ethernet1/1", "Ethernet2/1"}))


@pytest.mark.parametrize(("platform", "version", "key"), [
    ("sonic", "202411.1-abc", (202411, 1)), ("sonic", "20230531.22", (202305, 22)), ("sonic", "master.123", ()),
    ("cumulus", "5.14.0", (5, 14, 0)), ("eos", "4.32.2F", (4, 32, 2)), ("eos", "4.30.1F-12345", (4, 30, 1)),
])
def test_release_key(platform: str, version: str, key: tuple[int, ...]) -> None:
    assert release_key(platform, version) == key


def _matching(intent: SwitchIntent, **change: object) -> DeviceFacts:
    base = {"nos_version": "202411.1-lab", "hardware": intent.hwsku, "ports": frozenset(intent.ports)}
    return DeviceFacts(**{**base, **change})  # type: ignore[arg-type]


def test_matching_facts_give_no_mismatch() -> None:
    intent = leaf().model_copy(update={"hwsku": "Mellanox-SN5600-O128", "nos_version": "202411"})
    assert mismatches(_matching(intent), intent) == []
    extra_ports = _matching(intent, ports=frozenset(intent.ports) | {"Ethernet512"})
    assert mismatches(extra_ports, intent) == []  # unused ports on the device are fine


def test_each_contradiction_is_named() -> None:
    intent = leaf().model_copy(update={"hwsku": "Mellanox-SN5600-O128", "nos_version": "202411"})
    assert mismatches(_matching(intent, hardware="Mellanox-SN4600C-C64"), intent) == [
        "hardware: fabric says 'Mellanox-SN5600-O128', device reports 'Mellanox-SN4600C-C64'"]
    assert mismatches(_matching(intent, nos_version="202405.2"), intent) == [
        "NOS release: fabric says '202411', device runs '202405.2'"]
    first, *rest = sorted(intent.ports, key=lambda p: int(p.removeprefix("Ethernet")))
    assert mismatches(_matching(intent, ports=frozenset(rest)), intent) == [f"ports missing on the device: {first}"]
    assert mismatches(_matching(intent, ports=None), intent) == ["ports: the device's port list could not be read"]
    assert mismatches(_matching(intent, nos_version=None), intent) == ["NOS release: the device reports none"]
    assert mismatches(_matching(intent, hardware=None), intent) == [
        "hardware: fabric says 'Mellanox-SN5600-O128', the device reports no hardware identity"]


def test_a_release_outside_the_supported_range_is_refused_even_without_a_fabric_release() -> None:
    intent = leaf()
    assert intent.nos_version is None or intent.nos_version.startswith("2024")
    low, high = get_platform("sonic").supported_releases or ((), ())
    unpinned = intent.model_copy(update={"nos_version": None, "hwsku": None})
    assert mismatches(_matching(unpinned, nos_version=f"{low[0]}.1"), unpinned) == []
    assert mismatches(_matching(unpinned, nos_version=f"{high[0]}.9"), unpinned) == []
    assert mismatches(_matching(unpinned, nos_version="202205.5"), unpinned) == [
        "NOS release '202205.5' is outside the supported range 202305 to 202511"]
    assert mismatches(_matching(unpinned, nos_version="master.1234-abc"), unpinned) == [
        "NOS release 'master.1234-abc' is outside the supported range 202305 to 202511"]


def test_fabric_release_is_a_prefix_of_the_device_release() -> None:
    intent = leaf().model_copy(update={"platform": "eos", "nos_version": "4.32", "hwsku": None})
    assert mismatches(_matching(intent, nos_version="4.32.2F"), intent) == []
    assert mismatches(_matching(intent, nos_version="4.320.1F"), intent) != []  # 4.32 is not 4.320
    assert "outside the supported range 4.28 to 4.34" in " ".join(mismatches(_matching(intent, nos_version="4.27.1F"),
                                                                            intent))
