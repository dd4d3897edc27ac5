"""Resolve fabric defaults + group overrides + device overrides into one settings object."""

from __future__ import annotations

from roceops.model.intent import FabricIntent, Settings
from roceops.topology.fabric import ResolvedSettings


def override_chain(intent: FabricIntent, name: str, groups: list[str]) -> list[Settings]:
    """Overrides that apply to a device, lowest precedence first (groups in the given order)."""
    chain = [intent.overrides.groups[g] for g in groups if g in intent.overrides.groups]
    if name in intent.overrides.devices:
        chain.append(intent.overrides.devices[name])
    return chain


def resolve(intent: FabricIntent, chain: list[Settings], nos_version: str | None = None) -> ResolvedSettings:
    """``nos_version``: the tier's release, the base the overrides in ``chain`` replace."""
    mtu = intent.mtu.switch
    watchdog = intent.qos.pfc_watchdog
    dcqcn = intent.qos.dcqcn
    ecn = {tc.name: tc.ecn for tc in intent.qos.traffic_classes if tc.ecn is not None}
    cable: int | None = None
    nos = nos_version
    for s in chain:
        mtu = s.mtu if s.mtu is not None else mtu
        watchdog = s.pfc_watchdog or watchdog
        dcqcn = s.dcqcn or dcqcn
        cable = s.cable_length if s.cable_length is not None else cable
        nos = s.nos_version or nos
        if s.ecn:
            ecn = {**ecn, **s.ecn}
    return ResolvedSettings(mtu=mtu, pfc_watchdog=watchdog, dcqcn=dcqcn, ecn=ecn, cable_length=cable,
                            nos_version=nos)


def platform_override(chain: list[Settings]) -> str | None:
    platform = None
    for s in chain:
        platform = s.platform or platform
    return platform
