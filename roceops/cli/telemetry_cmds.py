"""telemetry: a long-running collector/exporter of the fabric's RoCE counters (gNMI for switches, SSH for hosts).
grpc and pygnmi are imported inside the command, so ``roceops --help`` and every other command start without them."""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from roceops.cli.common import FabricOption, LimitOption, console, fail, load_fabric_or_exit
from roceops.cli.deploy_cmds import LabOption
from roceops.cli.fabric_cmds import selected
from roceops.cli.lab_target import check_lab_serves, fabric_for
from roceops.lab.paths import lab_dir_option
from roceops.topology.sharding import parse_shard


def _listen(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise typer.BadParameter(f"{text!r}: expected ADDR:PORT, e.g. 127.0.0.1:9105")
    return host.strip("[]") or "0.0.0.0", int(port)


def telemetry(
    ctx: typer.Context,
    fabric: Path = FabricOption,
    lab: bool = LabOption,
    limit: str | None = LimitOption,
    listen: str = typer.Option("127.0.0.1:9105", "--listen", help="ADDR:PORT of the /metrics endpoint (port 0: any)"),
    interval: float = typer.Option(10.0, "--interval", min=0.1, help="seconds between samples (gNMI SAMPLE interval)"),
    shard: str | None = typer.Option(None, "--shard", metavar="I/N",
                                     help="collect shard I of N (1-based) only: the devices whose name hashes to it"),
) -> None:
    """Stream the fabric's PFC, ECN, watchdog, drop and NIC CNP counters to a Prometheus endpoint until SIGTERM.

    Switches over gNMI (SAMPLE mode), hosts' NICs over SSH; credentials from ROCEOPS_GNMI_USERNAME /
    ROCEOPS_GNMI_PASSWORD (TLS CA: ROCEOPS_GNMI_CA) and the SSH settings of every other command.

    Example: roceops telemetry --lab --listen 127.0.0.1:9105 --interval 1
    """
    address = _listen(listen)
    try:
        shard_spec = parse_shard(shard) if shard is not None else None
    except ValueError as exc:
        fail(f"--shard: {exc}")
    loaded = load_fabric_or_exit(fabric_for(ctx, fabric, lab))
    devices = selected(loaded.fabric, limit)
    check_lab_serves(loaded, [d.name for d in devices], lab)
    lab_dir = lab_dir_option(lab)

    from roceops.telemetry.collector import Collector, gnmi_settings  # grpc/pygnmi: this command only
    from roceops.telemetry.targets import build_targets

    overlay = None
    if lab_dir is not None:
        from roceops.lab.runtime import read_overlay

        overlay = read_overlay(lab_dir)
    targets, skipped = build_targets(loaded.fabric, devices, overlay, shard_spec)
    for line in skipped:
        console.print(f"not collected: {line}", markup=False)
    if not targets:
        fail(f"no device to collect in shard {shard} of the selection" if shard else "no device to collect")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    lab_user = str(next(iter(overlay.values())).get("username", "admin")) if overlay else None
    collector = Collector(loaded.fabric, targets, gnmi_settings(interval, lab_user), listen=address,
                          lab_dir=lab_dir)
    try:
        collector.start()
    except OSError as exc:
        collector.stop()
        fail(f"cannot listen on {listen}: {exc.strerror or exc}")
    console.print(f"collecting {len(targets)} devices every {interval:g} s; metrics on "
                  f"http://{address[0]}:{collector.port}/metrics (SIGTERM or Ctrl-C stops)")
    from roceops.cli.gc_tuning import run_gc

    with run_gc():  # the fabric and the targets frozen out of the GC's walks for the whole run
        collector.serve_until_signal()
    console.print("telemetry stopped")
