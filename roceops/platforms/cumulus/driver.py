"""Cumulus Linux NVUE driver: diff ``nv set`` commands, apply under ``nv config apply --confirm``, read back.

Pure side (text in, text out):

* :meth:`CumulusDriver.diff` compares the device's ``nv config show -o commands`` with the
  rendered ``nvue.commands`` on the *managed* paths (``system hostname``, ``interface`` except
  ``eth0``, ``qos``, ``router bgp``, ``vrf default router bgp``, ``system forwarding hash-seed``,
  ``router adaptive-routing enable``): ``nv set`` for new or changed leaves and set members, ``nv unset``
  for managed entries the render does not have (the shortest path that removes them without touching
  rendered ones). :meth:`restore` does the same from the current commands to a backup, on every path.
  A change that sets or unsets the hash seed counts ``restarts_switchd: 1`` in its summary (the deploy
  table shows it): NVUE restarts switchd to apply a seed, which resets every network port.
* :meth:`observe` is :func:`roceops.platforms.cumulus.observe.observe` (the outputs alone -> ObservedSwitch)
  and :meth:`expected` is :func:`roceops.platforms.cumulus.expected.expected` (the intent as NVUE shows it).
  :meth:`operational` reads counters from ``counters qos`` (PFC per priority, ECN), ``counters errors``
  (FCS), ``--view ber`` (uncorrectable FEC, symbol errors), ``qos roce counters`` (CNP), ``qos pfc-watchdog``
  (deadlocks) and ``nv show interface -o json`` (link, LLDP, packets, carrier transitions). The commands
  read are in :mod:`roceops.platforms.cumulus.commands`.

Device side: :meth:`apply` = ``nv config detach``, the lines chained with ``&&`` (bash stops at the
first refusal, which raises :class:`DriverError`), ``nv config apply --confirm <t>s -y``;
:meth:`confirm` = ``--confirm-yes`` then read back (``--confirm-status`` shows nothing waiting and
``nv config show -o commands`` still holds what was applied); :meth:`abort` = ``--confirm-no`` when
a confirm is pending, ``nv config detach``, and if the commands still differ from the backup,
the ``restore`` lines + ``nv config apply -y``. Reads are batched on one shell line with
``echo`` markers (the switch's shell is bash), so a collect costs two round trips.
"""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from roceops.device.change import Change, ConfirmNotTaken, DeviceFacts, DriverError, RenderedDevice, Snapshot
from roceops.device.intent import Intent, SwitchIntent
from roceops.device.observed import ObservedSwitch
from roceops.device.oper import BgpSession, LldpNeighbor, OperState, PortOper
from roceops.platforms.channel import read_timeout, send_line
from roceops.platforms.cumulus import parsers as p
from roceops.platforms.cumulus import parsers_ports as pp
from roceops.platforms.cumulus.commands import (
    BER_VIEW,
    BGP_JSON,
    CONFIG,
    COUNTER_SHOWS,
    ERROR,
    GLOBAL_SHOWS,
    INTERFACES_JSON,
    PORT_COUNTER_SHOWS,
    PORT_SHOWS,
    SYSTEM_JSON,
    optional_output,
    output,
    port_cmd,
    port_of,
)
from roceops.platforms.cumulus.expected import expected
from roceops.platforms.cumulus.facts import INTERFACES_COMMAND, SYSTEM_COMMAND, parse_facts
from roceops.platforms.cumulus.neighbors import NEIGH_JSON, parse_ip_neigh_json
from roceops.platforms.cumulus.observe import observe
from roceops.platforms.cumulus.render import is_set_leaf, nv_set_commands, nv_set_paths
from roceops.platforms.driver import RoomDriver, first_sample

__all__ = ["DRIVER", "CumulusDriver", "collect_commands", "diff_commands", "restarts_switchd", "split_marked"]

FILE = "nvue.commands"
MARK = "ROCEOPS-OUT"
_MARKER = re.compile(rf"{MARK}-(\d+|end)$", re.MULTILINE)  # a marker line, once at a line start
BATCH = 24  # commands per shell line when reading
READ_TIMEOUT = 120.0  # an `nv config apply` of a full configuration can take a while
CHAIN = 40  # nv set/unset per shell line when writing
APPLIED = re.compile(r"applied \[rev_id: (\d+)\]")

# (root, smallest path depth an `nv unset` may remove) - what a deploy owns on the switch
MANAGED: tuple[tuple[tuple[str, ...], int], ...] = (
    (("system", "hostname"), 2), (("interface",), 2), (("qos",), 2), (("router", "bgp"), 2),
    (("vrf", "default", "router", "bgp"), 4), (("system", "forwarding", "hash-seed"), 3),
    (("router", "adaptive-routing", "enable"), 3), (("router", "adaptive-routing", "state"), 3))  # <= 5.14, 5.15+
# applying a hash seed restarts switchd, which resets every network port (docs/platforms.md, "Load balancing")
SEED = ("system", "forwarding", "hash-seed")
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


