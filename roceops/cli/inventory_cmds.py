"""``roceops inventory ...``: Nornir inventory files from the fabric."""

from __future__ import annotations

from pathlib import Path

import typer

from roceops.cli.common import FabricOption, check_writable, console, load_fabric_or_exit, path_value

app = typer.Typer(help="Nornir inventory from the fabric intent.", no_args_is_help=True)


@app.command("export")
def export(
    fabric: Path = FabricOption,
    out: Path = typer.Option(Path("build/inventory"), "--out", "-o", help="output folder", parser=path_value),
) -> None:
    """Write Nornir SimpleInventory files (hosts.yaml, groups.yaml, defaults.yaml). No credentials inside.

    Example: roceops inventory export --out build/inventory
    """
    from roceops.nornir_glue.export import export as export_files

    fab = load_fabric_or_exit(fabric).fabric
    check_writable(out, folder=True)
    for path in export_files(fab, out):
        console.print(f"wrote {path}")
