"""Facts the SKU files do not hold: a platform's ASIC family and the family's load-balancing features.

They live as data in ``asic_facts.json`` (package data), each with where it was confirmed: a feature no
vendor source confirms is False with the source ``unconfirmed`` (never guessed). Flags describe the ASIC
as its vendor documents it; whether a NOS exposes the feature is the platform room's business
(docs/platforms.md, "Hardware profiles"). Sources, as recorded there: adaptive routing = the NVIDIA NVUE
reference page "Adaptive Routing" (Spectrum-4 from release 5.6); hash seed = Linux commit
60bcfede3f9f54d4f1614906dd73e6acc23e9518 (Spectrum ECMP seed, RECR_v2); Tomahawk 5 DLB = Broadcom's
BCM78900 announcement (2022-08).
"""

from __future__ import annotations

import json
from pathlib import Path

from roceops.hardware.models import FeatureFlags, Sourced

_FACTS = json.loads((Path(__file__).parent / "asic_facts.json").read_text())

# SONiC platform string -> ASIC family.
PLATFORM_ASICS: dict[str, Sourced] = {
    name: Sourced.model_validate(v) for name, v in _FACTS["platform_asics"].items()}
FAMILY_FEATURES: dict[str, FeatureFlags] = {
    name: FeatureFlags.model_validate(v) for name, v in _FACTS["family_features"].items()}

# platform_qos.json QOS_CAPABILITY_TABLE|qos "roce_hash": "true" is the SKU vendor's own statement of RoCE
# hashing (Dell-Z9864f-O64, sonic-buildimage @ 086b03bd70f9e211aaaf5f6aefe0790b508d2a94).
QOS_CAPABILITY_KEY = "QOS_CAPABILITY_TABLE|qos"


def vendor_of(hwsku: str) -> str:
    """``Mellanox-SN5600-O128`` -> ``mellanox``: SONiC hwsku names start with the vendor, as sonic-buildimage's
    ``device/<vendor>/`` folders are named (platform strings mix ``nvidia_`` and ``mlnx_`` for one vendor)."""
    return hwsku.split("-", 1)[0].lower()
