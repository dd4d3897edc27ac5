"""Lossless headroom against the vendor's data: lookup-table lengths, roceops' formula, vendor-managed SKUs."""

from __future__ import annotations

from collections.abc import Iterator

from roceops import registry
from roceops.hardware import UnknownSwitchProfile, switch_profile
from roceops.hardware.models import SwitchProfile
from roceops.lint.common import human_bytes, overrides, some
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.intent import FabricIntent
from roceops.plan.hardware import NoVendorHeadroom
from roceops.plan.headroom import PAUSE_QUANTA, compute_headroom
from roceops.topology.fabric import Switch


def _profile(hwsku: str | None) -> SwitchProfile | None:
    if hwsku is None:
        return None
    try:
        return switch_profile(hwsku)
    except UnknownSwitchProfile:
        return None  # HW001


def _cable_path(intent: FabricIntent, sw: Switch, metres: int) -> str:
    """The intent field a switch's ``metres`` cable comes from: its override, else the fabric's tier length."""
    for path, s in overrides(intent):
        name = path.rsplit(".", 1)[-1]
        if s.cable_length == metres and (name == sw.name or name in sw.groups):
            return f"{path}.cable_length"
    lengths = intent.cable_lengths
    for field in ("host_leaf", "leaf_spine", "spine_core"):
        if getattr(lengths, field) == metres:
            return f"cable_lengths.{field}"
    return "cable_lengths"


@rule("HDRM003", "error", "a port's speed and cable length have no row in the SKU's pg_profile_lookup.ini "
                          "(traditional buffer model), or the SKU has no dynamic headroom calculation",
      "use a cable length the table has (the message lists them), or qos.buffers.model dynamic on a SKU whose "
      "image computes headroom (Mellanox)", needs_fabric=True)
def vendor_headroom_row(ctx: LintContext) -> Iterator[Hit]:
    for group in ctx.switch_groups:
        try:
            ctx.switch_plan(group[0].name)
        except NoVendorHeadroom as exc:
            model = ctx.intent.qos.buffers.model
            path = (_cable_path(ctx.intent, group[0], exc.cable_m) if exc.supported or model == "traditional"
                    else "qos.buffers.model")
            hint = (f"set the cable length to one of {', '.join(exc.supported)} (buffermgrd reads no other), or "
                    "qos.buffers.model dynamic on a SKU whose image computes headroom" if exc.supported else None)
            yield Hit(path, f"{some([s.name for s in group])}: {exc}", hint)


@rule("HDRM004", "warning", "roceops' headroom formula gives less xoff than the SKU's pg_profile_lookup.ini for a row "
                            "(platforms whose NOS does not take its buffers from the SKU files)",
      "raise qos.buffers.mac_phy_delay_bytes / cell_size, or check the headroom the switch derives itself",
      needs_fabric=True)
def formula_below_vendor(ctx: LintContext) -> Iterator[Hit]:
    b = ctx.intent.qos.buffers
    seen: set[tuple[str, str, str | None, int]] = set()
    for sw in ctx.fabric.switches if ctx.fabric is not None else ():
        key = (sw.model, sw.platform, sw.hwsku, sw.settings.mtu)
        if key in seen:
            continue
        seen.add(key)
        profile = _profile(sw.hwsku)
        if profile is None or registry.get(sw.platform).sku_built:
            continue  # SKU-built rooms take the vendor's rows themselves
        rows = {(r.speed, r.cable): r for spec in profile.buffers.values() for r in spec.pg_lossless}
        below: list[str] = []
        for (speed, cable), row in sorted(rows.items()):
            if speed not in PAUSE_QUANTA or not cable.rstrip("m").isdigit():
                continue
            ours = compute_headroom(speed_mbps=speed, cable_m=int(cable.rstrip("m")), mtu=sw.settings.mtu,
                                    small_packet_percent=b.small_packet_percent, cell_size=b.cell_size,
                                    mac_phy_delay=b.mac_phy_delay_bytes, pipeline_latency=b.pipeline_latency_bytes,
                                    gearbox_delay=b.gearbox_delay_bytes, shared_headroom=b.shared_headroom)
            if ours.xoff < row.xoff:
                below.append(f"{speed // 1000}G {cable}: {human_bytes(ours.xoff)} < {human_bytes(row.xoff)}")
        if below:
            yield Hit("qos.buffers", f"{sw.platform} switches of model {sw.model} ({profile.name}): roceops' formula "
                                     f"is below the vendor's xoff on {len(below)} of {len(rows)} rows "
                                     f"({'; '.join(below[:3])}{'; ...' if len(below) > 3 else ''})")


@rule("HW028", "warning", "a switch model's SKU is vendor-managed: roceops renders no BUFFER_* tables for it",
      "nothing to fix: the image's ASIC configuration holds the buffers; check it holds lossless headroom for the "
      "PFC priorities")
def vendor_managed_buffers(ctx: LintContext) -> Iterator[Hit]:
    for tier, (name, model) in ctx.tier_models.items():
        platform = getattr(ctx.intent.tiers, tier).platform
        profile = _profile(model.hwsku)
        if profile is None or profile.vendor_managed_buffers is None or not registry.get(platform).sku_built:
            continue
        yield Hit(f"switch_models.{name}.hwsku", f"{model.hwsku} is vendor-managed "
                                                 f"({profile.vendor_managed_buffers.reason}): no BUFFER_* tables are "
                                                 f"rendered for the {tier} switches")
