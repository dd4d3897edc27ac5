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


def four_su_intent(lab_mini: dict) -> dict:
    """lab-mini grown to 4 SUs with EOS leaves everywhere (no Cumulus SU): SU1 and SU4 are the
    representatives of ``verify routing --by-class``, SU2 and SU3 are proven by class. EOS, because its
    translation without ``maximum-paths`` installs one path (EOS's default), so a missing statement shows."""
    doc = dict(lab_mini)
    doc["name"] = "classes-4su"
    doc["scalable_units"] = {**doc["scalable_units"], "count": 4}
    doc["overrides"] = {"groups": {}}
    doc["tiers"] = {**doc["tiers"], "leaf": {"model": "eos-8x400g", "platform": "eos", "nos_version": "4.32"}}
    return doc


def without_maximum_paths(config_eos: str) -> str:
    return "\n".join(ln for ln in config_eos.splitlines() if "maximum-paths" not in ln)
