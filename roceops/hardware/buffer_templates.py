"""Read a SKU's default buffers by rendering its ``buffers_defaults_<topo>.j2`` macros.

sonic-buildimage's shared ``buffers_config.j2`` (sonic-config-engine) imports the SKU's
``buffers_defaults_<topo>.j2`` and calls its macros: ``generate_buffer_pool_and_profiles[_with_inactive_ports]``,
``generate_profile_lists_with_inactive_ports``, ``generate_queue_buffers_with_inactive_ports`` and
``generate_pg_profiles_with_inactive_ports``; each renders a JSON fragment (``"TABLE": {...}``).
We call the same macros in a sandboxed Jinja environment that can only load files from the SKU
folder, with one active and one inactive sample port, and read the numbers from the JSON they
produce: nothing is hand-copied. Macros a SKU does not define are skipped (Dell-Z9864f-O64 only
defines pools and profiles; its queues and PGs come from the shared template, which is not a SKU file).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from roceops.hardware.models import BufferPool, BufferProfile, BufferSpec, LosslessPgEntry
from roceops.hardware.sku_files import SkuFileError

ACTIVE, INACTIVE = "Ethernet0", "Ethernet4"
# sonic-buildimage files/build_templates/buffers_config.j2 @ 02aaf5c36e97231dd0be28245269a0c17431fe9f: a SKU
# without queue/PG macros gets BUFFER_QUEUE <port>|3-4 egress_lossless_profile and, in dynamic mode, BUFFER_PG
# <port>|3-4 NULL from the shared template itself.
SHARED_LOSSLESS_IDS = (3, 4)
_PROFILE_REF = re.compile(r"^\[BUFFER_(?:POOL|PROFILE)\|(.+)\]$")


def _module(sku_dir: Path, template: str, dynamic: bool) -> Any:
    env = SandboxedEnvironment(loader=jinja2.FileSystemLoader(str(sku_dir)), undefined=jinja2.Undefined,
                               autoescape=False)
    context = {"dynamic_mode": "true"} if dynamic else {}
    try:
        return env.get_template(template).make_module(context)
    except jinja2.TemplateError as exc:
        raise SkuFileError(f"{sku_dir / template}: cannot render ({exc})") from None


def _fragment(module: Any, macro: str, *args: str) -> dict[str, Any]:
    """Call ``macro`` if the template defines it and parse its ``"TABLE": {...}`` output."""
    fn = getattr(module, macro, None)
    if fn is None:
        return {}
    text = str(fn(*args)).strip().rstrip(",")
    if not text:
        return {}
    try:
        data = json.loads("{" + text + "}")
    except json.JSONDecodeError as exc:
        raise SkuFileError(f"macro {macro} did not render JSON ({exc.msg} at char {exc.pos})") from None
    return data if isinstance(data, dict) else {}


def _ref(value: str) -> str:
    """``[BUFFER_POOL|egress_lossless_pool]`` (older key form) -> ``egress_lossless_pool``."""
    m = _PROFILE_REF.match(value)
    return m.group(1) if m else value


def _ids(key_range: str) -> tuple[int, ...]:
    lo, _, hi = key_range.partition("-")
    return tuple(range(int(lo), int(hi or lo) + 1))


def _pools(table: dict[str, Any]) -> tuple[BufferPool, ...]:
    return tuple(BufferPool(name=name, type=v["type"], mode=v["mode"],
                            size=int(v["size"]) if "size" in v else None,
                            xoff=int(v["xoff"]) if "xoff" in v else None) for name, v in table.items())


def _profiles(table: dict[str, Any]) -> tuple[BufferProfile, ...]:
    return tuple(BufferProfile(name=name, pool=_ref(v["pool"]), size=int(v["size"]),
                               dynamic_th=int(v["dynamic_th"]) if "dynamic_th" in v else None,
                               static_th=int(v["static_th"]) if "static_th" in v else None)
                 for name, v in table.items())


def _lossless_ids(table: dict[str, Any], lossless: str) -> tuple[int, ...]:
    """Queue/PG ids of the active sample port whose profile is ``lossless``."""
    out: set[int] = set()
    for key, v in table.items():
        port, _, ids = key.partition("|")
        if port == ACTIVE and _ref(v.get("profile", "")) == lossless:
            out.update(_ids(ids))
    return tuple(sorted(out))


def _lossy_queue_profile(table: dict[str, Any]) -> str:
    """The profile queue 0 of the active sample port gets (q_lossy_profile on Mellanox)."""
    for key, v in table.items():
        port, _, ids = key.partition("|")
        if port == ACTIVE and 0 in _ids(ids):
            return _ref(v.get("profile", ""))
    return "egress_lossy_profile"  # buffers_config.j2's own BUFFER_QUEUE <port>|0-2


def _profile_list(table: dict[str, Any]) -> tuple[str, ...]:
    entry = table.get(ACTIVE, {})
    return tuple(_ref(p) for p in str(entry.get("profile_list", "")).split(",") if p)


def read_buffer_spec(sku_dir: Path, template: str, pg_lossless: list[LosslessPgEntry]) -> BufferSpec | None:
    """The pools, profiles, profile lists and lossless queue/PG ids ``template`` renders; None when its pool and
    profile macro renders nothing (the SKU leaves buffers to its ASIC configuration: sonic-buildimage
    device/common/profiles/th5/gen/BALANCED/buffers_defaults_t0.j2 @ 086b03bd70f9e211aaaf5f6aefe0790b508d2a94,
    "Skip BUFFER_POOL, BUFFER_PROFILE")."""
    static = _module(sku_dir, template, dynamic=False)
    dynamic = _module(sku_dir, template, dynamic=True)
    tables = _fragment(static, "generate_buffer_pool_and_profiles_with_inactive_ports", INACTIVE) or \
        _fragment(static, "generate_buffer_pool_and_profiles")
    if not tables:
        return None
    if "BUFFER_POOL" not in tables or "BUFFER_PROFILE" not in tables:
        raise SkuFileError(f"{sku_dir / template}: renders no BUFFER_POOL/BUFFER_PROFILE")
    lists = _fragment(static, "generate_profile_lists_with_inactive_ports", ACTIVE, INACTIVE)
    queues = _fragment(static, "generate_queue_buffers_with_inactive_ports", ACTIVE, INACTIVE)
    pgs = _fragment(dynamic, "generate_pg_profiles_with_inactive_ports", ACTIVE, INACTIVE)
    pools = _pools(tables["BUFFER_POOL"])
    egress_lossless = next((p for p in pools if p.name == "egress_lossless_pool"), None)
    if egress_lossless is None:
        raise SkuFileError(f"{sku_dir / template}: no egress_lossless_pool")
    lossless_queues = _lossless_ids(queues.get("BUFFER_QUEUE", {}), "egress_lossless_profile")
    lossless_pgs = _lossless_ids(pgs.get("BUFFER_PG", {}), "NULL")
    from_sku = bool(queues) and bool(pgs)
    default_cable = str(getattr(static, "default_cable", "") or "")
    if not default_cable:
        raise SkuFileError(f"{sku_dir / template}: sets no default_cable")
    return BufferSpec(
        template=template, model=egress_lossless.mode,
        dynamic_calculation=(sku_dir / "buffers_dynamic.json.j2").is_file(),
        default_cable=default_cable, pools=pools, profiles=_profiles(tables["BUFFER_PROFILE"]),
        ingress_profile_list=_profile_list(lists.get("BUFFER_PORT_INGRESS_PROFILE_LIST", {})),
        egress_profile_list=_profile_list(lists.get("BUFFER_PORT_EGRESS_PROFILE_LIST", {})),
        lossless_queues=lossless_queues if from_sku else SHARED_LOSSLESS_IDS,
        lossless_pgs=lossless_pgs if from_sku else SHARED_LOSSLESS_IDS,
        lossless_from="sku" if from_sku else "buffers_config.j2",
        lossy_queue_profile=_lossy_queue_profile(queues.get("BUFFER_QUEUE", {})),
        pg_lossless=tuple(pg_lossless),
    )
