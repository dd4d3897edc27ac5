"""Hardware rules for switch models described by a model profile (:mod:`roceops.hardware.model_profiles`).

A switch model whose ``hwsku`` names a model profile (a NOS without SKU files: ``roceops/hardware/model_catalogue``)
is checked against that profile as SONiC models are against their SKU (rules_hardware.py): platform, radix, speeds,
port names, MTU, configurable and lossless queues, and the RoCE features the profile confirms. Where the profile
has no source for a construct the fabric needs, the rule refuses it and quotes the profile's reason.
"""

from __future__ import annotations

from collections.abc import Iterator

from roceops.hardware.model_profiles import ModelProfile, find_model_profile
from roceops.lint.common import gbps
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.intent import SwitchModel


def _profiled(ctx: LintContext) -> Iterator[tuple[str, str, SwitchModel, ModelProfile]]:
    """(tier, model name, model, profile) for every built tier whose model names a model profile."""
    for tier, (name, model) in ctx.tier_models.items():
        if (profile := find_model_profile(model.hwsku)) is not None:
            yield tier, name, model, profile


def _tier(ctx: LintContext, tier: str) -> tuple[str, str | None]:
    t = getattr(ctx.intent.tiers, tier)
    return t.platform, t.nos_version


@rule("HW020", "error", "a switch model names a hardware profile of another platform than its tier's",
      "use a profile of the tier's platform (`roceops hardware list`), or move the tier to the profile's platform")
def profile_platform(ctx: LintContext) -> Iterator[Hit]:
    for tier, name, _model, profile in _profiled(ctx):
        platform, _release = _tier(ctx, tier)
        if platform != profile.platform:
            yield Hit(f"switch_models.{name}.hwsku", f"{profile.name} is a {profile.platform} hardware profile, but "
                                                     f"tier {tier} runs {platform}")


@rule("HW021", "error", "radix exceeds the front-panel ports of the model profile",
      "lower radix to the model's port count, or use a larger model")
def profile_radix(ctx: LintContext) -> Iterator[Hit]:
    for _tier_name, name, model, profile in _profiled(ctx):
        if model.radix > profile.ports.count:
            yield Hit(f"switch_models.{name}.radix", f"radix {model.radix} but {profile.name} has "
                                                     f"{profile.ports.count} {profile.ports.cage} ports "
                                                     f"({profile.ports.source})", f"set radix to at most "
                                                                                  f"{profile.ports.count}")


@rule("HW022", "error", "port_speed is not a speed the model profile confirms (with the NOS keyword that sets it)",
      "use a speed the profile lists (`roceops hardware show NAME`)")
def profile_speed(ctx: LintContext) -> Iterator[Hit]:
    for _tier_name, name, model, profile in _profiled(ctx):
        if profile.speed_keyword(model.port_speed) is None:
            runs = ", ".join(gbps(s.speed) for s in profile.speeds)
            yield Hit(f"switch_models.{name}.port_speed",
                      f"{profile.name}: no source confirms {gbps(model.port_speed)} and its keyword "
                      f"(confirmed: {runs})")


@rule("HW023", "error", "a switch port name is not one the model profile's NOS gives its ports",
      "set tiers.<tier>.port_naming to the model's names (e.g. Ethernet3/{n}/1 on a chassis line card)",
      needs_fabric=True)
def profile_port_names(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    profiles = {name: profile for _t, name, _m, profile in _profiled(ctx)}
    reported: set[str] = set()
    for sw in ctx.fabric.switches:
        profile = profiles.get(sw.model)
        if profile is None or sw.model in reported:
            continue
        for link in ctx.fabric.links_of(sw.name):
            port = link.a.port if link.a.device == sw.name else link.b.port
            cage = profile.ports.cage_of(port)
            if cage is None or cage > profile.ports.count:
                reported.add(sw.model)
                yield Hit(f"switch_models.{sw.model}", f"{sw.name} port {port} is not a {profile.name} port (names "
                                                       f"like {profile.ports.example}, cages 1-{profile.ports.count})")
                break


@rule("HW024", "warning", "mtu.switch is above the model profile's MTU maximum: the maximum is rendered",
      "set mtu.switch (or the override) to the profile's maximum to render what you wrote", needs_fabric=True)
def profile_mtu_cap(ctx: LintContext) -> Iterator[Hit]:
    # no floor rule: the schema's 1280 minimum is above every profile's minimum (68)
    assert ctx.fabric is not None
    profiles = {name: profile for _t, name, _m, profile in _profiled(ctx)}
    seen: set[tuple[str, int]] = set()
    for sw in ctx.fabric.switches:
        profile, mtu = profiles.get(sw.model), sw.settings.mtu
        if profile is None or (sw.model, mtu) in seen:
            continue
        seen.add((sw.model, mtu))
        if mtu > profile.mtu.max:
            yield Hit("mtu.switch", f"{sw.name} ({profile.name}) MTU {mtu} is above {profile.mtu.max} and is rendered "
                                    f"as {profile.mtu.max} ({profile.mtu.source})")


@rule("HW026", "error", "a traffic class uses a queue the model profile does not let the user configure (on the "
      "tier's nos_version), or more lossless classes than its confirmed lossless queues",
      "move the class to a configurable queue, or pin tiers.<tier>.nos_version to a release that frees it")
def profile_queues(ctx: LintContext) -> Iterator[Hit]:
    classes = ctx.intent.qos.traffic_classes
    lossless = len({c.queue_id for c in ctx.intent.qos.lossless_classes})
    for tier, name, _model, profile in _profiled(ctx):
        _platform, release = _tier(ctx, tier)
        allowed = profile.queues_for(release)
        for c in classes:
            if c.queue_id not in allowed:
                yield Hit("qos.traffic_classes", f"class {c.name} uses queue {c.queue_id}, not configurable on "
                                                 f"{profile.name} at release {release or '(not pinned)'} "
                                                 f"({profile.queues.configurable_source})")
        if profile.queues.lossless is not None and lossless > profile.queues.lossless:
            yield Hit("qos.traffic_classes", f"{lossless} lossless queues, {profile.name} ({name}) has "
                                             f"{profile.queues.lossless} ({profile.queues.lossless_source})")


@rule("HW027", "error", "the fabric needs ECN, PFC or the PFC watchdog on a model whose profile confirms no syntax "
      "for it", "use another model for that tier, or turn the feature off (qos.traffic_classes[].ecn, "
                "qos.pfc_watchdog.enabled) for a fabric on this model")
def profile_features(ctx: LintContext) -> Iterator[Hit]:
    qos = ctx.intent.qos
    needs = {"ecn": any(c.ecn is not None for c in qos.traffic_classes),
             "pfc": bool(qos.lossless_classes),
             "pfc_watchdog": qos.pfc_watchdog.enabled and bool(qos.lossless_classes)}
    for tier, _name, _model, profile in _profiled(ctx):
        for feature, needed in needs.items():
            spec = getattr(profile, feature)
            if needed and not spec.supported:
                yield Hit("qos", f"tier {tier} ({profile.name}) has no confirmed {feature.replace('_', ' ')}: "
                                 f"{spec.source}")
