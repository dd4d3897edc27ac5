"""What a ConnectX Linux host shows of its configuration (:func:`observe`, from ``collect``'s outputs alone) and
the intent as such a host shows it (:func:`expected`): both an :class:`~roceops.device.observed.ObservedHost`.

``observe`` never sees the intent. It finds the host's NICs in the outputs themselves: the netdevs
``rdma -j link show`` lists as RDMA links (which also names each one's RDMA device; without that read, the rows
of ``show_gids``), and those whose per-NIC reads the outputs hold (the device name is parsed back out of the
command with the builders of :mod:`driver_model`), as far as ``ip -j addr show`` shows them. Every NIC found is
reported (``nics`` is an open map: NICs roceops does not manage are not drift).

====================================================  ========================================================
ObservedHost field                                    read from
====================================================  ========================================================
``nics[n].netdev``, ``rdma_dev``                      ``rdma -j link show`` (else ``show_gids``)
``nics[n].mtu``, ``addresses``                        ``ip -j addr show`` (every IPv4 address/len, sorted)
``nics[n].routes``                                    ``ip -j route show table all``: routes with a gateway
                                                      through the netdev in every table but ``local``
``nics[n].trust``, ``pfc_priorities``,                ``mlnx_qos -i <netdev> -a`` (``dscp_to_priority`` only
``dscp_to_priority``, ``prio_tc``, ``tc_bandwidth``,  when trust is dscp: the map is inactive otherwise)
``strict_tcs``
``nics[n].dcqcn``, ``cnp_dscp``, ``cnp_priority``     sysfs ``ecn/roce_np``, ``ecn/roce_rp``: every value read
``nics[n].roce_mode``, ``roce_tos``                   ``cma_roce_mode``/``cma_roce_tos -d <rdma_dev>``
``sysctls``                                           every ``sysctl <key>...`` read (every key it printed)
``firmware.devices``                                  every ``mlxconfig -d <dev> -e query``: next-boot values
``boot``, ``nccl``, ``gids``, ``tools``               ``sha256sum``/``systemctl show``, NCCL's file,
                                                      ``show_gids``, ``which ib_write_bw``
====================================================  ========================================================

Addresses: the host shows a set of addresses per netdev, not one "address", so ``observe`` reports them all in
``addresses`` and leaves ``address`` unset (picking one would guess), and ``expected`` says the NIC holds
exactly its intended address. That is what a deploy makes true (netplan's clean-up removes the addresses the
rail file does not declare, :func:`driver_plan.cleanup_commands`), so audit and deploy agree; a missing,
changed or extra address is drift at ``nics[<netdev>].addresses``. Routes are compared the same way, as the
sorted list of every gateway route through the netdev (:func:`route_key` on both sides).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

from roceops.device.observed import (
    ObservedBoot,
    ObservedDcqcn,
    ObservedFirmware,
    ObservedGid,
    ObservedHost,
    ObservedNccl,
    ObservedNic,
    ObservedRoute,
)
from roceops.platforms.linux_mlx5 import driver_boot as boot
from roceops.platforms.linux_mlx5 import driver_model as dm
from roceops.platforms.linux_mlx5.nic_mode import cmd_nic_mode, parse_nic_mode
from roceops.platforms.linux_mlx5.parsers import (
    ParseError,
    parse_cma_roce_mode,
    parse_cma_roce_tos,
    parse_ip_json,
    parse_mlnx_qos,
    parse_rdma_links,
    parse_sysctl,
    sysfs_dict,
)
from roceops.platforms.linux_mlx5.parsers_boot import (
    parse_nccl_conf,
    parse_sha256sum,
    parse_show_gids,
    parse_systemctl_show,
)

# iproute2 names of the routing tables a number can also name (/etc/iproute2/rt_tables); "main" is None
_TABLE_NUMBERS = {"main": None, "default": 253}


def command_pattern(builder: Callable[[str], str]) -> re.Pattern[str]:
    """The commands ``builder`` makes for one device, with the device name as group 1: an outputs key parsed
    back into the name it was built with (``mlnx_qos -i eth0 -a`` -> ``eth0``)."""
    head, _, tail = builder("\0").partition("\0")
    pattern = re.compile(f"{re.escape(head)}(\\S+){re.escape(tail)}")
    _HEADS[pattern] = head
    return pattern


_HEADS: dict[re.Pattern[str], str] = {}  # a command pattern -> the text every command it matches starts with


_QOS_CMD = command_pattern(dm.cmd_mlnx_qos)
_MODE_CMD = command_pattern(dm.cmd_roce_mode)
_TOS_CMD = command_pattern(dm.cmd_roce_tos)
_NIC_MODE_CMD = command_pattern(cmd_nic_mode)
_MLXCONFIG_CMD = re.compile(r"mlxconfig -d (\S+) -e query\b")  # boot.cmd_mlxconfig, whatever parameters it names
_HEADS[_MLXCONFIG_CMD] = "mlxconfig -d "


def _named(outputs: dict[str, str], pattern: re.Pattern[str], whole: bool = True) -> dict[str, str]:
    """Device name -> output, for the outputs whose command ``pattern`` matches (``whole``: all of it, else
    its start). Only the commands starting with the pattern's literal head are matched against it."""
    match = pattern.fullmatch if whole else pattern.match
    head = _HEADS.get(pattern, "")
    return {m.group(1): text for cmd, text in outputs.items() if cmd.startswith(head) and (m := match(cmd))}


