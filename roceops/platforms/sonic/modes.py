"""SONiC modes in effect (pure): which buffer manager and which routing-config daemon the switch runs now.

CONFIG_DB says which modes a switch *should* run (DEVICE_METADATA ``buffer_model``,
``frr_mgmt_framework_config``), but the services read them only when they start (roceops.platforms.sonic.route).
The processes show what is in effect:

=====================  ===========================================  ============================================
mode                   process (``pgrep -af``: pid, command line)    source
=====================  ===========================================  ============================================
buffer model           ``buffermgrd -a /etc/sonic/asic_table.json``  sonic-buildimage dockers/docker-orchagent/
                       (dynamic) or ``-l .../pg_profile_lookup.ini``  buffermgrd.sh
                       (traditional)
routing config         ``frrcfgd`` (the frrcfgd templates: CONFIG_DB  docker-fpm-frr supervisord.conf.common.j2
                       routing tables, host subnets announced) or     @086b03bd: frrcfgd when
                       ``bgpcfgd`` (the classic templates)            frr_mgmt_framework_config is "true"
breakout               CONFIG_DB ``BREAKOUT_CFG|<cage>`` ``brkout_mode``  sonic-breakout_cfg.yang; `config interface
                       (what Dynamic Port Breakout last applied)      breakout` writes it with the child ports
=====================  ===========================================  ============================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MODES_COMMAND = "pgrep -af 'buffermgrd|frrcfgd|bgpcfgd'"
_BUFFERMGRD = re.compile(r"^\d+\s+\S*buffermgrd\b(?P<args>.*)$", re.M)
_DAEMON = re.compile(r"^\d+\s+.*\b(?P<name>frrcfgd|bgpcfgd)\b", re.M)


def modes_in_effect(text: str) -> dict[str, str | None]:
    """``pgrep -af`` output -> ``{"buffer_model": dynamic|traditional|None, "routing_config": frrcfgd|bgpcfgd|None}``.

    >>> modes_in_effect("812 /usr/bin/buffermgrd -l /usr/share/sonic/hwsku/pg_profile_lookup.ini\\n"
    ...                 "907 /usr/bin/python3 /usr/local/bin/bgpcfgd\\n")
    {'buffer_model': 'traditional', 'routing_config': 'bgpcfgd'}
    """
    buf = _BUFFERMGRD.search(text)
    model = None if buf is None else "dynamic" if " -a " in f"{buf.group('args')} " else "traditional"
    daemon = _DAEMON.search(text)
    return {"buffer_model": model, "routing_config": daemon.group("name") if daemon else None}


def breakout_problems(running: Mapping[str, Any], wanted: list[dict[str, str]]) -> list[str]:
    """Cages whose running ``BREAKOUT_CFG`` mode is not the one the plan needs (``wanted``: breakout_hash.breakout_cfg).

    >>> breakout_problems({"BREAKOUT_CFG": {"Ethernet0": {"brkout_mode": "1x800G"}}},
    ...                   [{"port": "Ethernet0", "mode": "2x400G(8)"}])
    ['cage Ethernet0 runs breakout 1x800G, the plan needs 2x400G(8)']
    """
    table = running.get("BREAKOUT_CFG") or {}
    out = []
    for b in wanted:
        have = (table.get(b["port"]) or {}).get("brkout_mode")
        if have != b["mode"]:
            out.append(f"cage {b['port']} runs breakout {have or '(none)'}, the plan needs {b['mode']}")
    return out


def mode_problems(text: str, buffer_model: str, routing_config: str = "frrcfgd") -> list[str]:
    """What runs now that differs from what the rendered config asks (empty: every mode in effect)."""
    found = modes_in_effect(text)
    out: list[str] = []
    if found["buffer_model"] != buffer_model:
        out.append(f"buffer model in effect is {found['buffer_model'] or 'unknown (no buffermgrd)'}, the config "
                   f"asks {buffer_model}: buffermgrd reads it only at its start")
    if found["routing_config"] != routing_config:
        out.append(f"routing config is run by {found['routing_config'] or 'no cfg daemon'}, the config asks "
                   f"{routing_config} (frr_mgmt_framework_config): the bgp container picks it only at its start")
    return out
