"""Hardware profiles: switch SKUs as their vendors' files describe them.

``switch_profile(name)`` returns the catalogue entry for a SONiC hwsku. The shipped catalogue
(``roceops/hardware/catalogue/*.json``) is built by :func:`roceops.hardware.importer.import_sku`
from the sonic-buildimage SKU files in ``../shared/reference/hardware/sonic/skus/``; directories
named in ``ROCEOPS_HARDWARE_CATALOGUE`` (``os.pathsep``-separated) are searched first, so a user
adds a SKU with ``roceops hardware import DIR --out <dir>/<hwsku>.json``.
"""

from __future__ import annotations

from roceops.hardware.catalogue_store import (
    CATALOGUE_ENV,
    SHIPPED_CATALOGUE,
    UnknownSwitchProfile,
    catalogue_dirs,
    switch_profile,
    switch_profile_names,
)
from roceops.hardware.models import (
    FEATURE_NAMES,
    UNCONFIRMED,
    BreakoutMode,
    BufferPool,
    BufferProfile,
    BufferSpec,
    Cage,
    FeatureFlags,
    MtuRange,
    SourceFile,
    SwitchPort,
    SwitchProfile,
)

__all__ = [
    "CATALOGUE_ENV", "FEATURE_NAMES", "SHIPPED_CATALOGUE", "UNCONFIRMED", "BreakoutMode", "BufferPool",
    "BufferProfile", "BufferSpec", "Cage", "FeatureFlags", "MtuRange", "SourceFile", "SwitchPort", "SwitchProfile",
    "UnknownSwitchProfile", "catalogue_dirs", "switch_profile", "switch_profile_names",
]