def sysfs_dump(outputs: dict[str, str]) -> dict[str, str]:
    """Every sysfs file of the outputs' ``grep -r -H`` reads: path -> value."""
    out: dict[str, str] = {}
    for cmd, text in outputs.items():
        if cmd.startswith("grep -r -H -s . "):
            out.update(sysfs_dict(text))  # a copy: the parsed dict is shared
    return out


# ------------------------------------------------------------------------------------ observe


def observe(outputs: dict[str, str]) -> ObservedHost:
    """The host's configuration as ``outputs`` (command -> raw output) show it (see the module docstring)."""
    gids = _gids(outputs)
    fields: dict[str, Any] = {"nics": _nics(outputs, gids), **_boot_parts(outputs)}
    if boot.CMD_GIDS in outputs:
        fields["gids"] = gids
    sysctls = _sysctls(outputs)
    if sysctls is not None:
        fields["sysctls"] = sysctls
    firmware = _firmware(outputs)
    if firmware is not None:
        fields["firmware"] = firmware
    return ObservedHost.model_validate(fields)


def _gids(outputs: dict[str, str]) -> list[ObservedGid] | None:
    """show_gids' rows; None when it was not read or is not there (no MLNX_OFED: the GID check says unknown)."""
    text = outputs.get(boot.CMD_GIDS)
    if text is None:
        return None
    try:
        return _GID_ROWS.validate_python(parse_show_gids(text))  # one call for every row
    except ParseError:
        return None


_GID_ROWS = TypeAdapter(list[ObservedGid])


def rdma_devices(outputs: dict[str, str], gids: list[ObservedGid] | None) -> dict[str, str]:
    """netdev -> RDMA device: ``rdma -j link show``, or the rows of show_gids where that read is missing or
    unreadable (an iproute2 without the ``rdma`` tool)."""
    text = outputs.get(dm.CMD_RDMA)
    if text is not None:
        try:
            return {netdev: link["rdma_dev"] for netdev, link in _rdma_links(text).items() if link["rdma_dev"]}
        except ParseError:
            pass
    return {row.netdev: row.dev for row in gids or () if row.netdev}


def _nics(outputs: dict[str, str], gids: list[ObservedGid] | None) -> dict[str, ObservedNic]:
    rdma = rdma_devices(outputs, gids)
    qos = _named(outputs, _QOS_CMD)
    links = links_by_name(outputs[dm.CMD_ADDR]) if dm.CMD_ADDR in outputs else None
    names = set(rdma) | set(qos)
    if links is not None:
        names &= set(links)  # a netdev ip does not show is not on the host (a per-NIC read of it failed)
    routes = parse_ip_json(outputs[dm.CMD_ROUTES]) if dm.CMD_ROUTES in outputs else None
    ecn = dm.ecn_entries(sysfs_dump(outputs))
    modes, tos = _named(outputs, _MODE_CMD), _named(outputs, _TOS_CMD)
    nic_modes = _named(outputs, _NIC_MODE_CMD)
    nics: dict[str, ObservedNic] = {}
    for name in sorted(names):
        o: dict[str, Any] = {"netdev": name}
        if links is not None:
            o.update(link_fields(links[name]))
        if routes is not None:
            o["routes"] = nic_routes(routes, name)
        if name in qos:
            o.update(_qos_observed(qos[name]))
        if name in ecn:
            o.update(ecn_fields(dm.ecn_values(ecn[name])))
        dev = rdma.get(name)
        if dev is not None:
            o["rdma_dev"] = dev
            if (mode := parse_cma_roce_mode(modes.get(dev, ""))) is not None:
                o["roce_mode"] = mode
            if (value := parse_cma_roce_tos(tos.get(dev, ""))) is not None:
                o["roce_tos"] = value
            if (op_mode := parse_nic_mode(nic_modes.get(dev))) is not None:
                o["mode"] = op_mode  # observed only: BlueField DPU/NIC mode (nic_mode.py)
        nics[name] = ObservedNic.model_validate(o)
    return nics


