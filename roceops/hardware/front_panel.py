"""The ports a fabric uses on a SKU, named the way each NOS names them.

A switch of a model with a hardware profile uses the SKU's ports that can run the fabric's port
speed, in ``port_config.ini`` order (the first ``radix`` of them). Names:

* SONiC: the SKU's own names (``Ethernet0``, ``Ethernet4``, ...) with its lanes, alias and index.
* Cumulus: ``swp<cage>`` for an unsplit cage, ``swp<cage>s<k>`` for the k-th port of a cage the
  SKU breaks out (SN5600: ``swp1s0``, ``swp1s1`` = 2x400G of the 800G cage ``swp1``); the cage gets
  ``nv set interface swp<cage> link breakout <n>x``. Source: CumulusNetworks/docs
  content/cumulus-linux-515/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/
  Switch-Port-Attributes.md @ 2d5756cced24e376c6247eab19847384125165b6 ("Configure a Breakout Port").

Each room says which it is on its ``PLATFORM.sku_port_naming`` (:class:`SkuPortNaming`); other
platforms keep their port naming (no profile names them).

A leaf model with ``host_breakout`` (e.g. ``2x400G`` on an 800G SKU) breaks cages out in one of their
``platform.json`` modes (:func:`breakout_panel`). The child ports are the ones SONiC's dynamic port
breakout creates (sonic-net/sonic-buildimage src/sonic-config-engine/portconfig.py, ``BreakoutCfg.get_config``
@ 0ef27378ecbb10a0630d3b72eae00987b38e5ff9): the k-th child of cage ``Ethernet<b>`` is ``Ethernet<b + o>``
with the cage's lanes ``[o, o + lanes_per_port)``, o = k x lanes_per_port, and the mode's k-th alias.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from roceops import registry
from roceops.hardware.catalogue_store import UnknownSwitchProfile, switch_profile
from roceops.hardware.models import SwitchProfile
from roceops.model.types import breakout_parts


@dataclass(frozen=True)
class SkuPortNaming:
    """How a NOS names a SKU's ports: the SKU's own names (``sku_names``), or patterns with ``{cage}`` (the
    cage's front-panel number) and ``{k}`` (the port's position in a split cage)."""

    sku_names: bool = False
    port: str = ""  # an unsplit cage's port
    split_port: str = ""  # the k-th port of a split cage
    cage: str = ""  # the cage itself, as breakout commands name it (empty: the SKU's cage name)


@dataclass(frozen=True)
class FrontPanelPort:
    """One usable port: its NOS name, the SKU facts behind it, and its cage's breakout (1 = unsplit)."""

    name: str
    sku_port: str
    lanes: tuple[int, ...]
    alias: str
    index: int
    cage: str
    breakout: int
    mode: str | None = None  # the platform.json breakout mode a host_breakout puts the cage in


def _cage_breakouts(profile: SwitchProfile) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p in profile.ports:
        if p.cage is not None:
            counts[p.cage] = counts.get(p.cage, 0) + 1
    return counts


def front_panel(profile: SwitchProfile, naming: SkuPortNaming, speed: int) -> list[FrontPanelPort]:
    """The SKU's ports able to run ``speed``, named as ``naming`` says."""
    breakouts = _cage_breakouts(profile)
    position: dict[str, int] = {}
    out: list[FrontPanelPort] = []
    for p in profile.ports:
        cage = profile.cage(p.cage) if p.cage else None
        k = position.get(p.cage or p.name, 0)
        position[p.cage or p.name] = k + 1
        if speed not in p.speeds or cage is None:
            continue
        split = breakouts[cage.name]
        if naming.sku_names:
            name = p.name
        else:
            name = (naming.port if split == 1 else naming.split_port).format(cage=cage.index, k=k)
        out.append(FrontPanelPort(name=name, sku_port=p.name, lanes=p.lanes, alias=p.alias, index=p.index,
                                  cage=naming.cage.format(cage=cage.index) if naming.cage else cage.name,
                                  breakout=split))
    return out


_SKU_PORT_NAME = re.compile(r"^Ethernet(\d+)$")


def mode_prefix(mode: str) -> str:
    """``2x400G(8)`` -> ``2x400G``: a platform.json mode without its lane count or alternative speeds (a name
    not like that is returned as it is)."""
    try:
        ports, speed = breakout_parts(mode)
    except ValueError:
        return mode
    return f"{ports}x{speed // 1000}G"


def breakout_panel(profile: SwitchProfile, naming: SkuPortNaming, speed: int, mode: str) -> list[FrontPanelPort]:
    """The child ports of the SKU's unsplit ``speed`` cages broken out in ``mode`` (``2x400G``), cage by cage in
    :func:`front_panel` order; the list stops at the first cage without that mode, so child ``j`` sits in
    front-panel cage ``j // ports``."""
    breakouts = _cage_breakouts(profile)
    out: list[FrontPanelPort] = []
    for p in profile.ports:
        cage = profile.cage(p.cage) if p.cage else None
        if speed not in p.speeds or cage is None or breakouts[cage.name] != 1:
            continue
        m = next((m for m in cage.breakout_modes if mode_prefix(m.name) == mode), None)
        base = _SKU_PORT_NAME.match(cage.name)
        if m is None or (naming.sku_names and base is None):
            break
        for k in range(m.ports):
            offset = k * m.lanes_per_port
            name = (f"Ethernet{int(base.group(1)) + offset}" if naming.sku_names and base is not None
                    else naming.split_port.format(cage=cage.index, k=k))
            out.append(FrontPanelPort(
                name=name, sku_port=p.name, lanes=cage.lanes[offset:offset + m.lanes_per_port],
                alias=m.aliases[k], index=cage.index,  # platform.json's per-lane index; the catalogue keeps the cage's
                cage=naming.cage.format(cage=cage.index) if naming.cage else cage.name, breakout=m.ports,
                mode=m.name))
    return out


@lru_cache(maxsize=64)
def front_panel_of(hwsku: str | None, platform: str, speed: int,
                   host_breakout: str | None = None) -> tuple[FrontPanelPort, ...] | None:
    """:func:`front_panel` of a catalogue hwsku (:func:`breakout_panel` with ``host_breakout``); None without
    one (custom model, or a name lint reports)."""
    naming: SkuPortNaming | None = registry.get(platform).sku_port_naming
    if hwsku is None or naming is None:
        return None
    try:
        profile = switch_profile(hwsku)
    except UnknownSwitchProfile:
        return None
    if host_breakout is not None:
        return tuple(breakout_panel(profile, naming, speed, host_breakout))
    return tuple(front_panel(profile, naming, speed))
