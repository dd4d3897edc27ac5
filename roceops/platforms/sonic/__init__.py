"""SONiC room: ``PLATFORM`` renders ``config_db.json`` (a CONFIG_DB document) from a SwitchIntent.

The rendered document validates against SONiC's own YANG models
(:func:`roceops.platforms.sonic.yang.get_validator`). Safe apply (the driver's job) turns it into a
``config apply-patch`` after a ``config checkpoint``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from roceops.platforms.base import NetmikoSettings, RenderOutput
from roceops.platforms.sonic.render import BufferModel, SonicRenderError, canonical_config_db, render_context


@dataclass(frozen=True)
class SonicPlatform:
    name: str = "sonic"
    device_kind: Literal["switch", "host"] = "switch"
    outputs: tuple[RenderOutput, ...] = (
        RenderOutput(filename="config_db.json", template="main.j2", postprocess=canonical_config_db),
    )
    netmiko: NetmikoSettings = field(default_factory=lambda: NetmikoSettings(
        # netmiko 4.8 has no community-SONiC device type ("sonic" is not in CLASS_MAPPER): `dell_sonic`
        # drops into Dell Enterprise SONiC's klish `sonic-cli`, which community images lack, and
        # `edgecore_sonic` is a bare subclass of LinuxSSH. SONiC logs in to bash, so use `linux`
        # (sudo via enable()/secret for `config ...`).
        device_type="linux",
        # `config apply-patch` / `config reload` can run for minutes on a loaded box.
        extras={"conn_timeout": 20, "read_timeout_override": 300},
    ))
    buffer_model: BufferModel | None = None  # None: what the intent says (traditional today)

    def render_context(self, device: Any) -> dict[str, Any]:
        return render_context(device, buffer_model=self.buffer_model)


PLATFORM = SonicPlatform()

from roceops.platforms.sonic.driver import DRIVER  # noqa: E402  (after PLATFORM: the driver imports this package)

__all__ = ["DRIVER", "PLATFORM", "SonicPlatform", "SonicRenderError", "canonical_config_db", "render_context"]
