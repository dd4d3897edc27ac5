"""NVIDIA ConnectX (mlx5) on Linux: render context, install targets and the line-by-line script checker.

Everything a template needs is computed here so the templates stay free of logic:
comma lists and ``--dscp2prio`` arguments for ``mlnx_qos``, ``key:value`` maps for iproute2
``dcb``, sysfs paths for DCQCN, the RDMA-CM mode number, shell-quoted sysctl assignments,
netplan routes. Formatting that is the same for many NICs (DSCP, PFC and ETS lists, routes,
sysctls) is cached by value.

The setup scripts are run two ways: as a file (systemd at boot, ``bash roce-setup.sh``)
and line by line over an interactive SSH shell (deploy, lab simulator). The second way
only works if every executable line is one simple command; :func:`script_commands`
enforces that and returns the lines to send.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from roceops.device.intent import FirmwareIntent, HostIntent, NcclIntent, NicIntent
from roceops.platforms.base import NetmikoSettings, RenderOutput
from roceops.util.picklable import PicklableError

__all__ = [
    "FIRMWARE_SCRIPT",
    "INSTALL_TARGETS",
    "PERSISTED",
    "PREAMBLE",
    "UNIT",
    "InstallTarget",
    "NicContext",
    "ScriptError",
    "nic_context",
    "render_context",
    "script_commands",
    "simple_command_problem",
]

PRIORITIES = range(8)
DSCPS = range(64)
RDMA_PORT = 1  # mlx5 exposes one RDMA device per PCI function, each with a single port
ROCE_MODE_ARG: dict[str, int] = {"IB/RoCE v1": 1, "RoCE v2": 2}  # cma_roce_mode -m
DCB_DSCP_CHUNK = 8  # DSCP:prio pairs per `dcb app replace` line (8 lines per NIC, reviewable diffs)
CNP_FILES = frozenset({"cnp_dscp", "cnp_802p_prio"})  # written from NicIntent.cnp_*, not from dcqcn.np


@dataclass(frozen=True)
class InstallTarget:
    """Where the deploy step installs one rendered file on the host, and its mode."""

    path: str
    mode: int


# One source of truth for host paths: the unit's ExecStart is rendered from the first entry.
# roce-setup.sh and roce-setup-dcb.sh are alternatives (mlnx-tools vs iproute2 dcb), not both.
INSTALL_TARGETS: dict[str, InstallTarget] = {
    "roce-setup.sh": InstallTarget("/usr/local/sbin/roceops-roce-setup.sh", 0o755),
    "roce-setup-dcb.sh": InstallTarget("/usr/local/sbin/roceops-roce-setup-dcb.sh", 0o755),
    "netplan.yaml": InstallTarget("/etc/netplan/60-roceops-rails.yaml", 0o600),  # netplan warns if not 0600
    "roceops-roce.service": InstallTarget("/etc/systemd/system/roceops-roce.service", 0o644),
    "sysctl.conf": InstallTarget("/etc/sysctl.d/90-roceops.conf", 0o644),
    # NCCL reads /etc/nccl.conf after $NCCL_CONF_FILE or ~/.nccl.conf (NVIDIA/nccl src/misc/param.cc initEnv)
    "nccl.conf": InstallTarget("/etc/nccl.conf", 0o644),
    "nccl.env": InstallTarget("/etc/roceops/nccl.env", 0o644),
}
PERSISTED = ("netplan.yaml", "roce-setup.sh", "roceops-roce.service", "sysctl.conf", "nccl.conf", "nccl.env")
"""The rendered files ``deploy --commit`` installs (roce-setup-dcb.sh is the alternative script, not installed)."""
FIRMWARE_SCRIPT = "mlxconfig.sh"
UNIT = "roceops-roce.service"

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}")  # Linux IFNAMSIZ-1; no '/', ':', spaces
_SYSFS_FILE = re.compile(r"[a-z0-9_]+")
_SYSCTL_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*")
_SYSCTL_VALUE = re.compile(r"[ -&(-~]*")  # printable ASCII without the single quote


# --------------------------------------------------------------------------------------------
# render context
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NetplanRoute:
    to: str  # "default" or a CIDR
    via: str
    table: int | None


@dataclass(frozen=True)
class NicContext:
    """One NIC, pre-formatted for the templates (every value is already in the target syntax)."""

    netdev: str
    rdma_dev: str
    rdma_port: int
    rail: int
    leaf: str
    leaf_port: str
    mtu: int
    trust: Literal["dscp", "pcp"]
    dscp_prio: tuple[tuple[int, int], ...]  # all 64, by DSCP
    # mlnx_qos
    dscp2prio_args: str  # "--dscp2prio set,<dscp>,<prio>" for all 64 DSCPs, space-separated
    ets: EtsText  # PFC and ETS arguments, for mlnx_qos and for iproute2 dcb
    dcb_dscp_chunks: tuple[str, ...]
    # DCQCN (MLNX_OFED sysfs)
    ecn_dir: str
    np_enable: tuple[tuple[int, str], ...]  # (0|1, <ecn_dir>/roce_np/enable/<priority>) for priorities 0..7
    rp_enable: tuple[tuple[int, str], ...]
    np_params: tuple[tuple[int, str], ...]  # (value, <ecn_dir>/roce_np/<parameter>)
    rp_params: tuple[tuple[int, str], ...]
    cnp_dscp: int
    cnp_priority: int
    # RDMA-CM
    roce_mode: str
    roce_mode_arg: int
    roce_tos: int
    # netplan
    address: str
    source_ip: str
    table: int
    routes: tuple[NetplanRoute, ...]


def _csv(values: Iterable[object]) -> str:
    return ",".join(str(v) for v in values)


def _dcb_map(pairs: Mapping[int, object]) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(pairs.items()))


def _check_name(kind: str, value: str) -> str:
    if not _NAME.fullmatch(value) or value in {".", ".."}:
        raise ValueError(f"{kind} {value!r} is not a safe Linux device name")
    return value


def _check_prios(what: str, prios: list[int]) -> None:
    bad = [p for p in prios if p not in PRIORITIES]
    if bad or len(set(prios)) != len(prios):
        raise ValueError(f"{what}: priorities must be distinct values 0-7, got {prios}")


def _check_params(nic: str, side: str, params: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return _checked_params(nic, side, tuple(params.items()))


@lru_cache(maxsize=256)  # hosts share NIC names and DCQCN settings
def _checked_params(nic: str, side: str, params: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    for name, value in params:
        if not _SYSFS_FILE.fullmatch(name):
            raise ValueError(f"{nic}: DCQCN {side} parameter name {name!r} is not a sysfs file name")
        if side == "np" and name in CNP_FILES:
            raise ValueError(f"{nic}: set {name} through NicIntent.cnp_dscp/cnp_priority, not dcqcn.np")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{nic}: DCQCN {side}.{name} must be a non-negative integer, got {value!r}")
    return params


@dataclass(frozen=True)
class EtsText:
    """A NIC's PFC and ETS settings as command arguments: mlnx_qos CSVs and iproute2 dcb words."""

    pfc_csv: str
    prio_tc_csv: str
    tsa_csv: str
    tcbw_csv: str
    dcb_prio_pfc: str
    dcb_prio_tc: str
    dcb_tc_tsa: str
    dcb_tc_bw: str


