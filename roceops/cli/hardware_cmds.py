"""``roceops hardware ...``: the switch hardware catalogue (list, show, import vendor SKU files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from roceops.cli.common import console, fail, path_value, print_json
from roceops.util.safe_write import write_file

if TYPE_CHECKING:  # imported where used (CLI start-up time: tests/cli/test_startup_imports.py)
    from roceops.hardware.model_profiles import ModelProfile
    from roceops.hardware.models import SwitchProfile

app = typer.Typer(help="Switch hardware profiles from vendor files.", no_args_is_help=True)


def profile_json(profile: SwitchProfile) -> str:
    """The catalogue file form of a profile: sorted keys, two-space indent, trailing newline."""
    return json.dumps(profile.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"


@app.command("list")
def list_profiles() -> None:
    """List the switch profiles the catalogues hold.

    Example: roceops hardware list
    """
    from rich.table import Table

    from roceops.hardware import switch_profile, switch_profile_names
    from roceops.hardware.model_profiles import model_profile, model_profile_names

    table = Table("hwsku", "vendor", "platform", "ASIC", "ports", "buffer model")
    for name in switch_profile_names():
        p = switch_profile(name)
        models: list[str] = sorted({spec.model for spec in p.buffers.values()}) or [
            "vendor-managed" if p.vendor_managed_buffers is not None else "-"]
        table.add_row(p.name, p.vendor, p.platform, p.asic_family.value, str(len(p.ports)), ",".join(models))
    console.print(table)
    models_table = Table("model", "vendor", "platform", "ASIC", "ports", "queue keyword")
    for name in model_profile_names():  # switch models of NOSes without SKU files (roceops/hardware/model_catalogue)
        m = model_profile(name)
        models_table.add_row(m.name, m.vendor, m.platform, m.asic.value, f"{m.ports.count} x {m.ports.cage}",
                             m.queues.keyword)
    console.print(models_table)


def show_model(m: ModelProfile) -> None:
    """A model profile's facts, each with its source."""
    from roceops.model.types import format_speed

    console.print(f"{m.name}: {m.vendor} {m.family} ({m.architecture}), ASIC {m.asic.value} ({m.asic.source})")
    console.print(f"ports: {m.ports.count} x {m.ports.cage}, named like {m.ports.example} ({m.ports.source})")
    for s in m.speeds:
        console.print(f"speed {format_speed(s.speed)}: {s.keyword} ({s.source})")
    console.print(f"MTU {m.mtu.min}-{m.mtu.max} ({m.mtu.source})")
    lossless = m.queues.lossless if m.queues.lossless is not None else "unconfirmed"
    console.print(f"queues: {m.queues.keyword} {list(m.queues.configurable)} ({m.queues.keyword_source}); lossless "
                  f"{lossless} ({m.queues.lossless_source})")
    for name in ("ecn", "pfc", "pfc_watchdog"):
        f = getattr(m, name)
        console.print(f"{name}: {'confirmed' if f.supported else 'refused'} ({f.source})")
    console.print(f"hash fields/seed: {m.load_balancing.hash_fields or 'unconfirmed'} ({m.load_balancing.source})")


@app.command("show")
def show(name: str = typer.Argument(..., help="hwsku, e.g. Mellanox-SN5600-O128"),
         as_json: bool = typer.Option(False, "--json", help="the whole profile as JSON")) -> None:
    """Show one profile: ports, speeds, buffers, features and where each came from.

    Example: roceops hardware show Mellanox-SN5600-O128
    """
    from roceops.hardware import UnknownSwitchProfile, switch_profile
    from roceops.hardware.model_profiles import find_model_profile
    from roceops.model.types import format_speed

    if (model := find_model_profile(name)) is not None:
        if as_json:
            print_json(model.model_dump(mode="json"))
        else:
            show_model(model)
        return
    try:
        p = switch_profile(name)
    except UnknownSwitchProfile as exc:
        fail(str(exc))
    if as_json:
        print_json(p.model_dump(mode="json"))
        return
    speeds = sorted({s.speed for s in p.ports}, reverse=True)
    console.print(f"{p.name}: {p.vendor} {p.platform}, ASIC {p.asic_family.value} ({p.asic_family.source})")
    console.print("ports: " + ", ".join(f"{len(p.ports_at(s))} x {format_speed(s)}" for s in speeds)
                  + f" ({p.ports[0].name}..{p.ports[-1].name}); MTU {p.mtu.min}-{p.mtu.max}; largest buffer pool "
                  f"{p.buffer_bytes if p.buffer_bytes is not None else '-'} B; lossless queues "
                  f"{p.lossless_classes if p.lossless_classes is not None else '-'}")
    if p.vendor_managed_buffers is not None:
        console.print(f"buffers: vendor-managed, no BUFFER_* tables rendered ({p.vendor_managed_buffers.reason})")
    for topo, spec in p.buffers.items():
        pools = ", ".join(f"{x.name}={x.size if x.size is not None else '-'}" for x in spec.pools)
        console.print(f"buffers {topo} ({spec.template}): {spec.model} model, lossless queues "
                      f"{list(spec.lossless_queues)}; {pools}")
    for flag in ("adaptive_routing", "dynamic_load_balancing", "udf_hash", "hash_seed"):
        console.print(f"{flag}: {getattr(p.features, flag)} ({p.features.source_of(flag)})")
    console.print("files: " + ", ".join(f"{s.path} ({s.sha256[:12]})" for s in p.sources))


@app.command("import")
def import_cmd(
    sku_dirs: list[Path] = typer.Argument(..., help="vendor SKU folders (port_config.ini, hwsku.json, ...)",
                                          parser=path_value),
    out: Path | None = typer.Option(None, "--out", "-o", help="write the profile JSON here (one SKU folder)",
                                    parser=path_value),
    out_dir: Path | None = typer.Option(None, "--out-dir", help="write <hwsku>.json per SKU folder here",
                                        parser=path_value),
    platform: str | None = typer.Option(None, "--platform", help="platform string when the folder has no PLATFORM"),
    asic_family: str | None = typer.Option(None, "--asic-family", help="ASIC family when the platform is not known"),
) -> None:
    """Read vendor SKU files into switch profiles (stdout, --out FILE or --out-dir DIR).

    Example: roceops hardware import device/mellanox/x86_64-nvidia_sn5600-r0/Mellanox-SN5600-O128 --out sn5600.json
    """
    from pydantic import ValidationError

    from roceops.hardware.importer import import_sku
    from roceops.hardware.sku_files import SkuFileError

    if out is not None and (out_dir is not None or len(sku_dirs) != 1):
        fail("--out takes exactly one SKU folder and no --out-dir")
    for sku_dir in sku_dirs:
        try:
            text = profile_json(import_sku(sku_dir, platform=platform, asic_family=asic_family))
        except (SkuFileError, ValidationError, OSError) as exc:
            fail(f"{sku_dir}: {exc}")
        target = out or (out_dir / f"{sku_dir.name}.json" if out_dir is not None else None)
        if target is None:
            typer.echo(text, nl=False)
            continue
        write_file(target, text)
        console.print(f"wrote {target}")