@lru_cache(maxsize=8)  # observe and operational read the same answer
def links_by_name(text: str) -> dict[str, dict[str, Any]]:
    """``ip -j addr show``'s entries by interface name, remembered per text: shared, so never to be changed."""
    return {e["ifname"]: e for e in parse_ip_json(text)}


@lru_cache(maxsize=8)
def _rdma_links(text: str) -> dict[str, dict[str, Any]]:
    """:func:`parse_rdma_links`, remembered per text (observe and operational read it): never to be changed."""
    return parse_rdma_links(text)


@lru_cache(maxsize=256)  # every NIC of a host (and most hosts of a fabric) prints the same block
def _qos_observed(text: str) -> dict[str, Any]:
    """:func:`qos_fields` of one ``mlnx_qos`` answer, remembered per text: shared, so only ever read (the NIC's
    validation copies its lists and maps)."""
    return qos_fields(parse_mlnx_qos(text))


def link_fields(link: dict[str, Any]) -> dict[str, Any]:
    """MTU and every IPv4 address (``a.b.c.d/len``, sorted) of one ``ip -j addr show`` entry."""
    addrs = sorted(f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", []) if a.get("family") == "inet")
    return {"mtu": link.get("mtu"), "addresses": addrs}


def nic_routes(routes: list[dict[str, Any]], dev: str) -> list[ObservedRoute]:
    """The routes with a gateway through ``dev`` in every table but ``local``, in :func:`route_key` order.

    Typed routes (``local``, ``broadcast``, ...) and routes in a table known only by a name roceops does not
    number (a custom ``rt_tables`` entry) are left out: roceops writes gateway routes in numbered tables."""
    out = []
    for e in routes:
        if e.get("dev") != dev or "gateway" not in e or "type" in e or e.get("table") == "local":
            continue
        table = str(e.get("table", "main"))
        if table not in _TABLE_NUMBERS and not table.isdigit():
            continue
        out.append(ObservedRoute(to="0.0.0.0/0" if e["dst"] == "default" else e["dst"], via=e["gateway"],
                                 table=_TABLE_NUMBERS[table] if table in _TABLE_NUMBERS else int(table)))
    return sorted(out, key=route_key)


def route_key(route: ObservedRoute) -> tuple[bool, int, str, str]:
    """The order both sides list a NIC's routes in: main table first, then by table, destination, gateway."""
    return route.table is not None, route.table or 0, route.to or "", route.via or ""


def qos_fields(qos: dict[str, Any]) -> dict[str, Any]:
    """``parse_mlnx_qos`` facts as ObservedNic fields (an ETS TC's bandwidth; 0 for strict/vendor TCs)."""
    tcs = qos["tcs"]
    out: dict[str, Any] = {
        "trust": qos["trust"], "pfc_priorities": qos["pfc"], "prio_tc": dict(sorted(qos["prio_tc"].items())),
        "tc_bandwidth": {tc: (t["bw"] or 0) if t["tsa"] == "ets" else 0 for tc, t in sorted(tcs.items())},
        "strict_tcs": sorted(tc for tc, t in tcs.items() if t["tsa"] == "strict"),
    }
    if qos["trust"] == "dscp" and qos["dscp2prio"] is not None:
        out["dscp_to_priority"] = dict(sorted(qos["dscp2prio"].items()))
    return out


def ecn_fields(ecn: dict[str, Any]) -> dict[str, Any]:
    """DCQCN (every roce_np/roce_rp value; the enable lists only when all 8 priorities of both were read) and
    the CNP's DSCP/802.1p priority, from one NIC's :func:`driver_model.ecn_values`."""
    np_, rp = ecn["roce_np"], ecn["roce_rp"]
    out: dict[str, Any] = {}
    if None not in np_["enable"] + rp["enable"]:
        out["dcqcn"] = ObservedDcqcn(
            np_enabled=[p for p, v in enumerate(np_["enable"]) if v],
            rp_enabled=[p for p, v in enumerate(rp["enable"]) if v],
            np={k: v for k, v in np_.items() if k != "enable"},
            rp={k: v for k, v in rp.items() if k != "enable"})
    if "cnp_dscp" in np_:
        out["cnp_dscp"] = np_["cnp_dscp"]
    if "cnp_802p_prio" in np_:
        out["cnp_priority"] = np_["cnp_802p_prio"]
    return out


def _sysctls(outputs: dict[str, str]) -> dict[str, str] | None:
    """Every key the outputs' ``sysctl`` reads printed; None when there was no such read."""
    reads = [text for cmd, text in outputs.items() if cmd.startswith("sysctl ") and "-w" not in cmd.split()]
    if not reads:
        return None
    out: dict[str, str] = {}
    for text in reads:
        out.update(parse_sysctl(text))
    return out


def _firmware(outputs: dict[str, str]) -> ObservedFirmware | None:
    """Next-boot values of every mlxconfig query in the outputs ({} for a device whose query failed)."""
    queries = _named(outputs, _MLXCONFIG_CMD, whole=False)
    devices = {dev: boot.firmware_values(text) or {} for dev, text in queries.items()}
    return ObservedFirmware(devices=devices) if devices else None


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.strip().lstrip("-").isdigit() else None


def nccl_observed(variables: dict[str, str]) -> ObservedNccl:
    """NCCL config variables as NCCL reads them (None: the variable is not set, NCCL's default applies)."""
    hca = variables.get("NCCL_IB_HCA")
    ifname = variables.get("NCCL_SOCKET_IFNAME")
    return ObservedNccl(
        ib_hca=[d.split(":")[0] for d in hca.lstrip("=").split(",") if d] if hca is not None else None,
        ib_hca_exact=hca.startswith("=") if hca is not None else None,
        ib_tc=_int(variables.get("NCCL_IB_TC")), roce_version=_int(variables.get("NCCL_IB_ROCE_VERSION_NUM")),
        addr_family=variables.get("NCCL_IB_ADDR_FAMILY"), addr_range=variables.get("NCCL_IB_ADDR_RANGE"),
        gid_index=_int(variables.get("NCCL_IB_GID_INDEX")),
        qps_per_connection=_int(variables.get("NCCL_IB_QPS_PER_CONNECTION")),
        split_data_on_qps=_int(variables.get("NCCL_IB_SPLIT_DATA_ON_QPS")),
        socket_ifname=ifname.lstrip("=") if ifname is not None else None,
        cross_nic=_int(variables.get("NCCL_CROSS_NIC")), fifo_tc=_int(variables.get("NCCL_IB_FIFO_TC")),
    )


def _boot_parts(outputs: dict[str, str]) -> dict[str, Any]:
    """``boot`` (installed files' sha256, the unit's enablement and last result), ``nccl`` and ``tools``, for
    the reads the outputs hold."""
    out: dict[str, Any] = {}
    if boot.CMD_SHA in outputs:
        sums = parse_sha256sum(outputs[boot.CMD_SHA])
        unit = parse_systemctl_show(outputs.get(boot.CMD_UNIT, ""))
        result = "failed" if unit.get("ActiveState") == "failed" else unit.get("Result", "")
        out["boot"] = ObservedBoot(files={p: sums.get(p) for p in boot.PATHS},
                                   unit_enabled=unit.get("UnitFileState", ""), unit_result=result)
    if boot.CMD_NCCL in outputs:
        text = outputs[boot.CMD_NCCL]
        out["nccl"] = nccl_observed({} if "No such file" in text else parse_nccl_conf(text))
    if boot.CMD_TOOLS in outputs:
        out["tools"] = {"ib_write_bw": "/ib_write_bw" in outputs[boot.CMD_TOOLS]}
    return out