@lru_cache(maxsize=256)
def _ets_text(name: str, pfc_priorities: tuple[int, ...], prio_tc: tuple[tuple[int, int], ...],
              tc_bandwidth: tuple[tuple[int, int], ...], strict_tcs: tuple[int, ...]) -> EtsText:
    """PFC and ETS (prio->tc, tc->tsa, tc->bw for all 8 priorities/TCs) for mlnx_qos and dcb, validated the
    way mlnx_qos and mlx5 do. Cached: the NICs of a fabric share a handful of these."""
    prio_tc_map, bw_in = dict(prio_tc), dict(tc_bandwidth)
    if sorted(prio_tc_map) != list(PRIORITIES) or any(tc not in PRIORITIES for tc in prio_tc_map.values()):
        raise ValueError(f"{name}: prio_tc must map every priority 0-7 to a TC 0-7")
    if any(tc not in PRIORITIES for tc in bw_in):
        raise ValueError(f"{name}: tc_bandwidth keys must be TCs 0-7")
    _check_prios(f"{name} strict_tcs", list(strict_tcs))
    tsa = {tc: "strict" if tc in strict_tcs else "ets" for tc in PRIORITIES}
    bw = {tc: bw_in.get(tc, 0) for tc in PRIORITIES}
    if any(bw[tc] for tc in strict_tcs):
        raise ValueError(f"{name}: strict TCs must carry 0% bandwidth, got {bw}")
    ets_sum = sum(bw[tc] for tc in PRIORITIES if tsa[tc] == "ets")
    if any(b < 0 for b in bw.values()) or ets_sum != (100 if "ets" in tsa.values() else 0):
        raise ValueError(f"{name}: ETS bandwidth must sum to 100, got {bw}")
    pfc = {p: int(p in pfc_priorities) for p in PRIORITIES}
    return EtsText(
        pfc_csv=_csv([pfc[p] for p in PRIORITIES]),
        prio_tc_csv=_csv([prio_tc_map[p] for p in PRIORITIES]),
        tsa_csv=_csv([tsa[tc] for tc in PRIORITIES]),
        tcbw_csv=_csv([bw[tc] for tc in PRIORITIES]),
        dcb_prio_pfc=" ".join(["all:off", *(f"{p}:on" for p in sorted(pfc_priorities))]),
        dcb_prio_tc=_dcb_map(prio_tc_map), dcb_tc_tsa=_dcb_map(tsa), dcb_tc_bw=_dcb_map(bw),
    )


