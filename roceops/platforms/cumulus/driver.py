"""Cumulus Linux NVUE driver: diff ``nv set`` commands, apply under ``nv config apply --confirm``, read back.

Pure side (text in, text out):

* :meth:`CumulusDriver.plan_change` compares the device's ``nv config show -o commands`` with the
  rendered ``nvue.commands`` on the *managed* paths (``system hostname``, ``interface`` except
  ``eth0``, ``qos``, ``router bgp``, ``vrf default router bgp``): ``nv set`` for new or changed
  leaves and set members, ``nv unset`` for managed entries the render does not have (the shortest
  path that removes them without touching rendered ones). :meth:`plan_restore` does the same from
  the current commands to a backup, on every path.
* :meth:`observe` builds the DeviceIntent-shaped dict from the applied commands (ports, BGP,
  loopback, hostname, watchdog timers) and the operational QoS tables (``nv show qos roce`` for
  trust, DSCP map and ETS; ``egress-queue-mapping``, ``pfc``, ``congestion-control``; per port
  ``qos roce status`` for PFC and ``qos pfc-watchdog``). NVUE PFC is a *global profile*: every port
  bound to ``default-global`` shows its switch priorities, so ``expected()`` gives every port the
  rendered global list. :meth:`operational` reads counters from ``counters qos`` (PFC per priority,
  ECN), ``counters errors`` (FCS), ``--view ber`` (uncorrectable FEC, symbol errors),
  ``qos roce counters`` (CNP), ``qos pfc-watchdog`` (deadlocks) and ``nv show interface -o json``
  (link, LLDP, packets, carrier transitions).

Device side: :meth:`apply` = ``nv config detach``, the lines chained with ``&&`` (bash stops at the
first refusal, which raises :class:`DriverError`), ``nv config apply --confirm <t>s -y``;
:meth:`confirm` = ``--confirm-yes`` then read back (``--confirm-status`` shows nothing waiting and
``nv config show -o commands`` still holds what was applied); :meth:`abort` = ``--confirm-no`` when
a confirm is pending, ``nv config detach``, and if the commands still differ from the backup,
the ``plan_restore`` lines + ``nv config apply -y``. Reads are batched on one shell line with
``echo`` markers (the switch's shell is bash), so a collect costs two round trips.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from roceops.plan.model import SwitchIntent
from roceops.platforms.channel import read_timeout, send_line
from roceops.platforms.cumulus import parsers as p
from roceops.platforms.cumulus import parsers_ports as pp
from roceops.platforms.cumulus.facts import INTERFACES_COMMAND, SYSTEM_COMMAND, parse_facts
from roceops.platforms.cumulus.render import (
    ECMP_HASH_FIELD,
    is_set_leaf,
    nv_set_commands,
    nv_set_paths,
    render_context,
    robustness,
)
from roceops.platforms.driver import (
    BgpSession,
    Change,
    ConfirmNotTaken,
    DeviceFacts,
    DriverError,
    Intent,
    LldpNeighbor,
    OperState,
    PortOper,
    Snapshot,
)
from roceops.render.engine import RenderedDevice

__all__ = ["DRIVER", "CumulusDriver", "collect_commands", "diff_commands", "split_marked"]

FILE = "nvue.commands"
CONFIG = "nv config show -o commands"
GLOBAL_SHOWS = (
    CONFIG,
    "nv show qos roce",
    "nv show qos pfc default-global",
    "nv show qos congestion-control default-global",
    "nv show qos egress-queue-mapping default-global",
    "nv show interface -o json",
    "nv show interface --view ber",
    "nv show vrf default router bgp neighbor -o json",
    "nv show system -o json",
)
BGP_JSON = GLOBAL_SHOWS[7]
SYSTEM_JSON = GLOBAL_SHOWS[8]
PORT_SHOWS = ("counters qos", "counters errors", "qos pfc-watchdog", "qos roce status", "qos roce counters")
COUNTER_SHOWS = ("nv show interface -o json", "nv show interface --view ber")
PORT_COUNTER_SHOWS = ("counters qos", "counters errors", "qos pfc-watchdog", "qos roce counters")
MARK = "ROCEOPS-OUT"
_MARKER = re.compile(rf"{MARK}-(\d+|end)$", re.MULTILINE)  # a marker line, once at a line start
BATCH = 24  # commands per shell line when reading
READ_TIMEOUT = 120.0  # an `nv config apply` of a full configuration can take a while
CHAIN = 40  # nv set/unset per shell line when writing
ERROR = re.compile(r"^(Error:|Invalid config|Invalid Command|-bash:)", re.MULTILINE)
APPLIED = re.compile(r"applied \[rev_id: (\d+)\]")
NVUE_WD_DEFAULTS = (100, 3)  # polling-interval ms, robustness

# (root, smallest path depth an `nv unset` may remove) - what a deploy owns on the switch
MANAGED: tuple[tuple[tuple[str, ...], int], ...] = (
    (("system", "hostname"), 2), (("interface",), 2), (("qos",), 2), (("router", "bgp"), 2),
    (("vrf", "default", "router", "bgp"), 4))
UNMANAGED = (("interface", "eth0"),)


# --------------------------------------------------------------------------- pure: diff


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip().startswith("nv set ")]


def _cmd(verb: str, tokens: Iterable[str]) -> str:
    return f"nv {verb} " + " ".join(shlex.quote(t) for t in tokens)


def _managed_depth(cmd: tuple[str, ...], everything: bool) -> int | None:
    if everything:
        return 1
    if any(cmd[: len(u)] == u for u in UNMANAGED):
        return None
    for root, depth in MANAGED:
        if cmd[: len(root)] == root:
            return depth
    return None


def diff_commands(current: str, target: str, everything: bool = False) -> tuple[list[str], list[str]]:
    """(``nv unset`` lines, ``nv set`` lines) taking ``current`` to ``target`` (both ``nv set`` lists).

    >>> diff_commands("nv set interface swp1 link mtu 1500\\nnv set qos pfc p switch-priority 3",
    ...               "nv set interface swp1 link mtu 9216\\nnv set qos pfc default-global switch-priority 3")
    (['nv unset qos pfc p'], ['nv set interface swp1 link mtu 9216', 'nv set qos pfc default-global switch-priority 3'])
    """
    cur_lines, tgt_lines = _lines(current), _lines(target)
    cur, tgt = nv_set_paths(cur_lines), nv_set_paths(tgt_lines)
    tgt_cmds = nv_set_commands(tgt_lines)
    prefixes = {cmd[:i] for cmd in tgt_cmds for i in range(1, len(cmd) + 1)}
    sets: list[str] = []
    unsets: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for cmd in tgt_cmds:
        path = cmd[:-1]
        if path not in tgt or cmd in seen:
            continue
        seen.add(cmd)
        have = cur.get(path, set())
        if is_set_leaf(path):
            if cmd[-1] not in have:
                sets.append(_cmd("set", cmd))
        elif have != tgt[path]:
            sets.append(_cmd("set", cmd))
    for path, have in cur.items():
        for value in sorted(have):
            cmd = (*path, value)
            if path in tgt and (not is_set_leaf(path) or value in tgt[path]):
                continue
            depth = _managed_depth(cmd, everything)
            if depth is None:
                continue
            k = next((k for k in range(depth, len(cmd) + 1) if cmd[:k] not in prefixes), None)
            if k is None:
                continue  # an object the target fills in
            unsets.append(cmd[:k] if k <= len(path) else (cmd if is_set_leaf(path) else path))
    kept: list[tuple[str, ...]] = []
    for target_path in sorted(set(unsets), key=lambda t: (len(t), t)):
        if not any(target_path[: len(k)] == k for k in kept):
            kept.append(target_path)
    return [_cmd("unset", t) for t in sorted(kept)], sets


def _change(unsets: list[str], sets: list[str]) -> Change:
    lines = unsets + sets
    return Change(diff="\n".join(lines), payload=lines, summary={"set": len(sets), "unset": len(unsets)})


# --------------------------------------------------------------------------- pure: expected / observe


def _pfc_list(intent: SwitchIntent) -> list[int]:
    return list(render_context(intent)["qos"]["pfc_priorities"])


def expected(intent: Intent) -> Intent:
    """The intent as NVUE can hold it: one global PFC list for every port, watchdog detection in whole
    polling intervals, deduplicated BGP networks, lossless queues = queues PFC priorities map to."""
    if not isinstance(intent, SwitchIntent):
        return intent
    qos = intent.qos
    pfc = _pfc_list(intent)
    wd = qos.pfc_watchdog
    lossless_q = {qos.tc_to_queue.get(sp, sp) for sp in pfc}
    ports = {name: port.model_copy(update={
        "pfc_priorities": pfc, "pfc_watchdog": wd.enabled and port.pfc_watchdog and bool(port.pfc_priorities)})
        for name, port in intent.ports.items()}
    queues = {q: queue.model_copy(update={"lossless": q in lossless_q}) for q, queue in qos.queues.items()}
    new_wd = wd.model_copy(update={"detect_ms": robustness(wd.detect_ms, wd.poll_ms) * wd.poll_ms}) if wd.enabled \
        else wd
    new_qos = qos.model_copy(update={"lossless_priorities": pfc, "queues": queues, "pfc_watchdog": new_wd})
    bgp = intent.bgp.model_copy(update={"networks": list(dict.fromkeys(intent.bgp.networks))})
    return intent.model_copy(update={"qos": new_qos, "ports": ports, "bgp": bgp})


def _out(outputs: dict[str, str], command: str) -> str:
    text = outputs.get(command)
    if text is None:
        raise p.ParseError(f"missing output of '{command}'")
    return text


def _maybe(outputs: dict[str, str], command: str) -> str | None:
    """Output of an optional command, None when absent or an NVUE error (e.g. a port the switch lacks)."""
    text = outputs.get(command)
    return None if not text or ERROR.match(text) else text


def _config(outputs: dict[str, str]) -> dict[tuple[str, ...], set[str]]:
    return p.config_paths(_out(outputs, CONFIG))


def _one(cfg: dict[tuple[str, ...], set[str]], *path: str) -> str | None:
    values = cfg.get(path)
    return min(values) if values else None  # the first in sorted order


def _ordered(items: list[Any], order: list[str], key: Any) -> list[Any]:
    rank = {v: i for i, v in enumerate(order)}
    return sorted(items, key=lambda x: (rank.get(key(x), len(rank)), str(key(x))))


def port_cmd(port: str, what: str) -> str:
    return f"nv show interface {port} {what}"


def observe(outputs: dict[str, str], intent: Intent) -> dict[str, Any]:
    if not isinstance(intent, SwitchIntent):
        raise TypeError("the Cumulus driver observes switches only")
    cfg = _config(outputs)
    out: dict[str, Any] = {}
    hostname = _one(cfg, "system", "hostname")
    if hostname:
        out["name"] = hostname
    lo = sorted(a for a in cfg.get(("interface", "lo", "ip", "address"), set()) if not a.startswith("127."))
    out["loopback"] = lo[0] if lo else None
    out["qos"] = _observe_qos(outputs, cfg, intent)
    links = p.interfaces_json(_out(outputs, "nv show interface -o json"))
    out["ports"] = {name: _observe_port(outputs, cfg, name, links.get(name, {})) for name in intent.ports}
    out["bgp"] = _observe_bgp(cfg, intent)
    out["load_balancing"] = _observe_load_balancing(cfg)
    return out


def _observe_load_balancing(cfg: dict[tuple[str, ...], set[str]]) -> dict[str, Any]:
    """Mode and ECMP hash fields from the applied config; no ecmp-hash line at all = the switch default (None)."""
    state = {key: _one(cfg, "system", "forwarding", "ecmp-hash", key) for key in ECMP_HASH_FIELD.values()}
    fields = None
    if any(v is not None for v in state.values()):
        fields = [name for name, key in ECMP_HASH_FIELD.items() if state[key] == "on"]
    mode = "adaptive" if _one(cfg, "router", "adaptive-routing", "enable") == "on" else "ecmp"
    return {"mode": mode, "hash_fields": fields}


def _observe_qos(outputs: dict[str, str], cfg: dict[tuple[str, ...], set[str]], intent: SwitchIntent) -> dict[str, Any]:
    roce = p.parse_qos_roce(_out(outputs, "nv show qos roce"))
    sp_to_tc = p.parse_qos_egress_queue_mapping(_out(outputs, "nv show qos egress-queue-mapping default-global"))
    _out(outputs, "nv show qos pfc default-global")
    pfc_text = _maybe(outputs, "nv show qos pfc default-global")  # no profile at all: PFC is off
    pfc = p.parse_qos_pfc(pfc_text) if pfc_text else {"switch-priority": []}
    ecn = p.parse_qos_congestion_control(_out(outputs, "nv show qos congestion-control default-global"))
    lossless = sorted(set(pfc["switch-priority"]))
    lossless_q = {sp_to_tc.get(sp, sp) for sp in lossless}
    queues: dict[str, Any] = {}
    for q in intent.qos.queues:
        sched = roce["scheduler"].get(q)
        if sched is None:
            continue  # no switch priority reaches this traffic class: reported as missing
        e = ecn.get(q)
        queues[str(q)] = {"scheduler": sched["mode"], "weight": sched["weight"], "lossless": q in lossless_q,
                          "ecn": {"min_bytes": e["min"], "max_bytes": e["max"], "probability": e["probability"]}
                          if e and e["ecn"] else None}
    wd_ports = [n for n in intent.ports if _watchdog_on(outputs, n)]
    poll = int(_one(cfg, "qos", "pfc-watchdog", "polling-interval") or NVUE_WD_DEFAULTS[0])
    robust = int(_one(cfg, "qos", "pfc-watchdog", "robustness") or NVUE_WD_DEFAULTS[1])
    watchdog: dict[str, Any] = {"enabled": bool(wd_ports)}
    if wd_ports:
        watchdog.update(poll_ms=poll, detect_ms=poll * robust)
    return {"trust": roce["trust-mode"], "dscp_to_tc": roce["dscp_to_sp"],
            "tc_to_queue": sp_to_tc, "lossless_priorities": lossless, "queues": queues, "pfc_watchdog": watchdog}


def _watchdog_on(outputs: dict[str, str], port: str) -> bool:
    text = _maybe(outputs, port_cmd(port, "qos pfc-watchdog"))
    return text is not None and pp.watchdog_state(text) == "enabled"


def _observe_port(outputs: dict[str, str], cfg: dict[tuple[str, ...], set[str]], name: str,
                  link: dict[str, Any]) -> dict[str, Any]:
    speed = p.speed_mbps(_one(cfg, "interface", name, "link", "speed") or "") or link.get("speed")
    mtu = _one(cfg, "interface", name, "link", "mtu")
    state = _one(cfg, "interface", name, "link", "state")
    addresses = sorted(a for a in cfg.get(("interface", name, "ip", "address"), set()) if a != "dhcp")
    status_text = _maybe(outputs, port_cmd(name, "qos roce status"))
    pfc = pp.pfc_priorities(status_text) if status_text else []
    return {"name": name, "speed": speed, "mtu": int(mtu) if mtu else link.get("mtu"),
            "admin_up": state == "up" if state else bool(link.get("admin_up")),
            "description": _one(cfg, "interface", name, "description") or "",
            "address": addresses[0] if addresses else None, "pfc_priorities": sorted(pfc),
            "pfc_watchdog": _watchdog_on(outputs, name)}


def _observe_bgp(cfg: dict[tuple[str, ...], set[str]], intent: SwitchIntent) -> dict[str, Any]:
    asn = _one(cfg, "router", "bgp", "autonomous-system")
    base = ("vrf", "default", "router", "bgp")
    neighbor = (*base, "neighbor")
    ips = sorted({path[5] for path in cfg if path[:5] == neighbor and len(path) > 5})
    subnets = []
    for path, values in cfg.items():
        if len(path) == 4 and path[0] == "interface" and path[2:] == ("ip", "address"):
            subnets += [(path[1], v) for v in values if v != "dhcp"]
    neighbors = []
    port_of = _Subnets(subnets)
    for ip in ips:
        remote = _one(cfg, *base, "neighbor", ip, "remote-as")
        neighbors.append({"ip": ip, "remote_asn": int(remote) if remote and remote.isdigit() else remote,
                          "port": port_of.find(ip) or "",
                          "description": _one(cfg, *base, "neighbor", ip, "description") or ""})
    networks = sorted(cfg.get((*base, "address-family", "ipv4-unicast", "network"), set()))
    return {"asn": int(asn) if asn and asn.isdigit() else asn,
            "router_id": _one(cfg, "router", "bgp", "router-id"),
            "neighbors": _ordered(neighbors, [n.ip for n in intent.bgp.neighbors], lambda n: n["ip"]),
            "networks": _ordered(networks, list(dict.fromkeys(intent.bgp.networks)), lambda n: n)}


class _Subnets:
    """The interface whose address's network holds a neighbour address: the first such (port, prefix) in the given
    order, an unnumbered neighbour's own name, None; by one dict lookup per distinct (IP version, netmask) instead
    of a containment test per interface."""

    def __init__(self, subnets: list[tuple[str, str]]) -> None:
        self.groups: dict[tuple[int, int], dict[int, tuple[int, str]]] = {}
        for i, (port, prefix) in enumerate(subnets):
            network = p.interface_network(prefix)  # None for a prefix that does not parse
            if network is not None:
                group = self.groups.setdefault((network.version, int(network.netmask)), {})
                group.setdefault(int(network.network_address), (i, port))

    def find(self, ip: str) -> str | None:
        try:
            addr = ipaddress.ip_address(ip)
        except ValueError:
            return ip  # an unnumbered neighbour is named by its interface
        best: tuple[int, str] | None = None
        for (version, mask), group in self.groups.items():
            if version == addr.version:
                hit = group.get(int(addr) & mask)
                if hit is not None and (best is None or hit[0] < best[0]):
                    best = hit
        return best[1] if best is not None else None


def operational(outputs: dict[str, str], intent: Intent) -> OperState:
    if not isinstance(intent, SwitchIntent):
        raise TypeError("the Cumulus driver reads switches only")
    links = p.interfaces_json(_out(outputs, "nv show interface -o json"))
    ber = p.parse_ber_view(_out(outputs, "nv show interface --view ber"))
    ports: dict[str, PortOper] = {}
    lldp: dict[str, LldpNeighbor] = {}
    for name in intent.ports:
        link = links.get(name, {})
        counters: dict[str, int] = {}
        qos_text = _maybe(outputs, port_cmd(name, "counters qos"))
        if qos_text:
            pause, marked = pp.pause_and_ecn(qos_text)
            for sp, (rx, tx) in pause.items():
                counters[f"pfc_rx_{sp}"] = rx or 0
                counters[f"pfc_tx_{sp}"] = tx or 0
            counters["ecn_marked"] = marked or 0
        err_text = _maybe(outputs, port_cmd(name, "counters errors"))
        if err_text:
            counters["crc_errors"] = pp.fcs_rx_errors(err_text) or 0
        roce_text = _maybe(outputs, port_cmd(name, "qos roce counters"))
        if roce_text:
            counters["cnp_sent"] = pp.cnp_packets(roce_text) or 0
        wd_text = _maybe(outputs, port_cmd(name, "qos pfc-watchdog"))
        if wd_text:
            counters["pfcwd_storms"] = pp.watchdog_deadlocks(wd_text)
        if name in ber:
            counters["fec_uncorrected"] = ber[name]["eff-errs"] or 0
            counters["symbol_errors"] = ber[name]["sym-errs"] or 0
        stats = link.get("stats") or {}
        for key, src in (("carrier_changes", "carrier-transitions"), ("rx_packets", "in-pkts"),
                         ("tx_packets", "out-pkts")):
            if src in stats:
                counters[key] = int(stats[src])
        ports[name] = PortOper(name=name, oper_up=link.get("oper_up"), speed=link.get("speed"), mtu=link.get("mtu"),
                               counters=counters)
        if link.get("lldp"):
            lldp[name] = LldpNeighbor(device=link["lldp"][0], port=link["lldp"][1])
    bgp = {ip: BgpSession(state="Established" if nb.get("state") == "established" else str(nb.get("state", "")
                                                                                        ).capitalize(),
                          remote_asn=nb.get("remote-as") if isinstance(nb.get("remote-as"), int) else None)
           for ip, nb in (p.parse_bgp_neighbors_json(outputs[BGP_JSON]) if BGP_JSON in outputs else {}).items()}
    system = p.parse_system_json(outputs[SYSTEM_JSON]) if SYSTEM_JSON in outputs else {}
    return OperState(device=intent.name, ports=ports, lldp=lldp, bgp=bgp, os_version=system.get("build"))


def _scoped(intent: Intent, ports: Collection[str] | None) -> list[str]:
    names = list(intent.ports) if isinstance(intent, SwitchIntent) else []
    return names if ports is None else [n for n in names if n in ports]


def collect_commands(intent: Intent, ports: Collection[str] | None = None) -> list[str]:
    return [*GLOBAL_SHOWS, *(port_cmd(n, what) for n in _scoped(intent, ports) for what in PORT_SHOWS)]


def counter_commands(intent: Intent, ports: Collection[str] | None = None) -> list[str]:
    """Link state and counters only (a health check's second sample)."""
    return [*COUNTER_SHOWS, *(port_cmd(n, what) for n in _scoped(intent, ports) for what in PORT_COUNTER_SHOWS)]


# --------------------------------------------------------------------------- device I/O


def _send(conn: Any, line: str) -> str:
    return send_line(conn, line, read_timeout(conn, READ_TIMEOUT))


def split_marked(text: str) -> list[str]:
    """``re.split(rf"^{MARK}-(\\d+|end)$", text, flags=re.MULTILINE)``: the text between marker lines and the
    markers' numbers.

    The marker pattern without its ``^`` has a literal start the regex engine looks for directly (with it,
    it tries a match at every position of a ~100 kB answer); a match not at a line start is skipped. A
    match never spans a line feed, so a skipped one hides no other.
    """
    parts: list[str] = []
    last = 0
    for m in _MARKER.finditer(text):
        start = m.start()
        if start and text[start - 1] != "\n":
            continue
        parts += (text[last:start], m.group(1))
        last = m.end()
    parts.append(text[last:])
    return parts


def run_batch(conn: Any, commands: list[str]) -> dict[str, str]:
    """Run read-only commands ``BATCH`` per shell line, split by ``echo`` markers; command -> output."""
    out: dict[str, str] = {}
    for start in range(0, len(commands), BATCH):
        chunk = commands[start:start + BATCH]
        line = " ; ".join(f"echo {MARK}-{i}'' ; {cmd}" for i, cmd in enumerate(chunk)) + f" ; echo {MARK}-end''"
        text = _send(conn, line).replace("\r", "")
        parts = split_marked(text)
        found = {int(parts[i]): parts[i + 1].strip("\n") for i in range(1, len(parts) - 1, 2) if parts[i] != "end"}
        if len(found) != len(chunk) or f"{MARK}-end" not in text:
            raise DriverError(f"incomplete output from the switch (got {len(found)} of {len(chunk)} commands)")
        out.update({cmd: found[i] for i, cmd in enumerate(chunk)})
    return out


def _first_error(text: str) -> str | None:
    m = ERROR.search(text)
    if not m:
        return None
    rest = text[m.start():].strip().splitlines()
    detail = next((ln.strip() for ln in rest[1:2] if ln.startswith(" ")), "")
    return f"{rest[0].strip()} {detail}".strip()


def _push(conn: Any, lines: list[str]) -> None:
    for start in range(0, len(lines), CHAIN):
        out = _send(conn, " && ".join(lines[start:start + CHAIN]))
        problem = _first_error(out)
        if problem:
            raise DriverError(f"the switch refused the change: {problem}")


def _confirm_pending(status: str) -> bool:
    return bool(re.search(r"^\s*state\s+confirm\b", status, re.MULTILINE))


@dataclass
class CumulusDriver:
    """The NVUE room's Driver. Holds, per open transaction, what ``apply`` left applied (for ``confirm``)."""

    _applied: dict[tuple[str, int, str], str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    commit_timer: ClassVar[bool] = True  # ``nv config apply --confirm <t>`` reverts by itself unless confirmed

    # pure
    def plan_change(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        return _change(*diff_commands(current.text, rendered.files[FILE]))

    def plan_restore(self, current: Snapshot, backup: Snapshot) -> Change:
        return _change(*diff_commands(current.text, backup.text, everything=True))

    def observe(self, outputs: dict[str, str], intent: Intent) -> dict[str, Any]:
        return observe(outputs, intent)

    def operational(self, outputs: dict[str, str], intent: Intent) -> OperState:
        return operational(outputs, intent)

    def expected(self, intent: Intent) -> Intent:
        return expected(intent)

    # device I/O
    def read_config(self, conn: Any) -> Snapshot:
        text = _send(conn, CONFIG)
        problem = _first_error(text)
        if problem:
            raise DriverError(f"cannot read the configuration: {problem}")
        return Snapshot(format="nvue_commands", text=text)

    def facts(self, outputs: dict[str, str]) -> DeviceFacts:
        """The facts in ``collect``'s outputs (an audit's)."""
        return parse_facts(outputs[SYSTEM_COMMAND], outputs[INTERFACES_COMMAND])

    def read_facts(self, conn: Any, current: Snapshot) -> DeviceFacts:
        """Release and platform from ``nv show system``, swp ports from ``nv show interface`` (JSON both)."""
        outputs = run_batch(conn, [SYSTEM_COMMAND, INTERFACES_COMMAND])
        for cmd, out in outputs.items():
            if problem := _first_error(out):
                raise DriverError(f"{cmd} failed: {problem}")
        return parse_facts(outputs[SYSTEM_COMMAND], outputs[INTERFACES_COMMAND])

    def collect(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        return run_batch(conn, collect_commands(intent, ports))

    def collect_counters(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        return run_batch(conn, counter_commands(intent, ports))

    def _key(self, conn: Any, txn: str) -> tuple[str, int, str]:
        return str(getattr(conn, "host", "")), int(getattr(conn, "port", 0) or 0), txn

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        _send(conn, "nv config detach")
        _push(conn, list(change.payload))
        out = _send(conn, f"nv config apply --confirm {max(1, int(confirm_timeout_s))}s -y")
        if not APPLIED.search(out):
            raise DriverError(f"nv config apply failed: {_first_error(out) or out.strip()[:200]}")
        with self._lock:
            self._applied[self._key(conn, txn)] = self.read_config(conn).text

    def confirm(self, conn: Any, txn: str) -> None:
        with self._lock:
            applied = self._applied.pop(self._key(conn, txn), None)
        out = _send(conn, "nv config apply --confirm-yes")
        problem = _first_error(out)
        if problem:
            raise ConfirmNotTaken(f"confirm refused: {problem}")
        if _confirm_pending(_send(conn, "nv config apply --confirm-status")):
            raise ConfirmNotTaken("the switch still waits for confirmation after --confirm-yes")
        now = self.read_config(conn).text
        if applied is not None and now.strip() != applied.strip():
            raise ConfirmNotTaken("the applied configuration changed back: the confirm did not take")

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        with self._lock:
            self._applied.pop(self._key(conn, txn), None)
        if _confirm_pending(_send(conn, "nv config apply --confirm-status")):
            out = _send(conn, "nv config apply --confirm-no")
            problem = _first_error(out)
            if problem and "no pending confirm" not in problem.lower():
                raise DriverError(f"nv config apply --confirm-no failed: {problem}")
        _send(conn, "nv config detach")
        now = self.read_config(conn)
        if now.text.strip() == backup.text.strip():
            return
        change = self.plan_restore(now, backup)
        if not change.empty:
            _push(conn, list(change.payload))
            out = _send(conn, "nv config apply -y")
            if not APPLIED.search(out):
                raise DriverError(f"restoring the backup failed: {_first_error(out) or out.strip()[:200]}")
        if self.read_config(conn).text.strip() != backup.text.strip():
            raise DriverError("the configuration still differs from the backup after restoring it")


DRIVER = CumulusDriver()