def restarts_switchd(lines: list[str]) -> bool:
    """True when ``lines`` (``nv set``/``nv unset`` commands) change the hash seed.

    >>> restarts_switchd(["nv set system forwarding hash-seed 7"]), restarts_switchd(["nv set system hostname a"])
    (True, False)
    """
    return any(tuple(shlex.split(line)[2:5]) == SEED for line in lines)


def _change(unsets: list[str], sets: list[str]) -> Change:
    lines = unsets + sets
    summary = {"set": len(sets), "unset": len(unsets)}
    if restarts_switchd(lines):
        summary["restarts_switchd"] = 1
    return Change(diff="\n".join(lines), payload=lines, summary=summary)


# --------------------------------------------------------------------------- pure: operational state


def _shown_ports(outputs: dict[str, str], links: Mapping[str, dict[str, Any]]) -> list[str]:
    """The interfaces the outputs show: ``nv show interface``'s, then those read one by one (``port_cmd``)."""
    read = [port for port in map(port_of, outputs) if port is not None]
    return list(dict.fromkeys([*links, *read]))


def operational(outputs: dict[str, str]) -> OperState:
    """Every interface the outputs show (the caller keeps the planned ones: ``device.oper.for_intent``)."""
    links = p.interfaces_json(output(outputs, INTERFACES_JSON))
    ber = p.parse_ber_view(output(outputs, BER_VIEW))
    ports: dict[str, PortOper] = {}
    lldp: dict[str, LldpNeighbor] = {}
    for name in _shown_ports(outputs, links):
        link = links.get(name, {})
        counters: dict[str, int] = {}
        qos_text = optional_output(outputs, port_cmd(name, "counters qos"))
        if qos_text:
            pause, marked = pp.pause_and_ecn(qos_text)
            for sp, (rx, tx) in pause.items():
                counters[f"pfc_rx_{sp}"] = rx or 0
                counters[f"pfc_tx_{sp}"] = tx or 0
            counters["ecn_marked"] = marked or 0
        err_text = optional_output(outputs, port_cmd(name, "counters errors"))
        if err_text:
            counters["crc_errors"] = pp.fcs_rx_errors(err_text) or 0
        roce_text = optional_output(outputs, port_cmd(name, "qos roce counters"))
        if roce_text:
            counters["cnp_sent"] = pp.cnp_packets(roce_text) or 0
        wd_text = optional_output(outputs, port_cmd(name, "qos pfc-watchdog"))
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
    return OperState(ports=ports, lldp=lldp, bgp=bgp, os_version=system.get("build"),
                     neighbor_macs=_neighbor_macs(outputs))


def _neighbor_macs(outputs: dict[str, str]) -> dict[str, list[str]]:
    """The IPv6 neighbour table's MACs per port (neighbors.py); {} when not read or not parsable."""
    text = optional_output(outputs, NEIGH_JSON)
    try:
        return parse_ip_neigh_json(text) if text else {}
    except p.ParseError:
        return {}


def _scoped(intent: Intent, ports: Collection[str] | None) -> list[str]:
    names = list(intent.ports) if isinstance(intent, SwitchIntent) else []
    return names if ports is None else [n for n in names if n in ports]


def collect_commands(intent: Intent, ports: Collection[str] | None = None) -> list[str]:
    return [*GLOBAL_SHOWS, NEIGH_JSON, *(port_cmd(n, what) for n in _scoped(intent, ports) for what in PORT_SHOWS)]


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
class CumulusDriver(RoomDriver):
    """The NVUE room's Driver. Holds, per open transaction, what ``apply`` left applied (for ``confirm``)."""

    _applied: dict[tuple[str, int, str], str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    commit_timer: ClassVar[bool] = True  # ``nv config apply --confirm <t>`` reverts by itself unless confirmed

    # pure
    def diff(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        return _change(*diff_commands(current.text, rendered.files[FILE]))

    def restore(self, current: Snapshot, backup: Snapshot) -> Change:
        return _change(*diff_commands(current.text, backup.text, everything=True))

    def observe(self, outputs: dict[str, str]) -> ObservedSwitch:
        return observe(outputs)

    def operational(self, outputs: dict[str, str]) -> OperState:
        return operational(outputs)

    def expected(self, intent: Intent) -> ObservedSwitch:
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

    def collect_rest(self, conn: Any, intent: Intent, counters: dict[str, str],
                     ports: Collection[str] | None = None) -> dict[str, str]:
        return first_sample(collect_commands(intent, ports), counters, lambda cmds: run_batch(conn, cmds))

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
        change = self.restore(now, backup)
        if not change.empty:
            _push(conn, list(change.payload))
            out = _send(conn, "nv config apply -y")
            if not APPLIED.search(out):
                raise DriverError(f"restoring the backup failed: {_first_error(out) or out.strip()[:200]}")
        if self.read_config(conn).text.strip() != backup.text.strip():
            raise DriverError("the configuration still differs from the backup after restoring it")


DRIVER = CumulusDriver()