@lru_cache(maxsize=256)
def _dcqcn_writes(netdev: str, np_enabled: tuple[int, ...], rp_enabled: tuple[int, ...],
                  np_params: tuple[tuple[str, int], ...], rp_params: tuple[tuple[str, int], ...],
                  ) -> tuple[tuple[tuple[int, str], ...], ...]:
    """(value, sysfs file) pairs: NP and RP enable per priority, then the NP and RP parameters (checked).
    Cached: hosts share NIC names and DCQCN settings."""
    ecn = f"/sys/class/net/{netdev}/ecn"
    return (tuple((int(p in np_enabled), f"{ecn}/roce_np/enable/{p}") for p in PRIORITIES),
            tuple((int(p in rp_enabled), f"{ecn}/roce_rp/enable/{p}") for p in PRIORITIES),
            tuple((value, f"{ecn}/roce_np/{name}") for name, value in np_params),
            tuple((value, f"{ecn}/roce_rp/{name}") for name, value in rp_params))


@lru_cache(maxsize=256)
def _dscp_text(name: str, dscp_to_priority: tuple[tuple[int, int], ...],
               ) -> tuple[tuple[tuple[int, int], ...], str, tuple[str, ...]]:
    """(the table by DSCP, mlnx_qos ``--dscp2prio`` arguments, dcb ``dscp-prio`` chunks) of a full
    DSCP->priority table. Cached: the NICs of a fabric share one or a few tables."""
    dscp_prio = tuple(sorted(dscp_to_priority))
    if [d for d, _ in dscp_prio] != list(DSCPS):
        raise ValueError(f"{name}: dscp_to_priority must map all 64 DSCPs")
    _check_prios(f"{name} dscp_to_priority", list({p for _, p in dscp_prio}))
    pairs = [f"{d}:{p}" for d, p in dscp_prio]
    return (dscp_prio, " ".join([f"--dscp2prio set,{d},{p}" for d, p in dscp_prio]),
            tuple(" ".join(pairs[i:i + DCB_DSCP_CHUNK]) for i in range(0, len(pairs), DCB_DSCP_CHUNK)))


