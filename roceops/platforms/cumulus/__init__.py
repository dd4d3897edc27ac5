"""Cumulus Linux NVUE room: ``PLATFORM`` renders ``nvue.commands`` (one ``nv set`` per line).

Safe apply (the driver's job) replays the commands and runs ``nv config apply --confirm <t>``;
:func:`roceops.platforms.cumulus.render.nv_set_conflicts` checks a command list before that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from roceops.platforms.base import NetmikoSettings, RenderOutput
from roceops.platforms.cumulus.driver import DRIVER
from roceops.platforms.cumulus.render import nv_set_conflicts, nv_set_paths, render_context


def _finish(text: str) -> str:
    """Keep only command lines (no blank lines) and end with exactly one newline."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip()) + "\n"


@dataclass(frozen=True)
class CumulusPlatform:
    name: str = "cumulus"
    device_kind: Literal["switch", "host"] = "switch"
    outputs: tuple[RenderOutput, ...] = (
        RenderOutput(filename="nvue.commands", template="main.j2", postprocess=_finish),
    )
    netmiko: NetmikoSettings = field(default_factory=lambda: NetmikoSettings(
        device_type="cumulus_linux",
        # `nv config apply` can take tens of seconds (switchd reload for QoS): allow for it in every read.
        extras={"fast_cli": True, "global_delay_factor": 1, "conn_timeout": 20, "read_timeout_override": 120},
    ))

    def render_context(self, device: Any) -> dict[str, Any]:
        return render_context(device)


PLATFORM = CumulusPlatform()

__all__ = ["DRIVER", "PLATFORM", "CumulusPlatform", "nv_set_conflicts", "nv_set_paths", "render_context"]
