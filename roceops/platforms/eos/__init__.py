"""Arista EOS room: ``PLATFORM`` renders ``config.eos`` (running-config style CLI) from a SwitchIntent.

Safe apply (the driver's job) feeds :func:`roceops.platforms.eos.render.config_lines` of that file
to a ``configure session`` and commits with ``commit timer``.
"""

from __future__ import annotations

from roceops.model.intent import PortNaming
from roceops.platforms.base import NetmikoSettings, Platform, PlatformCode, RenderOutput
from roceops.platforms.eos import driver as _driver
from roceops.platforms.eos.driver import DRIVER
from roceops.platforms.eos.frr import frr_bgpd_conf
from roceops.platforms.eos.render import config_lines, render_context
from roceops.platforms.lb_support import LbSupport

# ASCII text holding none of these is already finished: no blank line, no trailing space, no line break but \n
# (str.splitlines also breaks at \r \v \f \x1c-\x1e; str.rstrip strips every ASCII whitespace, \t and \x1f too);
# single characters are found by memchr, so the rare ones are looked for alone
_UNFINISHED = ("\t", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f", "\n\n", " \n")


def _finish(text: str) -> str:
    """Drop blank lines the includes leave behind and end with exactly one newline.

    The templates leave none, so the whole-text pass runs only where a cheap scan finds something to change.
    """
    if (text.endswith("\n") and not text.startswith("\n") and text.isascii()
            and not any(s in text for s in _UNFINISHED)):
        return text
    return "\n".join(filter(None, map(str.rstrip, text.splitlines()))) + "\n"  # all-blank lines rstrip to ""


PLATFORM = Platform(
    name="eos",
    title="Arista EOS",
    kind="switch",
    outputs=(RenderOutput(filename="config.eos", template="main.j2"),),
    netmiko=NetmikoSettings(
        device_type="arista_eos",
        # fast_cli trims netmiko's fixed sleeps; EOS answers promptly, so the default delay factor is enough.
        extras={"fast_cli": True, "global_delay_factor": 1, "conn_timeout": 20},
        session_lines=("terminal width 511", "terminal length 0"),  # Netmiko's arista_eos session_preparation
    ),
    code=PlatformCode(context=render_context, driver=DRIVER, routing_translation=frr_bgpd_conf,
                      postprocess={"config.eos": _finish}),
    lab_device="roceops.lab.devices.eos",
    gnmi_paths="roceops.platforms.eos.gnmi_paths",
    port_naming=PortNaming(pattern="Ethernet{n}/1", start=1, step=1),  # first lane of each front-panel port
    show_commands=_driver.COLLECT,
    failure_patterns=(_driver.EOS_ERROR,),
    routing_source="config.eos",
    supported_releases=((4, 28), (4, 34)),  # releases the templates are written for
    # EOS: AVD models hash fields only for SAND (Jericho) platforms (load_balance.policies.sand_profiles,
    # EOS >= 4.33.1F); DLB exists (EOS 4.30.0F TOI) but its CLI is not confirmed by any source in hand.
    lb_support=LbSupport(frozenset(), False, frozenset({"ecmp"}),
        "EOS: no confirmed hash-field, seed, DLB or AR syntax for the modelled (non-SAND) switches"),
    vocabulary=("eos", "arista", "configure session"),
)

__all__ = ["DRIVER", "PLATFORM", "config_lines", "render_context"]