_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_CANONICAL_V4 = re.compile(rf"({_OCTET}(?:\.{_OCTET}){{3}})(?:/(3[0-2]|[12]?[0-9]))?")  # no leading zeros


def _interface(address: str) -> tuple[str, str]:
    """(address/len, address) as ``ipaddress.ip_interface`` validates and prints them.

    Canonical IPv4 text is already in that form and is returned as is (this runs for every NIC of every
    host); anything else goes through ``ipaddress``.
    """
    m = _CANONICAL_V4.fullmatch(address)
    if m is not None and m.group(2) is not None:
        return address, m.group(1)
    iface = ipaddress.ip_interface(address)
    return str(iface), str(iface.ip)


@lru_cache(maxsize=4096)  # rail subnets and gateways repeat on every host of a leaf
def _network(cidr: str) -> str:
    """``cidr`` as ``ipaddress.ip_network`` (strict: no host bits) validates and prints it; ``default`` for /0."""
    m = _CANONICAL_V4.fullmatch(cidr)
    if m is not None and m.group(2) is not None:
        value = int.from_bytes(bytes(int(o) for o in m.group(1).split(".")), "big")
        plen = int(m.group(2))
        if not value & ((1 << (32 - plen)) - 1):
            return "default" if plen == 0 else cidr
    net = ipaddress.ip_network(cidr)
    return "default" if net.prefixlen == 0 else str(net)


@lru_cache(maxsize=4096)
def _address(ip: str) -> str:
    m = _CANONICAL_V4.fullmatch(ip)
    return ip if m is not None and m.group(2) is None else str(ipaddress.ip_address(ip))


def _routes(nic: NicIntent) -> tuple[NetplanRoute, ...]:
    return tuple(NetplanRoute(to=_network(r.to), via=_address(r.via), table=r.table) for r in nic.routes)


def nic_context(nic: NicIntent) -> NicContext:
    """Validate one NicIntent and pre-format every value the templates print. Raises ValueError."""
    netdev = _check_name("netdev", nic.netdev)
    rdma_dev = _check_name("rdma_dev", nic.rdma_dev)
    dscp_prio, dscp2prio_args, dcb_dscp_chunks = _dscp_text(netdev, tuple(nic.dscp_to_priority.items()))
    _check_prios(f"{netdev} pfc_priorities", nic.pfc_priorities)
    _check_prios(f"{netdev} dcqcn.np_enabled", nic.dcqcn.np_enabled)
    _check_prios(f"{netdev} dcqcn.rp_enabled", nic.dcqcn.rp_enabled)
    _check_prios(f"{netdev} cnp_priority", [nic.cnp_priority])
    if not 0 <= nic.cnp_dscp <= 63 or not 0 <= nic.roce_tos <= 255:
        raise ValueError(f"{netdev}: cnp_dscp must be 0-63 and roce_tos 0-255")
    ets = _ets_text(netdev, tuple(nic.pfc_priorities), tuple(nic.prio_tc.items()), tuple(nic.tc_bandwidth.items()),
                    tuple(nic.strict_tcs))
    address, source_ip = _interface(nic.address)
    np_enable, rp_enable, np_params, rp_params = _dcqcn_writes(
        netdev, tuple(nic.dcqcn.np_enabled), tuple(nic.dcqcn.rp_enabled),
        _check_params(netdev, "np", nic.dcqcn.np), _check_params(netdev, "rp", nic.dcqcn.rp))
    return NicContext(
        netdev=netdev, rdma_dev=rdma_dev, rdma_port=RDMA_PORT, rail=nic.rail, leaf=nic.leaf,
        leaf_port=nic.leaf_port, mtu=nic.mtu, trust=nic.trust, dscp_prio=dscp_prio, dscp2prio_args=dscp2prio_args,
        ets=ets, dcb_dscp_chunks=dcb_dscp_chunks,
        ecn_dir=f"/sys/class/net/{netdev}/ecn",
        np_enable=np_enable, rp_enable=rp_enable, np_params=np_params, rp_params=rp_params,
        cnp_dscp=nic.cnp_dscp, cnp_priority=nic.cnp_priority,
        roce_mode=nic.roce_mode, roce_mode_arg=ROCE_MODE_ARG[nic.roce_mode], roce_tos=nic.roce_tos,
        address=address, source_ip=source_ip, table=nic.table, routes=_routes(nic),
    )


