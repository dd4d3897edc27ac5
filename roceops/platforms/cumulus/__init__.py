"""Cumulus Linux NVUE room: ``PLATFORM`` renders ``nvue.commands`` (one ``nv set`` per line).

Safe apply (the driver's job) replays the commands and runs ``nv config apply --confirm <t>``;
:func:`roceops.platforms.cumulus.render.nv_set_conflicts` checks a command list before that.
"""

from __future__ import annotations

from roceops.hardware.front_panel import SkuPortNaming
from roceops.model.intent import PortNaming
from roceops.model.load_balancing import FIVE_TUPLE
from roceops.platforms.base import NetmikoSettings, Platform, PlatformCode, RenderOutput
from roceops.platforms.cumulus import driver as _driver
from roceops.platforms.cumulus.driver import DRIVER
from roceops.platforms.cumulus.frr import frr_bgpd_conf
from roceops.platforms.cumulus.render import nv_set_conflicts, nv_set_paths, render_context
from roceops.platforms.lb_support import LbSupport


def _finish(text: str) -> str:
    """Keep only command lines (no blank lines) and end with exactly one newline."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip()) + "\n"


PLATFORM = Platform(
    name="cumulus",
    title="Cumulus Linux",
    kind="switch",
    outputs=(RenderOutput(filename="nvue.commands", template="main.j2"),),
    netmiko=NetmikoSettings(
        device_type="cumulus_linux",
        # `nv config apply` can take tens of seconds (switchd reload for QoS): allow for it in every read.
        extras={"fast_cli": True, "global_delay_factor": 1, "conn_timeout": 20, "read_timeout_override": 120},
    ),
    code=PlatformCode(context=render_context, driver=DRIVER, routing_translation=frr_bgpd_conf,
                      postprocess={"nvue.commands": _finish}),
    lab_device="roceops.lab.devices.cumulus",
    gnmi_paths="roceops.platforms.cumulus.gnmi_paths",
    port_naming=PortNaming(pattern="swp{n}", start=1, step=1),  # Cumulus front-panel ports: swp1..swpN
    # a SKU's cages: swp<cage>, split ones swp<cage>s<k> (SN5600 2x400G of an 800G cage), breakout on the cage;
    # CumulusNetworks/docs content/cumulus-linux-515/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/
    # Switch-Port-Attributes.md @ 2d5756cced24e376c6247eab19847384125165b6 ("Configure a Breakout Port")
    sku_port_naming=SkuPortNaming(port="swp{cage}", split_port="swp{cage}s{k}", cage="swp{cage}"),
    show_commands=(*_driver.GLOBAL_SHOWS, *(f"nv show interface <port> {s}" for s in _driver.PORT_SHOWS)),
    failure_patterns=(_driver.ERROR,),
    routing_source="nvue.commands",
    lab_reads_frr=True,
    # releases the templates are written for; 5.15+ wording (issue 16: `state enabled`, `ipv4 address`) is unconfirmed
    supported_releases=((5, 9), (5, 16)),  # 5.15+ spelling: releases.py
    # NVUE 5.x <= 5.14 (docs/platforms.md, "Load balancing"): `nv set system forwarding ecmp-hash <field> on|off`,
    # `nv set system forwarding hash-seed <0-4294967295>` (5.2.0+), `nv set router adaptive-routing enable on` and
    # `nv set interface <port> router adaptive-routing enable on` (5.1.0+): CumulusNetworks/docs
    # content/nvue-reference/Set-and-Unset-Commands/System-Forwarding.md @ 9b27575fbf81abe6a3f111abb7254b9e5b62e2ce,
    # .../Adaptive-Routing.md @ 4e1a49e6a0bb72a45606133d2cd2a9b8c2db9341; AR speeds and the seed's switchd restart:
    # content/cumulus-linux-514/Layer-3/Routing/Equal-Cost-Multipath-Load-Sharing.md
    # @ 3209fbc5912b976d068ad61ac4fbff5421e3b159
    # ("Spectrum-4 ASIC at 400G and 200G speeds", "does not support adaptive routing on 800G links"; "Configuring
    # the hash seed restarts the `switchd` service, which causes all network ports to reset"). No source found for
    # flowlet/DLB or a BTH/QP hash field.
    lb_support=LbSupport(frozenset(FIVE_TUPLE), True, frozenset({"ecmp", "adaptive"}),
        "Cumulus NVUE: no confirmed syntax for dynamic load balancing or hashing on the RoCE destination QP",
        adaptive_speeds=frozenset({200_000, 400_000}),
        adaptive_speeds_source="Cumulus Linux 5.14 docs, Equal Cost Multipath Load Sharing: adaptive routing on "
                               "Spectrum-4 at 400G and 200G, not on 800G links",
        seed_disruption="applying a new hash seed restarts switchd, which resets every network port of the switch "
                        "(Cumulus Linux 5.14 docs, Equal Cost Multipath Load Sharing, Unique Hash Seed)"),
    vocabulary=("cumulus", "nvue", "nv set", "nv unset", "nv config", "nv show", "swp"),
)

__all__ = ["DRIVER", "PLATFORM", "nv_set_conflicts", "nv_set_paths", "render_context"]
