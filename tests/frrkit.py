"""Test helpers for the FRR translations and verify routing."""

from __future__ import annotations

import json


def legacy_config_db(text: str) -> str:
    """The pre-issue-16 SONiC render: classic bgpcfgd BGP_NEIGHBOR|<ip>, separated mode, no frrcfgd tables."""
    db = json.loads(text)
    for table in ("BGP_GLOBALS", "BGP_GLOBALS_AF", "BGP_GLOBALS_AF_NETWORK", "BGP_NEIGHBOR_AF", "ROUTE_MAP",
                  "ROUTE_MAP_SET"):
        db.pop(table, None)
    db["BGP_NEIGHBOR"] = {k.split("|")[-1]: v for k, v in db["BGP_NEIGHBOR"].items()}
    meta = db["DEVICE_METADATA"]["localhost"]
    meta["docker_routing_config_mode"] = "separated"
    meta.pop("frr_mgmt_framework_config")
    return json.dumps(db)
