"""Override rules: groups and devices named in ``overrides`` must exist and their settings must apply."""

from __future__ import annotations

import re
from collections.abc import Iterator

from roceops.lint.common import did_you_mean, overrides
from roceops.lint.model import Hit, LintContext, rule
from roceops.model.intent import Settings
from roceops.topology.fabric import Host

FIXED_GROUPS = ("leaf", "spine", "core", "host", "sonic", "cumulus", "eos", "linux_mlx5")
GROUP_RE = re.compile(r"^(leaf|spine|core|host|sonic|cumulus|eos|linux_mlx5|(plane|pod|su|rail)[1-9]\d*)$")
SWITCH_ONLY = re.compile(r"^(leaf|spine|core|sonic|cumulus|eos|(plane|pod)\d+)$")
HOST_ONLY = ("host", "linux_mlx5")


def _group_candidates(ctx: LintContext) -> list[str]:
    i = ctx.intent
    numbered = [f"plane{n}" for n in range(1, i.planes + 1)]
    numbered += [f"su{n}" for n in range(1, i.scalable_units.sized_for + 1)]
    numbered += [f"rail{n}" for n in range(1, i.node.rails + 1)]
    if ctx.fabric is not None:
        numbered += sorted({f"pod{sw.pod}" for sw in ctx.fabric.switches if sw.pod is not None})
    return [*FIXED_GROUPS, *numbered]


@rule("OVR001", "error", "an overrides.groups name is not a group (role, platform, planeN, podN, suN, railN)",
      "use a role (leaf, spine, core, host), a platform, or plane{n}/pod{n}/su{n}/rail{n}")
def unknown_group(ctx: LintContext) -> Iterator[Hit]:
    for name in ctx.intent.overrides.groups:
        if not GROUP_RE.match(name):
            yield Hit(f"overrides.groups.{name}",
                      f"'{name}' is not a group{did_you_mean(name, _group_candidates(ctx))}")


@rule("OVR002", "warning", "an overrides.groups entry matches no device of the fabric (e.g. su5 of 2 SUs)",
      "check the number; groups for SUs not built yet are fine to keep", needs_fabric=True)
def empty_group(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    present: set[str] = set()
    for dev in ctx.fabric.devices():
        present.update(dev.groups)
    for name in ctx.intent.overrides.groups:
        if GROUP_RE.match(name) and name not in present:
            yield Hit(f"overrides.groups.{name}", f"group '{name}' matches no device of this fabric")


@rule("OVR003", "error", "an overrides.devices name is not a device of the fabric",
      "use a device name from `roceops topology` / the expanded fabric", needs_fabric=True)
def unknown_device(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    names = ctx.fabric.by_name
    for name in ctx.intent.overrides.devices:
        if name not in names:
            yield Hit(f"overrides.devices.{name}", f"no device named '{name}'{did_you_mean(name, names)}")


@rule("OVR004", "error", "an override's ecn names a traffic class that does not exist",
      "key ecn overrides by a qos.traffic_classes name")
def unknown_ecn_class(ctx: LintContext) -> Iterator[Hit]:
    classes = [tc.name for tc in ctx.intent.qos.traffic_classes]
    for path, s in overrides(ctx.intent):
        for name in s.ecn or {}:
            if name not in classes:
                yield Hit(f"{path}.ecn.{name}", f"no traffic class named '{name}'{did_you_mean(name, classes)}")


def _target(ctx: LintContext, path: str) -> str | None:
    """'switch', 'host' or None (both / unknown) for an override path."""
    kind, _, name = path.removeprefix("overrides.").partition(".")
    if kind == "groups":
        return "switch" if SWITCH_ONLY.match(name) else "host" if name in HOST_ONLY else None
    if ctx.fabric is None or name not in ctx.fabric.by_name:
        return None
    return "host" if isinstance(ctx.fabric.by_name[name], Host) else "switch"


def _ineffective(target: str | None, s: Settings) -> list[str]:
    if target == "switch":
        return ["dcqcn"] if s.dcqcn is not None else []
    if target == "host":
        return [f for f in ("pfc_watchdog", "ecn", "platform", "load_balancing") if getattr(s, f) is not None]
    return []


@rule("OVR005", "warning", "an override sets something its devices do not use (dcqcn on switches; "
                           "pfc_watchdog, ecn, platform or load_balancing on hosts)",
      "move the setting to a group that has the devices")
def ineffective_setting(ctx: LintContext) -> Iterator[Hit]:
    for path, s in overrides(ctx.intent):
        target = _target(ctx, path)
        for field in _ineffective(target, s):
            yield Hit(f"{path}.{field}", f"{field} has no effect on {'switches' if target == 'switch' else 'hosts'}")
