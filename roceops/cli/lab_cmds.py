"""``roceops lab ...``: the simulated multi-vendor fabric over real SSH on loopback."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from roceops.cli import lab_routing
from roceops.cli.common import (
    Exit,
    LimitOption,
    console,
    fail,
    load_fabric_or_exit,
    path_value,
    print_json,
    shipped_fabric_or_exit,
)
from roceops.cli.fabric_cmds import TableOrJson, selected
from roceops.cli.lab_faults import InjectCommand
from roceops.cli.lab_target import forget_lab_fabric, lab_fabric, record_lab_fabric
from roceops.lab.paths import lab_dir

if TYPE_CHECKING:
    from roceops.lab.control import ControlClient
    from roceops.lab.runtime import start_lab
else:
    def ControlClient(*args: Any, **kwargs: Any) -> Any:  # stands for the class
        """roceops.lab.control.ControlClient, imported on first call (CLI start-up time; tests replace this name)."""
        from roceops.lab.control import ControlClient as real

        return real(*args, **kwargs)

    def start_lab(*args: Any, **kwargs: Any) -> Any:
        """roceops.lab.runtime.start_lab, imported on first call (CLI start-up time; tests replace this name)."""
        from roceops.lab.runtime import start_lab as real

        return real(*args, **kwargs)


app = typer.Typer(help="A simulated fabric (SONiC, Cumulus, EOS, ConnectX hosts) over real SSH on loopback.",
                  no_args_is_help=True)


@app.command("up")
def up(
    fabric: Path | None = typer.Option(None, "-f", "--fabric", show_default=False,
                                       help="fabric intent YAML (default: the lab-mini example roceops ships)",
                                       parser=path_value),
    limit: str | None = LimitOption,
    port: int = typer.Option(2222, "--port", min=1, max=65535, help="SSH port on every device address"),
    detach: bool = typer.Option(True, "--detach/--foreground", help="run in the background (default)"),
    configured: bool = typer.Option(False, "--configured", help="devices start with their intended config"),
    routing: bool = typer.Option(False, "--routing", help="SONiC and Cumulus switches answer BGP shows from a "
                                                          "real FRR routing plane (root + FRR, as verify routing)"),
) -> None:
    """Start one process serving every device of the fabric on its own 127.x address.

    With --routing, the fabric's routing plane runs first (network namespaces, one FRR per switch, as
    `roceops verify routing` builds it) and SONiC `show ip bgp summary` / NVUE `nv show vrf ... router bgp
    neighbor` answer from each switch's real bgpd; `lab down` removes it. The plane runs the configs
    rendered from the fabric at `lab up`; a change later deployed to the lab does not reach it.
    Example: sudo roceops lab up -f inventory/lab-mini.yaml --configured --routing
    """
    from roceops.lab.fabric_specs import lab_specs
    from roceops.lab.personality import LabError

    fabric_path = fabric or shipped_fabric_or_exit()
    loaded = load_fabric_or_exit(fabric_path)
    fab = loaded.fabric
    names = [d.name for d in selected(fab, limit)]
    specs = lab_specs(fab, names, configured=configured)
    state = lab_dir()
    if routing:
        lab_routing.attach_vty(specs, lab_routing.start(fabric_path, state))
    try:  # the record is written once the lab runs (never over the record of a lab already running)
        started = start_lab(specs, state, port=port, detach=detach,
                            on_ready=lambda ready: record_lab_fabric(ready.state_dir, loaded.source))
    except LabError as exc:
        lab_routing.stop(state)
        fail(str(exc))
    console.print(f"lab up: {started.devices} devices of {fab.intent.name} in {started.seconds:.1f}s, "
                  f"pid {started.pid}; connection overlay {started.overlay} (use --lab)")


@app.command("status")
def status(fmt: TableOrJson = typer.Option(TableOrJson.table, "--format")) -> None:
    """Show the running lab: pid, uptime, devices, addresses, injected faults.

    Example: roceops lab status
    """
    from roceops.lab.control import LabNotRunning
    from roceops.lab.personality import LabError
    from roceops.lab.runtime import lab_status
    from roceops.report import tables

    try:
        info = lab_status(lab_dir())
    except (LabNotRunning, LabError) as exc:
        fail(str(exc), Exit.UNREACHABLE)
    info["fabric"] = lab_fabric(lab_dir())  # the file `--lab` runs use without -f (None: not recorded)
    if fmt is TableOrJson.json:
        print_json(info)
        return
    table = tables.table("device", "platform", "address", "faults",
                  title=f"lab pid {info.get('pid')} up {info.get('uptime_s', 0):.0f}s")
    for d in info.get("devices", []):
        faults = ", ".join(f"{k}{json.dumps(v) if v else ''}" for k, v in (d.get("faults") or {}).items()) or "-"
        table.add_row(d.get("name", "?"), d.get("platform", "?"), f"{d.get('host')}:{d.get('port')}", faults)
    console.print(table)
    if info["fabric"]:
        console.print(f"serving {info['fabric']['path']} (sha256 {info['fabric']['sha256'][:12]})", markup=False)


@app.command("down")
def down() -> None:
    """Stop the running lab.

    Example: roceops lab down
    """
    from roceops.lab.control import LabNotRunning
    from roceops.lab.personality import LabError
    from roceops.lab.runtime import stop_lab

    routing = lab_routing.stop(lab_dir())
    try:
        pid = stop_lab(lab_dir())
    except (LabNotRunning, LabError) as exc:
        fail(str(exc))
    forget_lab_fabric(lab_dir())
    console.print(f"lab stopped (pid {pid})" + (f"; routing plane {routing} removed" if routing else ""))


def _params(values: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep:
            fail(f"fault parameter {item!r} is not key=value")
        out[key.replace("-", "_")] = int(value) if value.lstrip("-").isdigit() else value
    return out


@app.command("inject", cls=InjectCommand)
def inject(
    device: str = typer.Argument(..., help="device name"),
    fault: str = typer.Argument(..., help="a fault from the list below (the lab's own registry)"),
    port: str | None = typer.Option(None, "--port", "-p", help="port or NIC the fault applies to"),
    param: list[str] = typer.Option([], "--param", help="extra parameter key=value (repeatable)"),
) -> None:
    """Inject a fault into one lab device.

    Example: roceops lab inject leaf-su1-r1 pfc_off --port Ethernet0
    """
    from roceops.lab.control import LabNotRunning
    from roceops.lab.personality import LabError

    params = _params(param)
    if port:
        params["port"] = port
    try:
        ControlClient(lab_dir()).inject(device, fault, **params)
    except (LabNotRunning, LabError) as exc:
        fail(str(exc))
    console.print(f"injected {fault} on {device}{' ' + port if port else ''}")


@app.command("clear")
def clear(device: str | None = typer.Argument(None, help="device (default: every device)")) -> None:
    """Clear injected faults (configuration changes made by faults stay until re-deployed).

    Example: roceops lab clear
    """
    from roceops.lab.control import LabNotRunning
    from roceops.lab.personality import LabError

    try:
        cleared = ControlClient(lab_dir()).clear(device)
    except (LabNotRunning, LabError) as exc:
        fail(str(exc))
    names = cleared.get("cleared") if isinstance(cleared, dict) else cleared
    names = names if isinstance(names, list) else []
    which = f"on {device}" if device else f"on all {len(names)} devices"
    console.print(f"cleared faults {which} at {time.strftime('%H:%M:%S')}")
