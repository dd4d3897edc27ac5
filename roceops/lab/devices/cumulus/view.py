"""The effective (operational) QoS and port state the lab's Cumulus switch derives from its applied tree.

NVUE's ``nv show`` tables print two columns: *applied* (what the configuration says) and
*operational* (what the switch runs). The difference comes from defaults and from the RoCE preset
(``nv set qos roce``). The lab models the preset like this (values from the Cumulus 5.x RoCE
page, platforms.md §2.1):

* ``qos roce`` present and ``enable`` not ``off`` turns the preset on; ``mode`` defaults to lossless;
* trust ``pcp,dscp``; DSCP -> switch priority by blocks of 8 (DSCP 24-31 -> SP3); PCP -> SP identity;
* SP3 -> TC3, SP6 -> TC6, every other SP -> TC0; ETS: TC6 strict, TC3 and TC0 DWRR 50 %;
* ECN on TC0 and TC3 (min 150000 B, max 1500000 B, probability 100);
* lossless modes only: PFC on SP3 (rx and tx) with cable length 100 m.

Explicit configuration wins: per entry for maps (one DSCP, one SP, one TC of the scheduler) and
per *profile* for PFC and congestion control (a configured ``qos pfc default-global`` or
``qos congestion-control default-global`` replaces the preset's, so removing its last
``switch-priority`` really turns PFC off). Without the preset: trust ``pcp``, DSCP blocks of 8,
SP -> TC identity, no PFC, no ECN, DWRR with no bandwidth (0 %) everywhere.

PFC on a port is its bound profile (``interface <swp> qos pfc profile``, default ``default-global``):
NVUE has no per-port priority list, so the profile's switch priorities apply to every port bound to it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from roceops.lab.devices.cumulus.schema import MEMBER, OBJECT, Path, Tree

PROFILE = "default-global"
PRESET_ECN = (150000, 1500000, 100)
PRESET_CABLE = 100
DEFAULT_POLL_MS = 100
DEFAULT_ROBUSTNESS = 3
DEFAULT_BW = 0  # a DWRR TC without a bandwidth shows DWRR-0% (NVUE docs, fixtures/cumulus/..._lossy_multi_tc.txt TC7)
TRUST_NAMES = {"l3": "dscp", "l2": "pcp", "both": "pcp,dscp", "port": "port"}


@dataclass
class PfcProfile:
    name: str
    priorities: list[int]
    tx: bool = True
    rx: bool = True
    cable_length: int | None = None
    port_buffer: int | None = None
    xoff: int | None = None
    xon: int | None = None


@dataclass
class EcnTc:
    ecn: bool
    red: bool
    min_bytes: int | None
    max_bytes: int | None
    probability: int | None


@dataclass
class PortView:
    name: str
    admin_up: bool
    mtu: int
    speed: str | None
    description: str
    addresses: list[str]
    pfc_profile: str
    watchdog: bool


@dataclass
class View:
    roce: bool
    roce_mode: str | None
    trust: str
    dscp_to_sp: dict[int, int]
    pcp_to_sp: dict[int, int]
    sp_to_tc: dict[int, int]
    pfc: dict[str, PfcProfile]
    ecn: dict[int, EcnTc]
    sched: dict[int, tuple[str, int | None]]
    poll_ms: int
    robustness: int
    ports: dict[str, PortView] = field(default_factory=dict)
    # texts derived from this view alone (``nv show`` parts that no counter moves), filled on first use; a
    # view is never changed after build_view and is replaced on every change of the applied revision
    memo: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)

    def port_pfc(self, port: str) -> list[int]:
        pv = self.ports.get(port)
        profile = self.pfc.get(pv.pfc_profile if pv else PROFILE)
        return list(profile.priorities) if profile else []

    def lossless_tcs(self, port: str | None = None) -> list[int]:
        sps = self.port_pfc(port) if port else (self.pfc[PROFILE].priorities if PROFILE in self.pfc else [])
        return sorted({self.sp_to_tc.get(sp, sp) for sp in sps})

    def ets_label(self, tc: int) -> str:
        mode, bw = self.sched.get(tc, ("dwrr", DEFAULT_BW))
        return "strict-priority" if mode == "strict" else f"DWRR-{bw if bw is not None else 0}%"


def sub(tree: Tree, prefix: Path) -> dict[Path, str]:
    """Entries under ``prefix`` with the prefix removed."""
    n = len(prefix)
    if not prefix:
        return {k: v for k, v in tree.items() if k}
    first = prefix[0]  # compared before slicing: most keys differ there already
    return {k[n:]: v for k, v in tree.items() if len(k) > n and k[0] == first and k[:n] == prefix}


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def _members(entries: dict[Path, str], key: str) -> list[int]:
    return sorted(int(k[1]) for k, v in entries.items() if len(k) == 2 and k[0] == key and v == MEMBER
                  and k[1].isdigit())


def build_view(tree: Tree, port_names: Iterable[str], port_speeds: dict[str, str]) -> View:
    qos = {k: v for k, v in tree.items() if k[0] == "qos"}  # what the QoS settings below read
    roce_tree = sub(qos, ("qos", "roce"))
    roce = (bool(roce_tree) or qos.get(("qos", "roce")) == OBJECT) and roce_tree.get(("enable",)) != "off"
    mode = (roce_tree.get(("mode",)) or "lossless") if roce else roce_tree.get(("mode",))
    lossless = roce and mode in ("lossless", "lossless-single-ipool")
    mapping = sub(qos, ("qos", "mapping", PROFILE))
    trust = TRUST_NAMES.get(mapping.get(("trust",), ""), "pcp,dscp" if roce else "pcp")
    dscp = {d: d >> 3 for d in range(64)}
    pcp = {p: p for p in range(8)}
    for key, value in mapping.items():
        if len(key) == 3 and key[0] in ("dscp", "pcp") and key[2] == "switch-priority":
            (dscp if key[0] == "dscp" else pcp)[int(key[1])] = int(value)
    sp_to_tc = {sp: (sp if sp in (3, 6) else 0) if roce else sp for sp in range(8)}
    for key, value in sub(qos, ("qos", "egress-queue-mapping", PROFILE, "switch-priority")).items():
        if len(key) == 2 and key[1] == "traffic-class":
            sp_to_tc[int(key[0])] = int(value)
    pfc = _pfc_profiles(qos, lossless)
    ecn = _ecn(qos, roce)
    sched: dict[int, tuple[str, int | None]] = (
        {0: ("dwrr", 50), 3: ("dwrr", 50), 6: ("strict", None)} if roce else {})
    explicit: dict[int, dict[str, str]] = {}
    for key, value in sub(qos, ("qos", "egress-scheduler", PROFILE, "traffic-class")).items():
        if len(key) == 2:
            explicit.setdefault(int(key[0]), {})[key[1]] = value
    for tc, leaves in explicit.items():
        mode_tc = leaves.get("mode", sched.get(tc, ("dwrr", None))[0])
        bw = _int(leaves.get("bw-percent"))
        sched[tc] = (mode_tc, None if mode_tc == "strict" else DEFAULT_BW if bw is None else bw)
    wd = sub(qos, ("qos", "pfc-watchdog"))
    view = View(roce=roce, roce_mode=mode, trust=trust, dscp_to_sp=dscp, pcp_to_sp=pcp, sp_to_tc=sp_to_tc,
                pfc=pfc, ecn=ecn, sched=sched,
                poll_ms=_int(wd.get(("polling-interval",))) or DEFAULT_POLL_MS,
                robustness=_int(wd.get(("robustness",))) or DEFAULT_ROBUSTNESS)
    per_port: dict[str, dict[Path, str]] = {}
    for key, value in tree.items():
        if key[0] == "interface" and len(key) > 2:
            per_port.setdefault(key[1], {})[key[2:]] = value
    for name in port_names:
        view.ports[name] = port_view(per_port.get(name, {}), name, port_speeds.get(name))
    return view


def _pfc_profiles(tree: Tree, lossless: bool) -> dict[str, PfcProfile]:
    names = {k[2] for k in tree if len(k) > 2 and k[:2] == ("qos", "pfc")}
    out: dict[str, PfcProfile] = {}
    for name in sorted(names):
        e = sub(tree, ("qos", "pfc", name))
        out[name] = PfcProfile(name=name, priorities=_members(e, "switch-priority"),
                               tx=e.get(("tx",), "enable") == "enable", rx=e.get(("rx",), "enable") == "enable",
                               cable_length=_int(e.get(("cable-length",))), port_buffer=_int(e.get(("port-buffer",))),
                               xoff=_int(e.get(("xoff-threshold",))), xon=_int(e.get(("xon-threshold",))))
    if PROFILE not in out and lossless:
        out[PROFILE] = PfcProfile(name=PROFILE, priorities=[3], cable_length=PRESET_CABLE)
    return out


def _ecn(tree: Tree, roce: bool) -> dict[int, EcnTc]:
    entries = sub(tree, ("qos", "congestion-control", PROFILE))
    if not entries and tree.get(("qos", "congestion-control", PROFILE)) != OBJECT:
        if not roce:
            return {}
        lo, hi, prob = PRESET_ECN
        return {tc: EcnTc(True, False, lo, hi, prob) for tc in (0, 3)}
    per_tc: dict[int, dict[str, str]] = {}
    for key, value in entries.items():
        if len(key) == 3 and key[0] == "traffic-class":
            per_tc.setdefault(int(key[1]), {})[key[2]] = value
    return {tc: EcnTc(ecn=v.get("ecn") == "enable", red=v.get("red") == "enable",
                      min_bytes=_int(v.get("min-threshold")), max_bytes=_int(v.get("max-threshold")),
                      probability=_int(v.get("probability")))
            for tc, v in sorted(per_tc.items())}


def default_mtu(name: str) -> int:
    return 65536 if name == "lo" else 1500 if name.startswith("eth") else 9216


def port_view(e: dict[Path, str], name: str, phys_speed: str | None) -> PortView:
    """One interface from its entries (paths relative to ``interface <name>``)."""
    state = e.get(("link", "state"))
    admin = state == "up" if state else name in ("lo", "eth0")
    addresses = sorted(k[2] for k, v in e.items() if len(k) == 3 and k[:2] == ("ip", "address") and v == MEMBER)
    return PortView(name=name, admin_up=admin, mtu=_int(e.get(("link", "mtu"))) or default_mtu(name),
                    speed=e.get(("link", "speed")) or phys_speed, description=e.get(("description",), ""),
                    addresses=addresses, pfc_profile=e.get(("qos", "pfc", "profile"), PROFILE),
                    watchdog=e.get(("qos", "pfc-watchdog", "state")) == "enable")


def human_bytes(n: float) -> str:
    """NVUE's size formatting: ``144 Bytes``, ``146.48 KB``, ``1.43 MB``, ``92824.38 GB``.

    >>> human_bytes(144), human_bytes(150000), human_bytes(1500000)
    ('144 Bytes', '146.48 KB', '1.43 MB')
    """
    if n < 1024:
        return f"{int(n)} Bytes"
    for unit, scale in (("KB", 1024), ("MB", 1024**2), ("GB", 1024**3)):
        if n < scale * 1024 or unit == "GB":
            return f"{n / scale:.2f} {unit}"
    raise AssertionError("unreachable")


def speed_text(mbps: int) -> str:
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"
