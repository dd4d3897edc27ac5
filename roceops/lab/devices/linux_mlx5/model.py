"""Lab state of a simulated ConnectX (mlx5) Linux host: NICs, DCB/QoS, DCQCN sysfs, routing, sysctls.

Defaults are what a freshly booted host shows (MLNX_OFED mlx5 + mlnx-tools, upstream iproute2):

=====================  ===================================================================
trust / DSCP map       ``pcp`` (no DSCP APP entries); firmware DSCP->priority map ``dscp >> 3``
PFC                    off on every priority; cable length 7 m (mlx5 default)
ETS                    priority 0 -> TC 1, priority 1 -> TC 0, others identity; TSA ``vendor``
DCQCN sysfs            NP and RP enabled on all 8 priorities; parameters at ConnectX defaults
RDMA-CM                ``default_roce_mode`` "RoCE v2" (kernel ``CMA_PREFERRED_ROCE_GID_TYPE``),
                       ``default_roce_tos`` 0
global pause           rx on, tx on
MTU                    1500, no rail addresses, no extra routes or rules
sysctls                ``net.ipv4.conf.*`` ARP/rp_filter knobs 0
=====================  ===================================================================

Per-device memory is kept small (``__slots__``, bitmasks, byte arrays, parameter *overrides*
only); big outputs are built on demand by the command modules.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from roceops.lab.physical import port_mac

PRIOS = range(8)
TSA_STRICT, TSA_CBS, TSA_ETS, TSA_VENDOR = 0, 1, 2, 255
TSA_NAMES: dict[int, str] = {TSA_STRICT: "strict", TSA_CBS: "cbs", TSA_ETS: "ets", TSA_VENDOR: "vendor"}
TSA_CODES: dict[str, int] = {v: k for k, v in TSA_NAMES.items()}
DEFAULT_PRIO_TC = bytes([1, 0, 2, 3, 4, 5, 6, 7])  # mlx5e_ets_init: tclass[prio 0]=1, tclass[prio 1]=0
DEFAULT_CABLE_LEN = 7  # MLX5E_DEFAULT_CABLE_LEN
MAX_MTU = 9978  # mlx5 max netdev MTU
ROCE_MODES = ("IB/RoCE v1", "RoCE v2")
DEFAULT_ROCE_MODE = "RoCE v2"
RDMA_PORT = 1
DEFAULT_FIRMWARE = "28.42.1000"
FAULT_FIRMWARE = "28.39.2048"
DRIVER_VERSION = "24.10-1.1.4"  # MLNX_OFED / DOCA-OFED mlx5_core module version
PSID = "MT_0000000838"

# ecn/roce_np and ecn/roce_rp files (MLNX_OFED en_ecn.c) with ConnectX defaults (platforms.md 6.3)
NP_DEFAULTS: dict[str, int] = {"min_time_between_cnps": 4, "cnp_dscp": 48, "cnp_802p_prio": 6}
RP_DEFAULTS: dict[str, int] = {
    "clamp_tgt_rate": 0, "clamp_tgt_rate_after_time_inc": 1, "rpg_time_reset": 300, "rpg_byte_reset": 32767,
    "rpg_threshold": 1, "rpg_max_rate": 0, "rpg_ai_rate": 5, "rpg_hai_rate": 50, "rpg_gd": 11,
    "rpg_min_dec_fac": 50, "rpg_min_rate": 1, "rate_to_set_on_first_cnp": 0, "dce_tcp_g": 1019,
    "dce_tcp_rtt": 1, "rate_reduce_monitor_period": 4, "initial_alpha_value": 1023,
}
SIDE_DEFAULTS: dict[str, dict[str, int]] = {"roce_np": NP_DEFAULTS, "roce_rp": RP_DEFAULTS}
# accepted ranges (NVIDIA DCQCN parameter page); anything else is rejected with EINVAL
PARAM_RANGES: dict[str, tuple[int, int]] = {
    "cnp_dscp": (0, 63), "cnp_802p_prio": (0, 7), "min_time_between_cnps": (0, 4095),
    "dce_tcp_g": (0, 1023), "dce_tcp_rtt": (1, 131071), "initial_alpha_value": (0, 1023),
    "rpg_min_dec_fac": (0, 100), "rpg_gd": (0, 15), "clamp_tgt_rate": (0, 1),
    "clamp_tgt_rate_after_time_inc": (0, 1), "rpg_time_reset": (1, 131071), "rpg_byte_reset": (1, 32767),
    "rpg_threshold": (1, 31),
}
PARAM_MAX = 2**31 - 1

SYSCTL_CONF_PARAMS: dict[str, str] = {
    "accept_local": "0", "arp_announce": "0", "arp_filter": "0", "arp_ignore": "0", "forwarding": "0",
    "rp_filter": "0", "src_valid_mark": "0",
}
SYSCTL_GLOBALS: dict[str, str] = {
    "kernel.hostname": "", "net.core.rmem_max": "212992", "net.core.wmem_max": "212992",
    "net.ipv4.ip_forward": "0", "net.ipv4.tcp_ecn": "2", "net.ipv4.tcp_mtu_probing": "0",
    "net.ipv4.tcp_rmem": "4096\t131072\t6291456", "net.ipv4.tcp_wmem": "4096\t16384\t4194304",
}

HW_COUNTERS = (
    "duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err", "np_cnp_sent",
    "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence", "packet_seq_err", "req_cqe_error",
    "req_cqe_flush_error", "req_remote_access_errors", "req_remote_invalid_request", "resp_cqe_error",
    "resp_cqe_flush_error", "resp_local_length_error", "resp_remote_access_errors", "rnr_nak_retry_err",
    "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
    "roce_slow_restart_trans", "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests", "rx_dct_connect",
    "rx_icrc_encapsulated", "rx_read_requests", "rx_write_requests",
)
NET_FILES = ("address", "carrier", "carrier_changes", "mtu", "operstate", "speed")

# mlxconfig (NVCONFIG) RoCE parameters of a simulated ConnectX and their factory defaults: Ethernet link,
# DCQCN on every priority (ROCE_CC_PRIO_MASK 255, as in a real ConnectX query), CNP DSCP 48 / priority 6 (the
# sysfs defaults above); SRIOV_EN/NUM_OF_VFS as every query lists them.
NVCONFIG_DEFAULTS: dict[str, int] = {"LINK_TYPE_P1": 2, "ROCE_CC_PRIO_MASK_P1": 255, "CNP_DSCP_P1": 48,
                                     "CNP_802P_PRIO_P1": 6, "SRIOV_EN": 0, "NUM_OF_VFS": 0}
NVCONFIG_ENUMS: dict[str, dict[int, str]] = {"LINK_TYPE_P1": {1: "IB", 2: "ETH"}, "SRIOV_EN": {0: "False", 1: "True"},
                                             # a BlueField's operation mode (the dpu_mode fault; numbers: lab shape)
                                             "INTERNAL_CPU_MODEL": {0: "SEPARATED_HOST", 1: "EMBEDDED_CPU"},
                                             "INTERNAL_CPU_OFFLOAD_ENGINE": {0: "ENABLED", 1: "DISABLED"}}
# what the dpu_mode fault makes a NIC: a BlueField-3 in DPU mode ([default, current, next boot] per parameter)
DPU_NVCONFIG: dict[str, list[int]] = {"INTERNAL_CPU_MODEL": [1, 1, 1], "INTERNAL_CPU_OFFLOAD_ENGINE": [0, 0, 0]}
DEVICE_TYPE = "ConnectX7"
PART_NAME = "MCX75310AAS-NEAT_Ax"

TABLE_IDS: dict[str, int] = {"local": 255, "main": 254, "default": 253}
TABLE_NAMES: dict[int, str] = {v: k for k, v in TABLE_IDS.items()}


class FsError(Exception):
    """A filesystem-level failure; ``strerror`` is the text bash/coreutils print after the path."""

    def __init__(self, strerror: str) -> None:
        super().__init__(strerror)
        self.strerror = strerror


ENOENT = "No such file or directory"
EACCES = "Permission denied"
EINVAL = "Invalid argument"
EISDIR = "Is a directory"


class Nic:
    """One mlx5 netdev + its RDMA device. Everything the setup script changes lives here."""

    __slots__ = (
        "addrs",
        "admin_up",
        "apps",
        "cable_len",
        "dcbx_os",
        "driver",
        "dscp2prio",
        "firmware",
        "fw_override",
        "ifindex",
        "mac",
        "mtu",
        "name",
        "neighbor",
        "np_en",
        "nvconfig",
        "old_driver",
        "params",
        "pause_rx",
        "pause_tx",
        "pfc",
        "pfc_delay",
        "prio_tc",
        "ratelimit",
        "rdma_dev",
        "roce_mode",
        "roce_tos",
        "rp_en",
        "speed",
        "tcbw",
        "tsa",
    )

    def __init__(self, spec: Mapping[str, Any], ifindex: int, device: str) -> None:
        self.name: str = str(spec["name"])
        self.rdma_dev: str = str(spec.get("rdma_dev") or f"mlx5_{ifindex - 3}")
        self.speed: int = int(spec.get("speed", 400_000))
        self.neighbor = tuple(spec["neighbor"]) if spec.get("neighbor") else None
        self.firmware: str = str(spec.get("firmware") or DEFAULT_FIRMWARE)
        self.driver: str = str(spec.get("driver") or "mlx5_core")
        self.fw_override: str | None = None
        self.old_driver = False  # ethtool -S in an older in-box driver's names (the old_driver fault)
        self.ifindex = ifindex
        self.mac = port_mac(device, self.name)  # the far end's neighbour table learns the same (lab/physical.py)
        # mlxconfig parameter -> [default, current, next boot] (the firmware's non-volatile configuration)
        self.nvconfig: dict[str, list[int]] = {k: [v, v, v] for k, v in NVCONFIG_DEFAULTS.items()}
        self.power_on()

    def power_on(self) -> None:
        """The runtime state after a boot: everything the setup script and netplan set is at its default."""
        self.mtu = 1500
        self.admin_up = True
        self.addrs: list[tuple[str, int]] = []
        self.pause_rx = True
        self.pause_tx = True
        self.dcbx_os = True
        self.ratelimit: tuple[int, ...] | None = None
        self.pfc_delay = 0
        self.prio_tc = bytearray(DEFAULT_PRIO_TC)
        self.tsa = bytearray([TSA_VENDOR] * 8)
        self.tcbw = bytearray([100] * 8)
        self.cable_len = DEFAULT_CABLE_LEN
        self.reset_roce()

    def reset_roce(self) -> None:
        """What a driver restart / reboot loses: DCB trust, DSCP map, PFC, DCQCN sysfs, RDMA-CM defaults."""
        self.apps = bytearray()  # DSCPs with an APP entry, most recent first (the kernel list order)
        self.dscp2prio = bytearray(d >> 3 for d in range(64))
        self.pfc = 0
        self.np_en = 0xFF
        self.rp_en = 0xFF
        self.params: dict[str, int] = {}  # "roce_np/<file>" / "roce_rp/<file>" -> value, overrides only
        self.roce_mode = DEFAULT_ROCE_MODE
        self.roce_tos = 0

    # ---- DCB

    @property
    def trust(self) -> str:
        return "dscp" if self.apps else "pcp"

    @property
    def fw_version(self) -> str:
        return self.fw_override or self.firmware

    def pfc_prios(self) -> list[int]:
        return [p for p in PRIOS if self.pfc >> p & 1]

    def set_app(self, dscp: int, prio: int) -> None:
        """mlx5e_dcbnl_ieee_setapp for a DSCP entry: one entry per DSCP, the new one first in the list."""
        self.dscp2prio[dscp] = prio
        if dscp in self.apps:
            self.apps.remove(dscp)
        self.apps.insert(0, dscp)

    def del_app(self, dscp: int, prio: int) -> bool:
        """mlx5e_dcbnl_ieee_delapp: the entry must match; the DSCP maps back to priority 0."""
        if dscp not in self.apps or self.dscp2prio[dscp] != prio:
            return False
        self.apps.remove(dscp)
        self.dscp2prio[dscp] = 0
        return True

    def ets_bw(self) -> list[int]:
        """tc_tx_bw as mlx5 reports it: ETS TCs their share, strict/vendor TCs 100."""
        return [self.tcbw[tc] if self.tsa[tc] == TSA_ETS else 100 for tc in PRIOS]

    # ---- DCQCN sysfs

    def ecn_get(self, side: str, name: str) -> int:
        return self.params.get(f"{side}/{name}", SIDE_DEFAULTS[side][name])

    def ecn_enabled(self, side: str, prio: int) -> int:
        mask = self.np_en if side == "roce_np" else self.rp_en
        return mask >> prio & 1


@dataclass(frozen=True, slots=True)
class Route:
    table: int
    dst: str  # canonical network "a.b.c.d/len" ("0.0.0.0/0" for default)
    gateway: str | None
    dev: str
    metric: int = 0
    proto: str = "boot"
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    priority: int
    src: str | None  # network "a.b.c.d/len" or None for "all"
    table: int


DEFAULT_RULES = (Rule(0, None, 255), Rule(32766, None, 254), Rule(32767, None, 253))


def table_name(table: int) -> str:
    return TABLE_NAMES.get(table, str(table))


def parse_table(text: str) -> int | None:
    if text in TABLE_IDS:
        return TABLE_IDS[text]
    return int(text) if text.isdigit() and 0 < int(text) < 2**32 else None


class Host:
    """The whole simulated host: NICs, management interface, routing, sysctls, configfs dirs."""

    def __init__(self, name: str, extra: Mapping[str, Any]) -> None:
        self.hostname = str(extra.get("hostname", name))
        self.mgmt_ip = str(extra.get("mgmt_ip") or "")
        self.nics: dict[str, Nic] = {}
        for i, spec in enumerate(extra.get("nics") or extra.get("ports") or []):
            nic = Nic(spec, ifindex=3 + i, device=name)
            self.nics[nic.name] = nic
        self.by_rdma = {n.rdma_dev: n for n in self.nics.values()}
        self.routes: list[Route] = []
        self.rules: list[Rule] = []
        self.sysctl: dict[str, str] = {}
        self.configfs: set[str] = set()  # rdma_cm/<dev> directories an admin created by hand
        self.files: dict[str, tuple[str, int]] = {}  # regular files (/etc, /usr/local/sbin): path -> (text, mode)
        self.unit_enabled: dict[str, str] = {}  # unit -> "enabled"/"disabled" (the wants/ symlink)
        self.unit_loaded: dict[str, str] = {}  # unit -> unit file text systemd loaded (boot, daemon-reload)
        self.unit_result: dict[str, tuple[str, int]] = {}  # unit -> (Result, ExecMainStatus) of its run this boot

    # ---- addressing

    def connected(self, dev: str) -> list[ipaddress.IPv4Interface]:
        nic = self.nics.get(dev)
        return [ipaddress.IPv4Interface(f"{a}/{p}") for a, p in (nic.addrs if nic else [])]

    def gateway_dev(self, gateway: str, dev: str | None) -> str | None:
        """The device through which ``gateway`` is directly reachable (a connected subnet), or None."""
        gw = ipaddress.IPv4Address(gateway)
        for name in [dev] if dev else list(self.nics):
            if name and any(gw in i.network for i in self.connected(name)):
                return name
        return None

    def prune_routes(self, dev: str) -> None:
        """Drop routes via ``dev`` whose gateway is no longer on a connected subnet (fib_sync_down_addr)."""
        self.routes = [r for r in self.routes
                       if r.dev != dev or r.gateway is None or self.gateway_dev(r.gateway, dev) is not None]

    # ---- sysctl

    def sysctl_default(self, key: str) -> str | None:
        if key == "kernel.hostname":
            return self.hostname
        if key in SYSCTL_GLOBALS:
            return SYSCTL_GLOBALS[key]
        parts = key.split(".")
        if len(parts) == 5 and parts[:3] == ["net", "ipv4", "conf"] and parts[4] in SYSCTL_CONF_PARAMS \
                and (parts[3] in ("all", "default", "lo", "eno1") or parts[3] in self.nics):
            return SYSCTL_CONF_PARAMS[parts[4]]
        return None

    def sysctl_get(self, key: str) -> str | None:
        default = self.sysctl_default(key)
        return None if default is None else self.sysctl.get(key, default)

    def sysctl_keys(self) -> Iterator[str]:
        yield from SYSCTL_GLOBALS
        for ifname in ("all", "default", "lo", "eno1", *self.nics):
            for param in SYSCTL_CONF_PARAMS:
                yield f"net.ipv4.conf.{ifname}.{param}"


def norm_sysctl_key(key: str) -> str:
    return key.strip().replace("/", ".").strip(".")
