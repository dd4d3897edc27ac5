"""Hardware rules: a switch model that names a SKU is checked against the SKU's vendor files.

The profile (``roceops hardware show <hwsku>``) says which ports exist, the speeds each can run in
the SKU's breakout, the cages' breakout modes, the MTU range and the lossless queues its buffer
templates set up; a fabric asking for more is an error before anything is rendered.
"""

from __future__ import annotations

from collections.abc import Iterator

from roceops.hardware import UnknownSwitchProfile, switch_profile, switch_profile_names
from roceops.hardware.front_panel import mode_prefix
from roceops.hardware.model_profiles import find_model_profile, model_profile_names
from roceops.hardware.models import SwitchProfile
from roceops.hardware.nics import PROFILES as NIC_PROFILES
from roceops.lint.common import gbps
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.intent import SwitchModel
from roceops.platforms.base import get_platform


def _profiles(ctx: LintContext) -> Iterator[tuple[str, SwitchModel, SwitchProfile, list[str]]]:
    """(model name, model, profile, tiers using it) for every used model whose hwsku is in the catalogue."""
    tiers_of: dict[str, list[str]] = {}
    for tier, (name, _model) in ctx.tier_models.items():
        tiers_of.setdefault(name, []).append(tier)
    for name, tiers in tiers_of.items():
        model = ctx.intent.switch_models[name]
        if model.hwsku is None:
            continue
        try:
            yield name, model, switch_profile(model.hwsku), tiers
        except UnknownSwitchProfile:
            continue


def _modes_with(profile: SwitchProfile, speed: int) -> list[str]:
    return sorted({m.name for c in profile.cages for m in c.breakout_modes if speed in m.speeds})


@rule("HW001", "error", "switch_models.<model>.hwsku names no hardware catalogue entry (SKU or model profile)",
      "use a name from `roceops hardware list`, or import the SKU's files with `roceops hardware import`")
def unknown_hwsku(ctx: LintContext) -> Iterator[Hit]:
    for name, model in dict(ctx.tier_models.values()).items():
        if model.hwsku is None or find_model_profile(model.hwsku) is not None:
            continue  # a model profile (rules_model_profiles.py checks the model against it)
        try:
            switch_profile(model.hwsku)
        except UnknownSwitchProfile:
            known = sorted({*switch_profile_names(), *model_profile_names()})
            yield Hit(f"switch_models.{name}.hwsku", f"no hardware profile {model.hwsku!r} (known: {', '.join(known)})")


@rule("HW002", "error", "a switch whose platform builds its ports from the SKU (Platform.sku_built) names no "
      "hwsku (port lanes, aliases and indexes come from the SKU)",
      "set switch_models.<model>.hwsku to the SKU the switch runs (`roceops hardware list`)", needs_fabric=True)