@lru_cache(maxsize=64)  # hosts with the same NIC names have the same sysctls
def _sysctls(sysctls: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """(key, value, shell word for ``sysctl -w``) sorted by key."""
    out = []
    for key, value in sorted(sysctls):
        if not _SYSCTL_KEY.fullmatch(key) or not _SYSCTL_VALUE.fullmatch(value):
            raise ValueError(f"sysctl {key}={value!r}: key or value has characters the scripts cannot carry")
        out.append((key, value, shlex.quote(f"{key}={value}")))
    return tuple(out)


def nccl_variables(nccl: NcclIntent) -> tuple[tuple[str, str], ...]:
    """(NCCL variable, value) in file order. Syntax from NVIDIA/nccl@5067397 and its env docs:
    ``NCCL_IB_HCA`` ``=`` prefix = exact names (else prefixes: mlx5_1 would also match mlx5_10..19,
    src/misc/utils.cc matchIf); ``NCCL_SOCKET_IFNAME`` ``=eth0`` = exactly eth0 (docs env.html);
    without NCCL_IB_GID_INDEX NCCL picks the GID by NCCL_IB_ROCE_VERSION_NUM / NCCL_IB_ADDR_FAMILY /
    NCCL_IB_ADDR_RANGE (src/transport/net_ib/connect.cc 317-331)."""
    devs = [_check_name("NCCL_IB_HCA device", d) for d in nccl.ib_hca]
    if not devs:
        raise ValueError("NCCL_IB_HCA: the host has no rail NICs")
    if not 0 <= nccl.ib_tc <= 255:
        raise ValueError(f"NCCL_IB_TC must be 0-255, got {nccl.ib_tc}")
    out = [("NCCL_IB_HCA", ("=" if nccl.ib_hca_exact else "") + ",".join(devs)), ("NCCL_IB_TC", str(nccl.ib_tc))]
    if nccl.gid_index is not None:
        out.append(("NCCL_IB_GID_INDEX", str(nccl.gid_index)))
    else:
        out += [("NCCL_IB_ROCE_VERSION_NUM", str(nccl.roce_version)), ("NCCL_IB_ADDR_FAMILY", nccl.addr_family)]
        if nccl.addr_range is not None:
            out.append(("NCCL_IB_ADDR_RANGE", str(ipaddress.ip_network(nccl.addr_range))))
    out += [("NCCL_IB_QPS_PER_CONNECTION", str(nccl.qps_per_connection)),
            ("NCCL_IB_SPLIT_DATA_ON_QPS", str(nccl.split_data_on_qps))]
    if nccl.socket_ifname is not None:
        out.append(("NCCL_SOCKET_IFNAME", "=" + _check_name("NCCL_SOCKET_IFNAME", nccl.socket_ifname)))
    # NCCL_CROSS_NIC 0/1/2 (docs env.html#nccl-cross-nic); NCCL_IB_FIFO_TC: the CTS QP's ToS byte (NCCL >= 2.22.3,
    # NVIDIA/nccl PR#1194; connect.cc applies it on Ethernet link layers only, older NCCLs ignore the variable)
    out.append(("NCCL_CROSS_NIC", str(nccl.cross_nic)))
    if nccl.fifo_tc is not None:
        if not 0 <= nccl.fifo_tc <= 255:
            raise ValueError(f"NCCL_IB_FIFO_TC must be 0-255, got {nccl.fifo_tc}")
        out.append(("NCCL_IB_FIFO_TC", str(nccl.fifo_tc)))
    return tuple(out)


_MLXCONFIG_PARAM = re.compile(r"[A-Z][A-Z0-9_]*_P[12]")


def firmware_sets(firmware: FirmwareIntent | None) -> tuple[tuple[str, str], ...]:
    """(RDMA device, ``NAME=value ...`` words of ``mlxconfig -d <dev> -y set``), devices sorted. MFT docs
    ("Using mlxconfig"): ``mlxconfig -d <device> set NAME=value ...``; ``-y`` answers the confirmation."""
    if firmware is None:
        return ()
    out = []
    for dev, params in sorted(firmware.devices.items()):
        bad = [k for k in params if not _MLXCONFIG_PARAM.fullmatch(k)]
        if bad or any(isinstance(v, bool) or v < 0 for v in params.values()):
            raise ValueError(f"{dev}: mlxconfig parameters must be NAME_P<port>=<non-negative int>, got {params}")
        out.append((_check_name("mlxconfig device", dev), " ".join(f"{k}={v}" for k, v in sorted(params.items()))))
    return tuple(out)


def render_context(host: HostIntent, make_nic: Callable[[NicIntent], NicContext] = nic_context) -> dict[str, Any]:
    """Template variables for one host. NICs in rail order; raises ValueError on an unrenderable intent.
    ``make_nic``: :func:`nic_context` or a function returning equal contexts (``nic_classes``)."""
    nics = sorted(host.nics.values(), key=lambda n: (n.rail, n.plane, n.netdev))
    tables = [n.table for n in nics]
    if len(set(tables)) != len(tables):
        raise ValueError(f"{host.name}: NIC routing tables must be unique per host, got {tables}")
    return {
        "host": host,
        "nics": [make_nic(n) for n in nics],
        "sysctls": _sysctls(tuple(host.sysctls.items())),
        "setup_script": INSTALL_TARGETS["roce-setup.sh"].path,
        "sysctl_conf": INSTALL_TARGETS["sysctl.conf"].path,
        "netplan_file": INSTALL_TARGETS["netplan.yaml"].path,
        "nccl": nccl_variables(host.nccl),
        "nccl_conf": INSTALL_TARGETS["nccl.conf"].path,
        "nccl_env": INSTALL_TARGETS["nccl.env"].path,
        "firmware": host.firmware,
        "firmware_sets": firmware_sets(host.firmware),
    }


# --------------------------------------------------------------------------------------------
# line-by-line safety
# --------------------------------------------------------------------------------------------

PREAMBLE = "set -euo pipefail"
"""Allowed once, before the first command; :func:`script_commands` leaves it out because sent to an
interactive shell ``set -e`` would end the SSH session at the first failing command. The
line-by-line runner checks each command's exit status itself."""

# A word: unquoted safe characters and/or single-quoted segments (no expansion happens in either).
_WORD = re.compile(r"(?:[A-Za-z0-9_@%+=:,./-]|'[^'\n]*')+")
_SPACE = re.compile(r"[ \t]+")
_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+(?: +[A-Za-z0-9_@%+=:,./-]+)*(?: +> +[A-Za-z0-9_@%+=:,./-]+)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=")
# Keywords start compound commands; these builtins change shell state that later lines would rely on.
_NOT_SIMPLE = frozenset({
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "select",
    "function", "time", "coproc", "in",
    "cd", "pushd", "popd", "export", "set", "unset", "source", ".", "eval", "exec", "alias", "trap",
    "shopt", "declare", "typeset", "local", "readonly", "let", "exit", "return",
})


_KEYWORDS = "|".join(re.escape(w) for w in sorted(_NOT_SIMPLE))
# A whole script in one pass: blank lines, comments and the preamble, then blank lines, comments and
# _PLAIN commands (words of safe characters, at most one trailing "> target") whose first word is
# neither a keyword/state-changing builtin nor an assignment. A text this matches passes
# script_commands() (a sufficient, not a necessary, condition: blanks other than space and tab, a
# missing final newline and the like are left to the line-by-line check).
_SIMPLE_SCRIPT = re.compile(
    rf"(?:[ \t]*(?:#[^\n]*|{re.escape(PREAMBLE)}[ \t]*)?\n)*+"
    rf"(?:[ \t]*(?:#[^\n]*|(?!(?:{_KEYWORDS})[ \t\n]|[A-Za-z_][A-Za-z0-9_]*\+?=)"
    r"[A-Za-z0-9_@%+=:,./-][A-Za-z0-9_@%+=:,./ -]*+(?:(?<= )> +[A-Za-z0-9_@%+=:,./-]+)?[ \t]*)?\n)*+"
)


class ScriptError(PicklableError, ValueError):
    """A script line is not one simple command; ``problems`` lists (line number, line, reason)."""

    def __init__(self, problems: list[tuple[int, str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"line {n}: {reason}: {line!r}" for n, line, reason in problems))


def simple_command_problem(line: str) -> str | None:
    """Why ``line`` is not one simple command safe to type into an interactive shell, or None.

    Accepted: words made of ``A-Za-z0-9_@%+=:,./-`` and single-quoted strings, separated by blanks,
    optionally ending in one ``> target`` redirection. Everything else (pipes, lists, ``$``,
    backquotes, globs, braces, subshells, double quotes, continuations, assignments,
    keywords and state-changing builtins) is refused.

    >>> simple_command_problem("echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3") is None
    True
    >>> simple_command_problem("mlnx_qos -i eth0 --trust dscp && echo ok")
    "unexpected '&' at column 31"
    """
    text = line.strip()
    if _PLAIN.fullmatch(text):  # fast path: plain words, optional "> target" (nearly every line)
        first = text.split(" ", 1)[0]
        if _ASSIGNMENT.match(first):
            return "variable assignment"
        return f"{first!r} is a shell keyword or changes shell state" if first in _NOT_SIMPLE else None
    words: list[str] = []
    redirect: str | None = None
    pos = 0
    while pos < len(text):
        if words or redirect is not None:
            gap = _SPACE.match(text, pos)
            if not gap:
                return f"unexpected {text[pos]!r} at column {pos + 1}"
            pos = gap.end()
        if redirect is None and text.startswith(">", pos) and words:
            gap = _SPACE.match(text, pos + 1)
            target = _WORD.match(text, gap.end()) if gap else None
            if not target:
                return "'>' must be followed by a blank and one plain target"
            redirect = target.group()
            pos = target.end()
            continue
        if redirect is not None:
            return "nothing may follow the redirection target"
        word = _WORD.match(text, pos)
        if not word:
            return f"unexpected {text[pos]!r} at column {pos + 1}"
        words.append(word.group())
        pos = word.end()
    if not words:
        return "empty command"
    if _ASSIGNMENT.match(words[0]):
        return "variable assignment"
    if words[0] in _NOT_SIMPLE:
        return f"{words[0]!r} is a shell keyword or changes shell state"
    return None


def script_commands(text: str) -> list[str]:
    """The executable lines of a setup script, in order, each one simple command. Raises ScriptError.

    Skipped: blank lines, comments (including the ``#!`` line) and the :data:`PREAMBLE` line
    when it comes before the first command.
    """
    commands: list[str] = []
    problems: list[tuple[int, str, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line == PREAMBLE and not commands:
            continue
        problem = "line continuation" if line.endswith("\\") else simple_command_problem(line)
        if problem:
            problems.append((number, raw, problem))
        else:
            commands.append(line)
    if problems:
        raise ScriptError(problems)
    return commands


def _checked_script(text: str) -> str:
    """The postprocess of the setup scripts: refuse to emit a script the deploy cannot send.

    One regular-expression pass accepts the scripts the templates write; anything it does not accept
    gets the line-by-line :func:`script_commands` check (which raises ScriptError on a real problem).
    """
    if not _simple_script(text):
        script_commands(text)
    return text


# Each distinct script line's kind as _SIMPLE_SCRIPT reads it, remembered: the same lines recur in every host's
# scripts. Up to _KNOWN_MAX lines; beyond them, the whole-text regex again.
_LINES: dict[str, set[str]] = {"preamble": set(), "neutral": set(), "command": set(), "refused": set()}
_KNOWN_MAX = 200_000


def _line_kind(line: str) -> str:
    """``preamble``, ``neutral`` (blank or comment), ``command`` or ``refused``: one line (without its newline) as
    :data:`_SIMPLE_SCRIPT` reads it."""
    if _SIMPLE_SCRIPT.fullmatch(line + "\n") is None:
        return "refused"
    body = line.strip(" \t")
    if body == PREAMBLE:
        return "preamble"
    return "neutral" if not body or body.startswith("#") else "command"


def _simple_script(text: str) -> bool:
    """``_SIMPLE_SCRIPT.fullmatch(text) is not None``, one distinct line at a time: the text ends in a newline (or
    is empty), every line is a preamble, blank, comment or command line, and no preamble comes after a command.
    (The whole-text regex cost ~0.16 ms per script, the largest part of a host's rendering.)"""
    lines = text.split("\n")
    if lines.pop():  # the text does not end in a newline (and is not empty)
        return False
    distinct = set(lines)
    new = distinct.difference(*_LINES.values())
    if new:
        if sum(map(len, _LINES.values())) + len(new) > _KNOWN_MAX:
            return _SIMPLE_SCRIPT.fullmatch(text) is not None  # remembering stops here
        for line in new:  # only ever added to: a line found in a set is of that kind, in any thread
            _LINES[_line_kind(line)].add(line)
    if not distinct.isdisjoint(_LINES["refused"]):
        return False
    preambles = distinct.intersection(_LINES["preamble"])
    if not preambles:
        return True
    commands = _LINES["command"]
    for at, line in enumerate(lines):  # no preamble after the first command
        if line in commands:
            return preambles.isdisjoint(lines[at:])
    return True


# --------------------------------------------------------------------------------------------
# the platform object
# --------------------------------------------------------------------------------------------

OUTPUTS: tuple[RenderOutput, ...] = (
    RenderOutput("roce-setup.sh", "roce-setup.sh.j2"),
    RenderOutput("roce-setup-dcb.sh", "roce-setup-dcb.sh.j2"),
    RenderOutput("netplan.yaml", "netplan.yaml.j2"),
    RenderOutput("roceops-roce.service", "roceops-roce.service.j2"),
    RenderOutput("sysctl.conf", "sysctl.conf.j2"),
    RenderOutput("nccl.conf", "nccl.conf.j2"),
    RenderOutput("nccl.env", "nccl.env.j2"),
    RenderOutput(FIRMWARE_SCRIPT, "mlxconfig.sh.j2"),
)
# the scripts are checked as they are rendered (PlatformCode.postprocess)
POSTPROCESS = dict.fromkeys(("roce-setup.sh", "roce-setup-dcb.sh", FIRMWARE_SCRIPT), _checked_script)

# Deploy becomes root with netmiko's LinuxSSH.enable() (it sends `sudo -s` and answers the
# password prompt with `secret`; NOPASSWD sudo also works). A root *shell* is required: the
# sysfs/configfs writes are shell redirections, so `sudo echo 1 > file` would not work.
# send_config_set() does the same (config_mode = sudo -s) and exits the root shell afterwards.
NETMIKO = NetmikoSettings(device_type="linux")
