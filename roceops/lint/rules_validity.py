"""What is not a valid fabric even though every field has the right type: reserved address ranges, models that name
no catalogue entry and give no specs, absurd buffer sizes, fractional byte thresholds, unsupported NOS releases."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from roceops.device.facts import unsupported_release
from roceops.hardware import UnknownSwitchProfile, switch_profile, switch_profile_names
from roceops.hardware.nics import PROFILES as NIC_PROFILES
from roceops.lint.common import ecn_policies, human_bytes, overrides
from roceops.lint.model import Hit, LintContext, rule
from roceops.lint.rules_addressing import POOLS

# IANA IPv4 Special-Purpose Address Registry (RFC 6890, https://www.iana.org/assignments/iana-ipv4-special-registry):
# none of these can address a fabric device. 240.0.0.0/4 (RFC 1112, reserved) holds 255.255.255.255 (broadcast).
RESERVED = (
    ("0.0.0.0/8", "'this network' (RFC 791)"),
    ("127.0.0.0/8", "loopback (RFC 1122)"),
    ("169.254.0.0/16", "link-local (RFC 3927)"),
    ("224.0.0.0/4", "multicast (RFC 5771)"),
    ("240.0.0.0/4", "reserved, with the broadcast address 255.255.255.255 (RFC 1112, RFC 919)"),
)
# RFC 5737 documentation ranges: fine in examples and tests for fabric-internal pools, never for management
# addresses that roceops connects to over SSH.
DOCUMENTATION = (
    ("192.0.2.0/24", "documentation TEST-NET-1 (RFC 5737)"),
    ("198.51.100.0/24", "documentation TEST-NET-2 (RFC 5737)"),
    ("203.0.113.0/24", "documentation TEST-NET-3 (RFC 5737)"),
)
# The node model every fabric gets when it names none: a generic label, its specs are the node section's own.
GENERIC_NODE = "generic-8gpu"
NODE_SPECS = ("gpus", "rails", "nic_model", "nic_speed")
# Not a hardware fact: a unit mistake guard. A buffer more than this many times the largest pool in the vendor
# files (the SKU's, or any catalogue SKU's for a custom model) is taken for a typo (bytes given in bits, KB as B).
BUFFER_SLACK = 2


@rule("ADDR003", "error", "an address pool lies in a reserved range (0/8, 127/8, 169.254/16, 224/4, 240/4 with the "
                          "broadcast address; for management also the RFC 5737 documentation ranges)",
      "use private space (RFC 1918: 10/8, 172.16/12, 192.168/16) for the pool named in the path")
def reserved_pools(ctx: LintContext) -> Iterator[Hit]:
    a = ctx.intent.addressing
    for name in POOLS:
        net = ipaddress.IPv4Network(getattr(a, name))
        ranges = RESERVED + (DOCUMENTATION if name == "management" else ())
        for prefix, what in ranges:
            if net.overlaps(ipaddress.IPv4Network(prefix)):
                yield Hit(f"addressing.{name}", f"{name} {net} overlaps {prefix}, {what}")


@rule("HW010", "error", "node.nic_model names no NIC profile (the facts plan and lint use: planes, speeds); with "
                        "node.firmware on, HW008 reports it",
      "use ConnectX-7, ConnectX-8 or BlueField-3, or add a profile with its sources to roceops/hardware/nics.py")
def unknown_nic(ctx: LintContext) -> Iterator[Hit]:
    node = ctx.intent.node
    if node.nic_model not in NIC_PROFILES and not node.firmware:
        yield Hit("node.nic_model", f"no NIC profile {node.nic_model!r} (known: {', '.join(sorted(NIC_PROFILES))})")


@rule("HW009", "error", f"node.model is neither the generic default ({GENERIC_NODE}) nor a custom model with its "
                        f"specs ({', '.join('node.' + s for s in NODE_SPECS)} all given)",
      f"give the custom node's {', '.join(NODE_SPECS)}, or leave node.model out")
def unknown_node(ctx: LintContext) -> Iterator[Hit]:
    node = ctx.intent.node
    missing = [s for s in NODE_SPECS if s not in node.model_fields_set]
    if node.model != GENERIC_NODE and missing:
        yield Hit("node.model", f"custom node model {node.model!r} without its specs: "
                                f"{', '.join('node.' + s for s in missing)} not given")


def _largest_pool(hwsku: str | None) -> tuple[int, str] | None:
    names = [hwsku] if hwsku else switch_profile_names()
    sizes = []
    for name in names:
        try:
            size = switch_profile(name).buffer_bytes
        except UnknownSwitchProfile:
            continue  # HW001 names it
        if size:
            sizes.append((size, name))
    return max(sizes) if sizes else None


@rule("BUF002", "error", f"a switch model's buffer_bytes is more than {BUFFER_SLACK}x the largest buffer pool of its "
                         "SKU (with hwsku) or of any catalogue SKU (custom model): a unit mistake",
      "give buffer_bytes in bytes, as the switch's datasheet states its packet buffer")
def buffer_bound(ctx: LintContext) -> Iterator[Hit]:
    for name, model in ctx.intent.switch_models.items():
        largest = _largest_pool(model.hwsku)
        if largest and model.buffer_bytes > BUFFER_SLACK * largest[0]:
            size, sku = largest
            yield Hit(f"switch_models.{name}.buffer_bytes",
                      f"{human_bytes(model.buffer_bytes)} is more than {BUFFER_SLACK}x the largest buffer pool "
                      f"({human_bytes(size)}) of {sku if model.hwsku else f'any catalogue SKU ({sku})'}")


@rule("ECN011", "error", "an ECN threshold in bytes (B, KB, MB) is not a whole number of bytes",
      "write the threshold as whole bytes (1536 or 1.5KB, not 1.3KB or 100.5)")
def fractional_bytes(ctx: LintContext) -> Iterator[Hit]:
    for path, _name, ecn in ecn_policies(ctx.intent):
        for end in ("min", "max"):
            threshold = getattr(ecn, end)
            if threshold.unit in ("B", "KB", "MB"):
                exact = threshold.value * {"B": 1, "KB": 1 << 10, "MB": 1 << 20}[threshold.unit]
                if exact != int(exact):
                    yield Hit(f"{path}.{end}", f"{threshold} is {exact:g} bytes, not a whole number")


@rule("NOS001", "error", "a nos_version outside the releases its platform supports (the range deploy's facts check "
                         "refuses: each platform's supported_releases)",
      "use a release in the platform's supported range (docs/platforms.md, Device facts)")
def supported_release(ctx: LintContext) -> Iterator[Hit]:
    for tier_name in ("leaf", "spine", "core"):
        tier = getattr(ctx.intent.tiers, tier_name)
        if tier is not None and tier.nos_version and (low_high := unsupported_release(tier.platform, tier.nos_version)):
            yield Hit(f"tiers.{tier_name}.nos_version", f"{tier.platform} release {tier.nos_version!r} is outside "
                                                         f"the supported range {low_high}")
    tiers = [t for t in (ctx.intent.tiers.leaf, ctx.intent.tiers.spine, ctx.intent.tiers.core) if t is not None]
    for path, s in overrides(ctx.intent):
        if not s.nos_version:
            continue
        platforms = [s.platform] if s.platform else sorted({t.platform for t in tiers})
        bad = [(p, r) for p in platforms if (r := unsupported_release(p, s.nos_version))]
        if bad and (s.platform or len(bad) == len(platforms)):
            shown = "; ".join(f"{p}: {r}" for p, r in bad)
            yield Hit(f"{path}.nos_version", f"release {s.nos_version!r} is outside the supported range ({shown})")