def sku_missing(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    models = sorted({(sw.model, get_platform(sw.platform).title) for sw in ctx.fabric.switches
                     if get_platform(sw.platform).sku_built and sw.hwsku is None})
    for name, title in models:
        yield Hit(f"switch_models.{name}.hwsku", f"{title} switches of model '{name}' have no hwsku: roceops does not "
                                                 "invent PORT lanes from a speed")


@rule("HW003", "error", "port_speed is not a speed the SKU's ports can run in its breakout",
      "use a speed the SKU runs, or a hwsku whose breakout gives that speed")
def unsupported_speed(ctx: LintContext) -> Iterator[Hit]:
    for name, model, profile, _tiers in _profiles(ctx):
        if any(model.port_speed in p.speeds for p in profile.ports):
            continue
        runs = sorted({s for p in profile.ports for s in p.speeds}, reverse=True)
        modes = _modes_with(profile, model.port_speed)
        hint = (f"{profile.name}'s cages can do {gbps(model.port_speed)} in breakout {', '.join(modes)}: use the hwsku "
                "with that breakout" if modes else f"{profile.name} cannot run {gbps(model.port_speed)} at all")
        yield Hit(f"switch_models.{name}.port_speed",
                  f"{profile.name} ports run {', '.join(gbps(s) for s in runs)}, not {gbps(model.port_speed)}", hint)


@rule("HW004", "error", "radix exceeds the SKU's ports that can run port_speed",
      "lower radix to the SKU's port count at that speed, or use a larger SKU")
def radix_over_sku(ctx: LintContext) -> Iterator[Hit]:
    for name, model, profile, _tiers in _profiles(ctx):
        usable = sum(1 for p in profile.ports if model.port_speed in p.speeds)
        if usable and model.radix > usable:
            yield Hit(f"switch_models.{name}.radix", f"radix {model.radix} but {profile.name} has {usable} ports "
                                                     f"that run {gbps(model.port_speed)}",
                      f"set radix to at most {usable}")


@rule("HW005", "error", "breakout is not one the SKU's cages can do, or not the SKU's own breakout",
      "use the breakout of the SKU (its hwsku.json), or the hwsku built for the breakout you need")
def unsupported_breakout(ctx: LintContext) -> Iterator[Hit]:
    for name, model, profile, _tiers in _profiles(ctx):
        if model.breakout is None:
            continue
        cage_modes = sorted({mode_prefix(m.name) for c in profile.cages for m in c.breakout_modes})
        defaults = sorted({mode_prefix(c.default_breakout) for c in profile.cages
                           if c.default_breakout and any(model.port_speed in p.speeds and p.cage == c.name
                                                         for p in profile.ports)})
        path = f"switch_models.{name}.breakout"
        if model.breakout not in cage_modes:
            yield Hit(path, f"{profile.name}'s cages cannot break out {model.breakout} "
                            f"(platform.json modes: {', '.join(cage_modes)})")
        elif defaults and model.breakout not in defaults:
            yield Hit(path, f"{profile.name} ships its cages as {', '.join(defaults)} (hwsku.json), not "
                            f"{model.breakout}", f"drop breakout or use a hwsku whose hwsku.json is {model.breakout}")


@rule("HW006", "error", "a switch MTU is outside the SKU's MTU range",
      "set mtu.switch (or the override) within the range `roceops hardware show` prints", needs_fabric=True)
def mtu_outside_sku(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    ranges = {name: profile.mtu for name, _m, profile, _t in _profiles(ctx)}
    seen: set[tuple[str, int]] = set()
    for sw in ctx.fabric.switches:
        limits = ranges.get(sw.model)
        if limits is None or (sw.model, sw.settings.mtu) in seen:
            continue
        seen.add((sw.model, sw.settings.mtu))
        if not limits.min <= sw.settings.mtu <= limits.max:
            yield Hit("mtu.switch", f"{sw.name} ({sw.model}) MTU {sw.settings.mtu} is outside "
                                    f"{limits.min}..{limits.max} ({limits.source})")


@rule("HW007", "error", "more lossless classes than the SKU's buffer templates set up lossless queues",
      "reduce the lossless classes to the SKU's lossless queue count")
def lossless_over_sku(ctx: LintContext) -> Iterator[Hit]:
    lossless = ctx.intent.qos.lossless_classes
    needed = max(len({c.priority for c in lossless}), len({c.queue_id for c in lossless}), 0)
    for name, _model, profile, tiers in _profiles(ctx):
        limit = profile.lossless_classes
        if limit is not None and needed > limit:
            yield Hit("qos.traffic_classes", f"{needed} lossless classes, but {'/'.join(tiers)} model '{name}' "
                                             f"({profile.name}) has {limit} lossless queues in its buffer templates")


@rule("HW008", "error", "node.firmware is true but node.nic_model has no NIC profile (roceops.hardware.nics)",
      "set node.nic_model to a profiled NIC model, or firmware: false")
def firmware_needs_nic_profile(ctx: LintContext) -> Iterator[Hit]:
    node = ctx.intent.node
    if node.firmware and node.nic_model not in NIC_PROFILES:
        known = ", ".join(sorted(NIC_PROFILES))
        yield Hit("node.nic_model", f"firmware: true needs a NIC profile for nic_model {node.nic_model!r} "
                                    f"(known: {known})")
