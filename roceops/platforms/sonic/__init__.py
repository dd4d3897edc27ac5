"""SONiC room: ``PLATFORM`` renders ``config_db.json`` (a CONFIG_DB document) from a SwitchIntent.

The rendered document validates against SONiC's own YANG models
(:func:`roceops.platforms.sonic.yang.get_validator`). Safe apply (the driver's job) turns it into a
``config apply-patch`` after a ``config checkpoint``.
"""

from __future__ import annotations

from roceops.hardware.front_panel import SkuPortNaming
from roceops.model.intent import PortNaming
from roceops.platforms.base import NetmikoSettings, Platform, PlatformCode, RenderOutput
from roceops.platforms.lb_support import LbSupport
from roceops.platforms.sonic import driver as _driver
from roceops.platforms.sonic.breakout_hash import HASH_FIELDS
from roceops.platforms.sonic.config_db_text import SonicRenderError, canonical_config_db
from roceops.platforms.sonic.frr import frr_bgpd_conf
from roceops.platforms.sonic.render import render_context

PLATFORM = Platform(
    name="sonic",
    title="SONiC",
    kind="switch",
    outputs=(RenderOutput(filename="config_db.json", template="main.j2"),),
    netmiko=NetmikoSettings(
        # netmiko 4.8 has no community-SONiC device type ("sonic" is not in CLASS_MAPPER): `dell_sonic`
        # drops into Dell Enterprise SONiC's klish `sonic-cli`, which community images lack, and
        # `edgecore_sonic` is a bare subclass of LinuxSSH. SONiC logs in to bash, so use `linux`
        # (sudo via enable()/secret for `config ...`).
        device_type="linux",
        # `config apply-patch` / `config reload` can run for minutes on a loaded box.
        extras={"conn_timeout": 20, "read_timeout_override": 300},
    ),
    code=PlatformCode(context=render_context, driver=_driver.DRIVER, routing_translation=frr_bgpd_conf,
                      postprocess={"config_db.json": canonical_config_db}),
    lab_device="roceops.lab.devices.sonic",
    gnmi_paths="roceops.platforms.sonic.gnmi_paths",
    # SONiC names a port after its first lane; 8 lanes per port on the 400G/800G ASICs roceops targets
    port_naming=PortNaming(pattern="Ethernet{n}", start=0, step=8),
    show_commands=_driver.COLLECT,
    failure_patterns=(_driver.FAILURE,),
    # sonic-pfcwd.yang accepted ranges, ms (docs/platforms.md, PFC_WD)
    pfcwd_ranges_ms={"detect_ms": (100, 5000), "restore_ms": (100, 60_000), "poll_ms": (100, 1000)},
    routing_source="config_db.json",
    lab_reads_frr=True,
    supported_releases=((202305,), (202511,)),  # releases the templates are written for
    sku_port_naming=SkuPortNaming(sku_names=True),  # the SKU's own names (port_config.ini), lanes, alias, index
    sku_built=True,  # PORT and BUFFER_* come from the SKU folder (port_config.ini, buffers_defaults_<topo>.j2)
    dated_releases=True,  # SONiC builds are named by date: 20230531.22 is the 202305 branch
    # SONiC: SWITCH_HASH|GLOBAL ecmp_hash (sonic-hash.yang in shared/sonic-yang; breakout_hash.py) carries the
    # 5-tuple fields; that YANG set has no seed leaf, no RoCE BTH hash field and no AR/DLB table.
    lb_support=LbSupport(frozenset(HASH_FIELDS), False, frozenset({"ecmp"}),
        "SONiC: sonic-hash.yang's SWITCH_HASH|GLOBAL ecmp_hash takes the 5-tuple fields only; the YANG models "
        "roceops validates against define no hash seed, no RoCE BTH field and no AR/DLB table"),
    vocabulary=("sonic", "config_db", "sonic-cfggen", "apply-patch", "redis-cli"),
)
DRIVER = _driver.DRIVER

__all__ = ["DRIVER", "PLATFORM", "SonicRenderError", "canonical_config_db", "render_context"]
