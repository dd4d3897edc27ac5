"""Arista EOS room: ``PLATFORM`` renders ``config.eos`` (running-config style CLI) from a SwitchIntent.

Safe apply (the driver's job) feeds :func:`roceops.platforms.eos.render.config_lines` of that file
to a ``configure session`` and commits with ``commit timer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from roceops.platforms.base import NetmikoSettings, RenderOutput
from roceops.platforms.eos.driver import DRIVER
from roceops.platforms.eos.render import config_lines, render_context


def _finish(text: str) -> str:
    """Drop blank lines the includes leave behind and end with exactly one newline."""
    return "\n".join(filter(None, map(str.rstrip, text.splitlines()))) + "\n"  # all-blank lines rstrip to ""


@dataclass(frozen=True)
class EosPlatform:
    name: str = "eos"
    device_kind: Literal["switch", "host"] = "switch"
    outputs: tuple[RenderOutput, ...] = (RenderOutput(filename="config.eos", template="main.j2", postprocess=_finish),)
    netmiko: NetmikoSettings = field(default_factory=lambda: NetmikoSettings(
        device_type="arista_eos",
        # fast_cli trims netmiko's fixed sleeps; EOS answers promptly, so the default delay factor is enough.
        extras={"fast_cli": True, "global_delay_factor": 1, "conn_timeout": 20},
        session_lines=("terminal width 511", "terminal length 0"),  # Netmiko's arista_eos session_preparation
    ))

    def render_context(self, device: Any) -> dict[str, Any]:
        return render_context(device)


PLATFORM = EosPlatform()

__all__ = ["DRIVER", "PLATFORM", "EosPlatform", "config_lines", "render_context"]
