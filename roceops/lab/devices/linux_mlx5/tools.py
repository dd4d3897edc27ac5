"""``ethtool``, ``sysctl``, ``rdma``, ``ibdev2netdev`` and mlnx-tools' ``cma_roce_mode``/``cma_roce_tos``.

``ethtool -S`` prints the mlx5 counter layout of a real ConnectX dump (``NIC statistics:`` header,
five-blank indentation), with the per-priority PFC counters only for PFC-enabled priorities and
the global-pause counters only while global pause is on, as mlx5 does. Values come from the shared
physical layer, so they move between two reads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from roceops.lab.devices.linux_mlx5.model import DRIVER_VERSION, PRIOS, PSID, RDMA_PORT, Nic, norm_sysctl_key
from roceops.lab.devices.linux_mlx5.shell import Result, fail, ok, program

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.shell import Shell

def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# mlx5_core global counters in driver order (names as in a real ConnectX-4 `ethtool -S` dump)
_SW = _words(
    "rx_packets rx_bytes tx_packets tx_bytes tx_tso_packets tx_tso_bytes tx_tso_inner_packets tx_tso_inner_bytes "
    "tx_added_vlan_packets rx_lro_packets rx_lro_bytes rx_removed_vlan_packets rx_csum_unnecessary rx_csum_none "
    "rx_csum_complete rx_csum_unnecessary_inner rx_xdp_drop rx_xdp_tx rx_xdp_tx_full tx_csum_none tx_csum_partial "
    "tx_csum_partial_inner tx_queue_stopped tx_queue_wake tx_queue_dropped tx_xmit_more rx_wqe_err rx_mpwqe_filler "
    "rx_buff_alloc_err rx_cqe_compress_blks rx_cqe_compress_pkts rx_page_reuse rx_cache_reuse rx_cache_full "
    "rx_cache_empty rx_cache_busy rx_cache_waive link_down_events_phy rx_out_of_buffer "
    "rx_vport_unicast_packets rx_vport_unicast_bytes tx_vport_unicast_packets tx_vport_unicast_bytes "
    "rx_vport_multicast_packets rx_vport_multicast_bytes tx_vport_multicast_packets tx_vport_multicast_bytes "
    "rx_vport_broadcast_packets rx_vport_broadcast_bytes tx_vport_broadcast_packets tx_vport_broadcast_bytes "
    "rx_vport_rdma_unicast_packets rx_vport_rdma_unicast_bytes tx_vport_rdma_unicast_packets "
    "tx_vport_rdma_unicast_bytes rx_vport_rdma_multicast_packets rx_vport_rdma_multicast_bytes "
    "tx_vport_rdma_multicast_packets tx_vport_rdma_multicast_bytes tx_packets_phy rx_packets_phy "
    "rx_crc_errors_phy tx_bytes_phy rx_bytes_phy tx_multicast_phy tx_broadcast_phy rx_multicast_phy "
    "rx_broadcast_phy rx_in_range_len_errors_phy rx_out_of_range_len_phy rx_oversize_pkts_phy rx_symbol_err_phy "
    "tx_mac_control_phy rx_mac_control_phy rx_unsupported_op_phy rx_pause_ctrl_phy tx_pause_ctrl_phy "
    "rx_discards_phy tx_discards_phy tx_errors_phy rx_undersize_pkts_phy rx_fragments_phy rx_jabbers_phy "
    "rx_64_bytes_phy rx_65_to_127_bytes_phy rx_128_to_255_bytes_phy rx_256_to_511_bytes_phy "
    "rx_512_to_1023_bytes_phy rx_1024_to_1518_bytes_phy rx_1519_to_2047_bytes_phy rx_2048_to_4095_bytes_phy "
    "rx_4096_to_8191_bytes_phy rx_8192_to_10239_bytes_phy rx_pcs_symbol_err_phy rx_corrected_bits_phy "
    "rx_buffer_passed_thres_phy rx_pci_signal_integrity tx_pci_signal_integrity outbound_pci_stalled_rd "
    "outbound_pci_stalled_wr outbound_pci_stalled_rd_events outbound_pci_stalled_wr_events"
)
_TAIL = ("module_unplug", "module_bus_stuck", "module_high_temp", "module_bad_shorted")
_RXQ = _words("packets bytes csum_complete csum_unnecessary csum_unnecessary_inner csum_none xdp_drop xdp_tx "
              "xdp_tx_full lro_packets lro_bytes removed_vlan_packets wqe_err mpwqe_filler buff_alloc_err "
              "cqe_compress_blks cqe_compress_pkts page_reuse cache_reuse cache_full cache_empty cache_busy "
              "cache_waive")
_TXQ = _words("packets bytes tso_packets tso_bytes tso_inner_packets tso_inner_bytes csum_partial "
              "csum_partial_inner added_vlan_packets nop csum_none stopped wake dropped xmit_more")
CHANNELS = 4  # per-queue blocks printed (a real 400G port has one per CPU; the layout is the same)
_BYTES_PER_PACKET = 4096
# the printed lines of the counters that always read 0, built once: only the moving values are formatted per read
_SW_ZERO = tuple(f"     {n}: 0" for n in _SW)
_SW_AT = {n: i for i, n in enumerate(_SW)}
_TAIL_LINES = tuple(f"     {n}: 0" for n in _TAIL)
_RXQ_ZERO = tuple(tuple(f"     rx{q}_{n}: 0" for n in _RXQ) for q in range(CHANNELS))
_TXQ_ZERO = tuple(tuple(f"     tx{q}_{n}: 0" for n in _TXQ) for q in range(CHANNELS))
_RXQ_PACKETS, _TXQ_PACKETS = _RXQ.index("packets"), _TXQ.index("packets")


def ethtool_stats(sh: Shell, nic: Nic) -> str:
    c = sh.state.physical.snapshot(nic.name)
    rx, tx = c["rx_packets"], c["tx_packets"]
    values: dict[str, int] = {
        "rx_packets": rx // 100, "rx_bytes": rx // 100 * 900, "tx_packets": tx // 100, "tx_bytes": tx // 100 * 900,
        "rx_packets_phy": rx, "tx_packets_phy": tx, "rx_bytes_phy": rx * _BYTES_PER_PACKET,
        "tx_bytes_phy": tx * _BYTES_PER_PACKET, "rx_vport_rdma_unicast_packets": rx - rx // 100,
        "rx_vport_rdma_unicast_bytes": (rx - rx // 100) * _BYTES_PER_PACKET,
        "tx_vport_rdma_unicast_packets": tx - tx // 100,
        "tx_vport_rdma_unicast_bytes": (tx - tx // 100) * _BYTES_PER_PACKET,
        "rx_crc_errors_phy": c["crc_errors"], "rx_symbol_err_phy": c["symbol_errors"],
        "rx_pcs_symbol_err_phy": c["symbol_errors"], "rx_corrected_bits_phy": c["fec_corrected"],
        "link_down_events_phy": c["carrier_changes"] // 2, "rx_4096_to_8191_bytes_phy": rx,
    }
    sw = list(_SW_ZERO)
    for n, value in values.items():
        sw[_SW_AT[n]] = f"     {n}: {value}"
    lines = ["NIC statistics:", *sw]
    lossless = [p for p in PRIOS if p in sh.state.physical.lossless]
    for p in PRIOS:
        share = (rx // max(len(lossless), 1)) if p in lossless else (rx // 100 if p == 0 else 0)
        tshare = (tx // max(len(lossless), 1)) if p in lossless else (tx // 100 if p == 0 else 0)
        lines += [f"     rx_prio{p}_bytes: {share * _BYTES_PER_PACKET}", f"     rx_prio{p}_packets: {share}",
                  f"     tx_prio{p}_bytes: {tshare * _BYTES_PER_PACKET}", f"     tx_prio{p}_packets: {tshare}"]
    for p in nic.pfc_prios():
        rxp, txp = c[f"pfc_rx_{p}"], c[f"pfc_tx_{p}"]
        lines += [f"     rx_prio{p}_pause: {rxp}", f"     rx_prio{p}_pause_duration: {rxp * 3}",
                  f"     tx_prio{p}_pause: {txp}", f"     tx_prio{p}_pause_duration: {txp * 3}",
                  f"     rx_prio{p}_pause_transition: {rxp // 2}"]
    if nic.pause_rx or nic.pause_tx:
        lines += ["     rx_global_pause: 0", "     rx_global_pause_duration: 0", "     tx_global_pause: 0",
                  "     tx_global_pause_duration: 0", "     rx_global_pause_transition: 0"]
    # PFC stall prevention (ConnectX-5 and later), driven by the shared storm counter
    lines += [f"     tx_pause_storm_warning_events: {c['pfcwd_storms']}",
              f"     tx_pause_storm_error_events: {c['pfcwd_storms']}"]
    lines += _TAIL_LINES
    for zero, at, packets, prefix in ((_RXQ_ZERO, _RXQ_PACKETS, rx // 100 // CHANNELS, "rx"),
                                      (_TXQ_ZERO, _TXQ_PACKETS, tx // 100 // CHANNELS, "tx")):
        for q in range(CHANNELS):
            block = list(zero[q])
            block[at] = f"     {prefix}{q}_packets: {packets}"
            lines += block
    return "\n".join(lines)


# an older in-box mlx5_core's global counters, in its order (ethq tests/mlx5_core @ 6331e03): no header, no *_phy,
# no per-priority counters; CRC, symbol and pause are crc_align_errors, symbol_err, pause_ctrl_rx/tx
_OLD = _words(
    "rx_packets rx_bytes tx_packets tx_bytes rx_error_packets rx_error_bytes tx_error_packets tx_error_bytes "
    "rx_unicast_packets rx_unicast_bytes tx_unicast_packets tx_unicast_bytes rx_multicast_packets "
    "rx_multicast_bytes tx_multicast_packets tx_multicast_bytes rx_broadcast_packets rx_broadcast_bytes "
    "tx_broadcast_packets tx_broadcast_bytes tso_packets tso_bytes lro_packets lro_bytes rx_csum_good rx_csum_none "
    "rx_csum_sw tx_csum_offload tx_queue_stopped tx_queue_wake tx_queue_dropped rx_wqe_err frames_tx frames_rx "
    "check_seq_err alignment_err octets_tx octets_received multicast_xmitted broadcast_xmitted multicast_rx "
    "broadcast_rx in_range_len_errors out_of_range_len too_long_errors symbol_err mac_control_tx mac_control_rx "
    "unsupported_op_rx pause_ctrl_rx pause_ctrl_tx in_octets in_ucast_pkts in_discards in_errors "
    "in_unknown_protos out_octets out_ucast_pkts out_discards out_errors in_multicast_pkts in_broadcast_pkts "
    "out_multicast_pkts out_broadcast_pkts drop_events octets pkts broadcast_pkts multicast_pkts crc_align_errors "
    "undersize_pkts oversize_pkts fragments jabbers collisions")
_OLD_RXQ = _words("packets csum_none csum_sw lro_packets lro_bytes wqe_err")


def older_driver_stats(sh: Shell, nic: Nic) -> str:
    """``ethtool -S`` as an older in-box driver prints it; the lab counts every PFC frame as a pause frame."""
    c = sh.state.physical.snapshot(nic.name)
    rx, tx = c["rx_packets"], c["tx_packets"]
    values = {"rx_packets": rx, "tx_packets": tx, "rx_bytes": rx * _BYTES_PER_PACKET,
              "tx_bytes": tx * _BYTES_PER_PACKET, "rx_unicast_packets": rx, "tx_unicast_packets": tx,
              "frames_rx": rx, "frames_tx": tx, "symbol_err": c["symbol_errors"],
              "crc_align_errors": c["crc_errors"], "check_seq_err": c["crc_errors"],
              "pause_ctrl_rx": sum(c[f"pfc_rx_{p}"] for p in PRIOS),
              "pause_ctrl_tx": sum(c[f"pfc_tx_{p}"] for p in PRIOS)}
    lines = [f"     {n}: {values.get(n, 0)}" for n in _OLD]
    for q in range(CHANNELS):
        lines += [f"     rx{q}_{n}: {rx // CHANNELS if n == 'packets' else 0}" for n in _OLD_RXQ]
    return "\n".join(lines)


def _settings(sh: Shell, nic: Nic) -> str:
    up = sh.state.nic_up(nic)
    speed = f"{nic.speed}Mb/s" if up else "Unknown!"
    return "\n".join([
        f"Settings for {nic.name}:",
        "\tSupported ports: [ Backplane ]",
        "\tSupported link modes:   400000baseCR4/Full",
        "\t                        400000baseSR4/Full",
        "\tSupported pause frame use: Symmetric",
        "\tSupports auto-negotiation: Yes",
        "\tSupported FEC modes: None\t RS",
        "\tAdvertised link modes:  400000baseCR4/Full",
        "\t                        400000baseSR4/Full",
        "\tAdvertised pause frame use: Symmetric",
        "\tAdvertised auto-negotiation: Yes",
        "\tAdvertised FEC modes: RS",
        f"\tSpeed: {speed}",
        f"\tDuplex: {'Full' if up else 'Unknown! (255)'}",
        "\tAuto-negotiation: on",
        "\tPort: Direct Attach Copper",
        "\tPHYAD: 0",
        "\tTransceiver: internal",
        "\tSupports Wake-on: d",
        "\tWake-on: d",
        "\tCurrent message level: 0x00000004 (4)",
        "\t\t\t       link",
        f"\tLink detected: {'yes' if up else 'no'}",
    ])


@program("ethtool")
def ethtool(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    if not args:
        return fail("ethtool: bad command line argument(s)\nFor more information run ethtool -h", 1)
    opt = args[0] if args[0].startswith("-") else None
    if opt is not None:
        args = args[1:]
    if not args:
        return fail("ethtool: bad command line argument(s)\nFor more information run ethtool -h", 1)
    if opt == "-I" and args[0] == "--show-fec":  # -I (include statistics) goes with the next option
        opt, args = "-I --show-fec", args[1:]
    if not args:
        return fail("ethtool: bad command line argument(s)\nFor more information run ethtool -h", 1)
    dev = args[0]
    nic = sh.state.host.nics.get(dev)
    if nic is None:
        return fail(f"netlink error: no device matches name ({dev})\nnetlink error: No such device", 1)
    if opt is None:
        return ok(_settings(sh, nic))
    if opt in ("-i", "--driver"):
        return ok("\n".join([
            f"driver: {nic.driver}", f"version: {DRIVER_VERSION}", f"firmware-version: {nic.fw_version} ({PSID})",
            "expansion-rom-version: ", f"bus-info: 0000:{0x0C + nic.ifindex * 0x10:02x}:00.0",
            "supports-statistics: yes", "supports-test: yes", "supports-eeprom-access: no",
            "supports-register-dump: no", "supports-priv-flags: yes"]))
    if opt in ("-S", "--statistics"):
        return ok(older_driver_stats(sh, nic) if nic.old_driver else ethtool_stats(sh, nic))
    if opt in ("--show-fec", "-I --show-fec"):
        c = sh.state.physical.snapshot(nic.name)
        text = f"FEC parameters for {dev}:\nSupported/Configured FEC encodings: Auto\nActive FEC encoding: RS"
        if opt.startswith("-I"):
            text += (f"\nStatistics:\n  corrected_blocks: {c['fec_corrected']}\n"
                     f"  uncorrectable_blocks: {c['fec_uncorrected']}")
        return ok(text)
    if opt in ("-a", "--show-pause"):
        return ok(f"Pause parameters for {dev}:\nAutonegotiate:\toff\nRX:\t\t{'on' if nic.pause_rx else 'off'}\n"
                  f"TX:\t\t{'on' if nic.pause_tx else 'off'}")
    if opt in ("-A", "--pause"):
        words = args[1:]
        pairs = dict(zip(words[::2], words[1::2], strict=False))
        if len(words) % 2 or any(k not in ("autoneg", "rx", "tx") or v not in ("on", "off") for k, v in pairs.items()):
            return fail("ethtool: bad command line argument(s)\nFor more information run ethtool -h", 1)
        if not sh.can_write:
            return fail("netlink error: Operation not permitted", 1)
        if pairs.get("autoneg") == "on":
            return fail("netlink error: Invalid argument", 1)
        nic.pause_rx = pairs.get("rx", "on" if nic.pause_rx else "off") == "on"
        nic.pause_tx = pairs.get("tx", "on" if nic.pause_tx else "off") == "on"
        return Result()
    return fail(f"ethtool: option {opt} is not simulated in this lab", 1)


# ------------------------------------------------------------------------------------ sysctl


@program("sysctl")
def sysctl(sh: Shell, argv: list[str], stdin: str) -> Result:
    host = sh.state.host
    args = argv[1:]
    write = values_only = show_all = quiet = False
    pattern: str | None = None
    names: list[str] = []
    while args:
        a = args.pop(0)
        if a in ("-w", "--write"):
            write = True
        elif a in ("-n", "--values"):
            values_only = True
        elif a in ("-a", "-A", "-X", "--all"):
            show_all = True
        elif a in ("-q", "--quiet"):
            quiet = True
        elif a in ("-e", "--ignore", "-N"):
            continue
        elif a in ("-r", "--pattern") and args:
            pattern = args.pop(0)
        elif a.startswith("-") and len(a) > 1:
            return fail(f"sysctl: invalid option -- '{a.lstrip('-')[:1]}'", 255)
        else:
            names.append(a)
    out, err = [], []
    status = 0

    def show(key: str, value: str) -> None:
        out.append(value if values_only else f"{key} = {value}")

    if show_all:
        rx = re.compile(pattern) if pattern else None
        for key in host.sysctl_keys():
            value = host.sysctl_get(key)
            if value is not None and (rx is None or rx.search(key)):
                show(key, value)
        return ok("\n".join(out))
    for name in names:
        if "=" in name or write:
            key, sep, value = name.partition("=")
            key = norm_sysctl_key(key)
            if not sep:
                err.append(f'sysctl: "{name}" must be of the form name=value')
                status = 255
                continue
            if host.sysctl_default(key) is None:
                err.append(f"sysctl: cannot stat /proc/sys/{key.replace('.', '/')}: No such file or directory")
                status = 255
                continue
            if not sh.can_write:
                err.append(f'sysctl: permission denied on key "{key}"')
                status = 255
                continue
            host.sysctl[key] = "\t".join(value.split()) if "\t" in host.sysctl_default(key) else value.strip()  # type: ignore[operator]
            if not quiet:
                show(key, value)
            continue
        key = norm_sysctl_key(name)
        value = host.sysctl_get(key)
        if value is None:
            err.append(f"sysctl: cannot stat /proc/sys/{key.replace('.', '/')}: No such file or directory")
            status = 255
        else:
            show(key, value)
    return Result(out="".join(f"{o}\n" for o in out), err="".join(f"{e}\n" for e in err), status=status)


# ------------------------------------------------------------------------------------ rdma tools


@program("rdma")
def rdma(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = [a for a in argv[1:] if not a.startswith("-")]
    js = any(a in ("-j", "-json", "--json", "-jp", "-pj") for a in argv[1:])
    if args[:1] not in (["link"], ["l"]) or (len(args) > 1 and args[1] not in ("show", "list")):
        return fail("rdma: only `rdma [-j] link show` is simulated in this lab", 1)
    entries = []
    for i, nic in enumerate(sh.state.host.nics.values()):
        up = sh.state.nic_up(nic)
        entries.append({"ifindex": i, "ifname": nic.rdma_dev, "port": RDMA_PORT, "state": "ACTIVE" if up else "DOWN",
                        "physical_state": "LINK_UP" if up else "DISABLED", "netdev": nic.name,
                        "netdev_index": nic.ifindex})
    if js:
        import json

        return ok(json.dumps(entries, separators=(",", ":")))
    return ok("\n".join(f"link {e['ifname']}/{e['port']} state {e['state']} physical_state {e['physical_state']} "
                        f"netdev {e['netdev']}" for e in entries))


@program("ibdev2netdev")
def ibdev2netdev(sh: Shell, argv: list[str], stdin: str) -> Result:
    return ok("\n".join(f"{n.rdma_dev} port {RDMA_PORT} ==> {n.name} ({'Up' if sh.state.nic_up(n) else 'Down'})"
                        for n in sh.state.host.nics.values()))


def _getopts(args: list[str], spec: str) -> dict[str, str]:
    out: dict[str, str] = {}
    while args:
        a = args.pop(0)
        if len(a) >= 2 and a[0] == "-" and a[1] in spec:
            out[a[1]] = a[2:] or (args.pop(0) if args else "")
    return out


def _cma(sh: Shell, argv: list[str], flag: str) -> Result:
    opts = _getopts(argv[1:], f"dph{flag}")
    tool = argv[0]
    if "h" in opts:
        what = "mode" if flag == "m" else "ToS"
        return ok(f"Set/Show RoCE default {what} of RDMA_CM applications")
    if not sh.root:
        return fail("You must be root to run this", 1)
    dev = opts.get("d", "mlx5_0")
    port = opts.get("p", str(RDMA_PORT))
    nic = sh.state.host.by_rdma.get(dev)
    if nic is None:
        return fail(f"mkdir: cannot create directory '{dev}': No such device\n"
                    f"Failed to create configuration for {dev}", 1)
    if port != str(RDMA_PORT):
        return fail(f"Device {dev} port {port} does not exist", 1)
    err = ""
    value = opts.get(flag)
    attr = "default_roce_mode" if flag == "m" else "default_roce_tos"
    line = 104 if flag == "m" else 98
    if value is not None and value.lstrip("-").isdigit():
        number = int(value)
        if flag == "m" and number in (1, 2):
            if sh.state.rejecting:
                err = f"/usr/sbin/{tool}: line {line}: {attr}: Permission denied\n"
            else:
                nic.roce_mode = "IB/RoCE v1" if number == 1 else "RoCE v2"
        elif flag == "t" and number >= 0:
            if sh.state.rejecting:
                err = f"/usr/sbin/{tool}: line {line}: {attr}: Permission denied\n"
            elif number > 255:
                err = f"/usr/sbin/{tool}: line {line}: echo: write error: Invalid argument\n"
            else:
                nic.roce_tos = number
    current = nic.roce_mode if flag == "m" else str(nic.roce_tos)
    return Result(out=err + current + "\n")


@program("cma_roce_mode")
def cma_roce_mode(sh: Shell, argv: list[str], stdin: str) -> Result:
    return _cma(sh, argv, "m")


@program("cma_roce_tos")
def cma_roce_tos(sh: Shell, argv: list[str], stdin: str) -> Result:
    return _cma(sh, argv, "t")
