"""``lab inject --help``: every fault the lab takes, with its parameters and platforms, read from the simulated
devices' own registry (``DeviceState.fault_catalogue``) when the help is shown, so the two cannot drift apart."""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

from roceops.lab.personality import LAB_ONLY_DEVICES, available_platforms, get_personality


def fault_catalogue() -> dict[str, dict[str, tuple[str, ...]]]:
    """fault -> {platform: its parameters} over every platform the lab simulates."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for platform in available_platforms():
        if platform in LAB_ONLY_DEVICES:
            continue
        state = get_personality(platform).state_factory
        for fault, params in getattr(state, "fault_catalogue", dict)().items():
            out.setdefault(fault, {})[platform] = params
    return dict(sorted(out.items()))


def fault_lines() -> list[str]:
    """One line per fault: ``pfc_off port= priority= (cumulus, eos, linux_mlx5, sonic)``."""
    every = sorted(p for p in available_platforms() if p not in LAB_ONLY_DEVICES)
    lines = []
    for fault, by_platform in fault_catalogue().items():
        params = sorted({p for ps in by_platform.values() for p in ps})
        where = "every platform" if sorted(by_platform) == every else ", ".join(sorted(by_platform))
        lines.append(f"{fault}{''.join(' ' + p + '=' for p in params)} ({where})")
    return lines


class InjectCommand(TyperCommand):
    """The inject command: its help ends with the fault list, built when the help is shown (not at import)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        if not self.epilog:
            self.epilog = "Faults (parameters as --port P or --param key=value):\n" + "\n".join(fault_lines())
        super().format_help(ctx, formatter)
