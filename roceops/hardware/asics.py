"""Facts the SKU files do not hold: a platform's ASIC family and the family's load-balancing features.

Each entry names where it was confirmed. A feature no vendor source confirms is False with the
source ``unconfirmed`` (never guessed). Flags describe the ASIC as its vendor documents it; whether
a NOS exposes the feature is the platform room's business (docs/platforms.md, "Hardware profiles").
"""

from __future__ import annotations

from roceops.hardware.models import UNCONFIRMED, FeatureFlags, Sourced

_SKU_LIST = "../shared/reference/hardware/SOURCES.md (SKU list, from the vendors' product names)"

# SONiC platform string -> ASIC family.
PLATFORM_ASICS: dict[str, Sourced] = {
    "x86_64-nvidia_sn5600-r0": Sourced(value="Spectrum-4", source=_SKU_LIST),
    "x86_64-mlnx_msn4700-r0": Sourced(value="Spectrum-3", source=_SKU_LIST),
    "x86_64-dell_z9864f-r0": Sourced(value="Tomahawk 5", source=_SKU_LIST),
}

_AR_DOC = ("https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Show-Commands/Adaptive-Routing/ "
           "(Cumulus Linux 5.6 supports adaptive routing on Spectrum-4; 5.5 and earlier: Spectrum-2/3 beta only)")
# Spectrum ECMP hashing takes its seed from the RECR_v2 register: mlxsw "spectrum_router: Apply user-defined
# multipath hash seed", Linux commit 60bcfede3f9f54d4f1614906dd73e6acc23e9518.
_SPECTRUM_SEED = "Linux commit 60bcfede3f9f54d4f1614906dd73e6acc23e9518 (mlxsw: Spectrum ECMP hash seed, RECR_v2)"
_TH5_DLB = ("Broadcom Tomahawk 5 (BCM78900) announcement, 2022-08: 'Broadcom Cognitive Routing, dynamic load "
            "balancing' (https://www.signalintegrityjournal.com/articles/2766-broadcom-ships-tomahawk-5-industrys-"
            "highest-bandwidth-switch-chip-to-accelerate-ai-ml-workloads)")

FAMILY_FEATURES: dict[str, FeatureFlags] = {
    "Spectrum-4": FeatureFlags(
        adaptive_routing=True, dynamic_load_balancing=False, udf_hash=False, hash_seed=True,
        sources={"adaptive_routing": _AR_DOC, "dynamic_load_balancing": UNCONFIRMED, "udf_hash": UNCONFIRMED,
                 "hash_seed": _SPECTRUM_SEED}),
    "Spectrum-3": FeatureFlags(
        adaptive_routing=False, dynamic_load_balancing=False, udf_hash=False, hash_seed=True,
        sources={"adaptive_routing": _AR_DOC, "dynamic_load_balancing": UNCONFIRMED, "udf_hash": UNCONFIRMED,
                 "hash_seed": _SPECTRUM_SEED}),
    "Tomahawk 5": FeatureFlags(
        adaptive_routing=False, dynamic_load_balancing=True, udf_hash=False, hash_seed=False,
        sources={"adaptive_routing": UNCONFIRMED, "dynamic_load_balancing": _TH5_DLB, "udf_hash": UNCONFIRMED,
                 "hash_seed": UNCONFIRMED}),
}

# platform_qos.json QOS_CAPABILITY_TABLE|qos "roce_hash": "true" is the SKU vendor's own statement of RoCE
# hashing (Dell-Z9864f-O64, sonic-buildimage @ 086b03bd70f9e211aaaf5f6aefe0790b508d2a94).
QOS_CAPABILITY_KEY = "QOS_CAPABILITY_TABLE|qos"


def vendor_of(hwsku: str) -> str:
    """``Mellanox-SN5600-O128`` -> ``mellanox``: SONiC hwsku names start with the vendor, as sonic-buildimage's
    ``device/<vendor>/`` folders are named (platform strings mix ``nvidia_`` and ``mlnx_`` for one vendor)."""
    return hwsku.split("-", 1)[0].lower()
