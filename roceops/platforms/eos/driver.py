"""Arista EOS driver: hier_config remediation, ``configure session`` + ``commit timer`` transactions, audit collection.

Pure side (no I/O): :meth:`EosDriver.diff` diffs the device's running-config against the rendered
``config.eos`` with hier_config, restricted to what roceops manages (hostname, ``service routing protocols
model``, ``ip routing``, ``qos map ...``, global ``priority-flow-control ...`` lines, the intent's interfaces
and Loopback0, ``router bgp``); management, users and every other section are never touched. The intended
config is first put in the form EOS displays (:func:`display_form`: defaults EOS hides are dropped), so an
applied config diffs to nothing. :meth:`restore` diffs the whole config (it is a restore). Audit compares
:meth:`observe` (the running-config as an ObservedSwitch, :func:`roceops.platforms.eos.parsers.observe_config`)
with :meth:`expected` (the intent as EOS shows it, :mod:`roceops.platforms.eos.expected`).

Device side, commands sent (all from privileged exec, ``enable`` first when the login lands at ``>``):

* read: ``show running-config``
* apply: ``configure session <txn>``, the payload lines (stopping at the first ``%`` error line), then
  ``commit timer hh:mm:ss``
* confirm: ``show configuration sessions | json`` (the session must be ``pendingCommitTimer``),
  ``configure session <txn> commit``, ``show configuration sessions | json`` again (nothing pending), then
  ``show running-config`` (must equal what the timed commit applied) and ``write memory``
* abort: ``configure session <txn> abort`` when it is still pending (a timer that ran out has already
  reverted), then ``show running-config``; if that is not the backup, a new session with
  ``rollback clean-config`` + the backup's lines + ``commit``, read back again
* collect: ``show running-config`` and the ``| json`` set in :data:`COLLECT`
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Collection
from typing import Any, ClassVar

from hier_config import HConfig, WorkflowRemediation

from roceops.device.change import Change, ConfirmNotTaken, DeviceFacts, DriverError, RenderedDevice, Snapshot
from roceops.device.intent import Intent, SwitchIntent
from roceops.device.observed import ObservedSwitch
from roceops.device.oper import BgpSession, LldpNeighbor, OperState, PortOper
from roceops.platforms.channel import alive, current_prompt, read_timeout, wait_output
from roceops.platforms.driver import RoomDriver, first_sample
from roceops.platforms.eos import parsers as p
from roceops.platforms.eos.config_tree import hconfig
from roceops.platforms.eos.expected import expected as eos_expected
from roceops.platforms.eos.facts import COMMANDS as FACTS_COMMANDS
from roceops.platforms.eos.facts import parse_facts
from roceops.platforms.eos.render import LOOPBACK, config_lines

INDENT = "   "
_PROMPT_LINE = re.compile(r"(?m)^[\w.\-]+\([\w./\-]+\)# ?")  # a config-mode prompt at a line start
EOS_ERROR = re.compile(r"^%.*$", re.M)  # EOS prints every refusal on a line starting with "%"
PROMPT_END = re.compile(r"(?:^|\n)([\w.\-]+(?:\([\w./\-]+\))?[>#]) ?$")
PROMPT_TAIL = 512  # a prompt is far shorter: only the end of a long answer is searched for it


def _prompt_at_end(text: str) -> re.Match[str] | None:
    """PROMPT_END's match in ``text``, looking only at its last PROMPT_TAIL characters."""
    return PROMPT_END.search(text, max(0, len(text) - PROMPT_TAIL))


COLLECT = (p.CMD_RUNNING, p.CMD_INTERFACES, p.CMD_PFC, p.CMD_PFC_WATCHDOG, p.CMD_ECN, p.CMD_LLDP, p.CMD_BGP,
           p.CMD_VERSION, p.CMD_NDP)
COUNTERS = (p.CMD_INTERFACES, p.CMD_PFC, p.CMD_PFC_WATCHDOG, p.CMD_ECN)  # link state and counters only
_PFC_NAMES = {prio: (f"pfc_rx_{prio}", f"pfc_tx_{prio}") for prio in range(8)}  # operational's counter names
_ECN_NAMES = {q: f"ecn_marked_q{q}" for q in range(8)}  # the same for the ECN marks per queue
MANAGED_PREFIXES = ("hostname ", "service routing protocols model ", "ip routing", "no ip routing", "qos map ",
                    "priority-flow-control ", "router bgp ")


# --------------------------------------------------------------------------- pure helpers


def _neighbor_macs(outputs: dict[str, str]) -> dict[str, list[str]]:
    """The IPv6 neighbour table's MACs per port; {} when not read or not parsable (an optional read)."""
    try:
        return p.parse_ipv6_neighbors_json(outputs[p.CMD_NDP]) if p.CMD_NDP in outputs else {}
    except p.ParseError:
        return {}


def display_form(hc: HConfig) -> HConfig:
    """``hc`` as EOS prints it once applied (same rules as the lab's :mod:`roceops.lab.devices.eos.tree`):
    interface ``no shutdown``/``switchport`` and (uc-)tx-queue ``priority strict`` are defaults EOS does not show, an
    all-default ``tx-queue`` is not shown, ``qos map dscp`` lines are regrouped one per traffic class."""
    for intf in [c for c in hc.children if c.text.startswith("interface ")]:
        for child in list(intf.children):
            if child.text in ("no shutdown", "switchport"):
                child.delete()
            elif child.text.startswith(("tx-queue ", "uc-tx-queue ")):  # uc-: split uc/mc queues (as the lab)
                for q in list(child.children):
                    if q.text == "priority strict":
                        q.delete()
                if not child.children:
                    child.delete()
    maps = [c for c in hc.children if c.text.startswith("qos map dscp ")]
    if maps:
        table: dict[int, int] = {}
        for c in maps:
            m = re.fullmatch(r"qos map dscp ([\d ]+) to traffic-class (\d+)", c.text)
            if m:
                table.update(dict.fromkeys((int(d) for d in m.group(1).split()), int(m.group(2))))
                c.delete()
        for tc in sorted(set(table.values())):
            hc.add_child(f"qos map dscp {' '.join(str(d) for d in sorted(k for k, v in table.items() if v == tc))}"
                         f" to traffic-class {tc}")
    return hc


def _managed(intent: SwitchIntent, intended: HConfig) -> set[str]:
    return {f"interface {name}" for name in intent.ports} | {f"interface {LOOPBACK}"} | {
        c.text for c in intended.children}


def _lines(hc: HConfig) -> list[str]:
    """A remediation tree as the ordered CLI lines a session is fed (``exit`` when leaving a sub-mode)."""
    return config_lines(_text(hc), with_exits=True)


def _text(hc: HConfig) -> str:
    return "".join(f"{INDENT * (c.depth() - 1)}{c.text}\n" for c in hc.all_children_sorted())


def _change(running: HConfig, target: HConfig) -> Change:
    remediation = WorkflowRemediation(running, target).remediation_config
    lines = _lines(remediation)
    removes = sum(1 for c in remediation.all_children() if c.text.startswith("no "))
    adds = sum(1 for c in remediation.all_children() if not c.text.startswith("no ") and not c.children)
    return Change(diff=_text(remediation), payload=lines, summary={"add": adds, "remove": removes})


def hms(seconds: int) -> str:
    """``commit timer`` argument.

    >>> hms(300), hms(2), hms(3725)
    ('00:05:00', '00:00:02', '01:02:05')
    """
    seconds = max(1, int(seconds))
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _first_error(output: str) -> str | None:
    m = EOS_ERROR.search(output)
    return m.group(0).strip() if m else None


class EosDriver(RoomDriver):
    """The EOS room's :class:`roceops.platforms.driver.Driver`."""

    confirm_command: ClassVar[str] = "configure session {txn} commit"
    read_timeout: ClassVar[float] = 60.0  # per answer, unless the run's --timeout or deadline says less
    commit_timer: ClassVar[bool] = True  # an unconfirmed ``commit timer`` reverts by itself

    def __init__(self) -> None:
        self._applied: dict[tuple[int, str], str] = {}  # (connection, txn) -> running-config the timed commit made
        self._lock = threading.Lock()

    # ---- pure

    def diff(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        if not isinstance(intent, SwitchIntent):
            raise TypeError("the EOS driver manages switches only")
        intended = display_form(hconfig(rendered.files["config.eos"]))
        running = hconfig(current.text)
        keep = _managed(intent, intended)
        for child in list(running.children):
            if child.text not in keep and not child.text.startswith(MANAGED_PREFIXES):
                child.delete()
        return _change(running, intended)

    def restore(self, current: Snapshot, backup: Snapshot) -> Change:
        return _change(hconfig(current.text), hconfig(backup.text))

    def expected(self, intent: Intent) -> ObservedSwitch:
        if not isinstance(intent, SwitchIntent):
            raise TypeError("the EOS driver manages switches only")
        return eos_expected(intent)

    def observe(self, outputs: dict[str, str]) -> ObservedSwitch:
        return p.observe_config(outputs[p.CMD_RUNNING])

    def operational(self, outputs: dict[str, str]) -> OperState:
        """Every interface the outputs show (the caller keeps the planned ones: ``device.oper.for_intent``)."""
        intfs = p.parse_interfaces_json(outputs[p.CMD_INTERFACES]) if p.CMD_INTERFACES in outputs else {}
        pfc = p.parse_pfc_counters_json(outputs[p.CMD_PFC]) if p.CMD_PFC in outputs else {}
        wd = p.parse_pfc_watchdog_json(outputs[p.CMD_PFC_WATCHDOG]) if p.CMD_PFC_WATCHDOG in outputs else None
        ecn = p.parse_ecn_counters_json(outputs[p.CMD_ECN]) if p.CMD_ECN in outputs else {}
        ports: dict[str, PortOper] = {}
        for name in dict.fromkeys([*intfs, *pfc]):
            i = intfs.get(name)
            counters = i["counters"] if i else {}  # parse_interfaces_json's own dict, made for this call
            if name in pfc:
                per = pfc[name]["priorities"]
                if per:
                    for prio, (rx, tx) in per.items():
                        rx_name, tx_name = _PFC_NAMES.get(prio) or (f"pfc_rx_{prio}", f"pfc_tx_{prio}")
                        counters[rx_name], counters[tx_name] = rx, tx
                else:  # totals only (ANTA's shape): which priority paused is not shown, so no per-priority count
                    counters["pfc_rx_total"], counters["pfc_tx_total"] = pfc[name]["rx"], pfc[name]["tx"]
            if wd is not None:
                counters["pfcwd_storms"] = wd.get(name, 0)
            if name in ecn:
                marked = ecn[name]
                counters["ecn_marked"] = sum(v for v in marked.values() if v)
                for q, v in marked.items():
                    if v is not None:
                        counters[_ECN_NAMES.get(q) or f"ecn_marked_q{q}"] = v
            ports[name] = PortOper(name=name, oper_up=i["oper_up"] if i else None, speed=i["speed"] if i else None,
                                   mtu=i["mtu"] if i else None, counters=counters)
        lldp = {port: LldpNeighbor(device=dev, port=rport)
                for port, (dev, rport) in (p.parse_lldp_json(outputs[p.CMD_LLDP]).items()
                                           if p.CMD_LLDP in outputs else [])}
        bgp = {}
        if p.CMD_BGP in outputs:
            bgp = {ip: BgpSession(state=s["state"], remote_asn=s["remote_asn"])
                   for ip, s in p.parse_bgp_summary_json(outputs[p.CMD_BGP])["peers"].items()}
        version = p.parse_version_json(outputs[p.CMD_VERSION])["version"] if p.CMD_VERSION in outputs else None
        return OperState(ports=ports, lldp=lldp, bgp=bgp, os_version=version,
                         neighbor_macs=_neighbor_macs(outputs))

    # ---- device I/O

    def _send(self, conn: Any, command: str) -> str:
        """Send one line and read up to the next prompt; return the output without echo and prompt.

        Netmiko's own read loops cannot tell a reset connection from a slow device (they wait for the full
        timeout), so this loop also watches the SSH transport and fails at once when it is gone.
        """
        conn.write_channel(conn.normalize_cmd(command))

        def done(text: str) -> str | None:
            if (m := _prompt_at_end(text)) and "\n" in text[: m.start() + 1]:
                first, _, rest = text[: m.start()].partition("\n")
                return rest if first.strip() == command.strip() else text[: m.start()]
            return None

        return self._read_until(conn, done, f"after {command!r}",
                                lost=f"while running {command.split()[0]!r}")

    def _read_until(self, conn: Any, done: Callable[[str], str | None], what: str, lost: str) -> str:
        """Read until ``done(text)`` returns the result; fail at once if the SSH transport is gone.

        Netmiko's own read loops cannot tell a reset connection from a slow device (they wait for the
        full timeout). On a dead session, an error line the device already printed is reported first.
        Line ends are normalised per chunk (a CR at a chunk's end waits for the next), so a long answer
        costs one pass, not one per chunk.
        """
        text, held = "", ""
        timeout = read_timeout(conn, self.read_timeout)
        deadline = time.monotonic() + timeout
        while True:
            chunk = wait_output(conn, min(1.0, deadline - time.monotonic()))
            if chunk:
                chunk = held + chunk
                held = "\r" if chunk.endswith("\r") else ""
                text += chunk[: len(chunk) - len(held)].replace("\r\n", "\n").replace("\r", "")
                if (result := done(text)) is not None:
                    return result
            elif not alive(conn):
                if err := _first_error(text):
                    raise DriverError(f"EOS refused a line {lost}: {err}")
                raise DriverError(f"connection to the device lost {lost}")
            if time.monotonic() > deadline:
                raise DriverError(f"no prompt within {timeout:g} s {what}")

    def _privileged(self, conn: Any) -> None:
        """Privileged exec (``#``), leaving any config mode (an open session stays pending)."""
        prompt = current_prompt(conn, PROMPT_END, read_timeout(conn, self.read_timeout))
        if ")#" in prompt:
            self._send(conn, "end")
        elif prompt.endswith(">"):
            # the prompt just read says "not privileged": Netmiko's own first check (a newline and a prompt read,
            # one round trip) would only say so again; its check after ``enable`` stays
            conn.enable(check_state=False)

    def _sessions(self, conn: Any) -> dict[str, dict[str, Any]]:
        return p.parse_sessions_json(self._send(conn, p.CMD_SESSIONS))

    def read_config(self, conn: Any) -> Snapshot:
        self._privileged(conn)
        out = self._send(conn, p.CMD_RUNNING)
        if (err := _first_error(out)) or "\nend" not in f"\n{out}":
            raise DriverError(f"show running-config failed: {err or 'output incomplete'}")
        return Snapshot(format="eos_cli", text=out.strip() + "\n")

    batch: ClassVar[int] = 40  # config lines per write: one round trip per batch instead of per line

    def facts(self, outputs: dict[str, str]) -> DeviceFacts:
        """The facts in ``collect``'s outputs (an audit's)."""
        return parse_facts(*(outputs[cmd] for cmd in FACTS_COMMANDS))

    def read_facts(self, conn: Any, current: Snapshot) -> DeviceFacts:
        """Release and model from ``show version``, Ethernet ports from ``show interfaces`` (JSON both)."""
        self._privileged(conn)
        outputs = {cmd: self._send(conn, cmd) for cmd in FACTS_COMMANDS}
        for cmd, out in outputs.items():
            if err := _first_error(out):
                raise DriverError(f"{cmd} failed: {err}")
        return parse_facts(*outputs.values())

    def _send_batch(self, conn: Any, lines: list[str]) -> str:
        """Send several lines in one write and read until one prompt per line came back.

        Used only inside a configuration session, where nothing is live until commit: if a line fails,
        the lines after it in the same batch also ran, but the whole session is aborted anyway.
        """
        conn.write_channel("".join(conn.normalize_cmd(line) for line in lines))

        def done(text: str) -> str | None:
            return text if _prompt_at_end(text) and len(_PROMPT_LINE.findall(text)) >= len(lines) else None

        # a refused line can leave config mode and a later "exit" in the same batch end the shell: the
        # read loop then reports the refusal the device printed, not just the closed session
        return self._read_until(conn, done, f"after a batch of {len(lines)} lines",
                                lost=f"in the batch starting {lines[0][:60]!r}")

    def _session_lines(self, conn: Any, session: str, lines: list[str]) -> None:
        """Enter configuration session ``session`` and send ``lines``, stopping at the first batch with an error."""
        if err := _first_error(self._send(conn, f"configure session {session}")):
            raise DriverError(f"EOS refused the configuration session: {err}")
        for i in range(0, len(lines), self.batch):
            chunk = lines[i:i + self.batch]
            if err := _first_error(self._send_batch(conn, chunk)):
                raise DriverError(f"EOS refused a line in {chunk[0][:60]!r}...: {err}")

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        self._privileged(conn)
        self._session_lines(conn, txn, list(change.payload))
        out = self._send(conn, f"commit timer {hms(confirm_timeout_s)}")
        if err := _first_error(out):
            raise DriverError(f"commit timer refused: {err}")
        conn.set_base_prompt()  # the hostname may have changed
        applied = self.read_config(conn).text
        with self._lock:
            self._applied[(id(conn), txn)] = applied

    def confirm(self, conn: Any, txn: str) -> None:
        with self._lock:
            applied = self._applied.pop((id(conn), txn), None)
        self._privileged(conn)
        state = self._sessions(conn).get(txn, {}).get("state")
        if state != "pendingCommitTimer":
            raise ConfirmNotTaken(f"session {txn} is {state or 'gone'}, not waiting for confirmation "
                                  "(the commit timer ran out and EOS reverted the change)")
        out = self._send(conn, self.confirm_command.format(txn=txn))
        if err := _first_error(out):
            raise ConfirmNotTaken(f"configure session {txn} commit refused: {err}")
        after = self._sessions(conn).get(txn, {}).get("state")
        if after in ("pending", "pendingCommitTimer"):
            raise ConfirmNotTaken(f"session {txn} is still {after} after the confirming commit")
        if applied is not None and self.read_config(conn).text != applied:
            raise ConfirmNotTaken("running-config after the confirming commit is not what the timed commit applied")
        out = self._send(conn, "write memory")
        if err := _first_error(out):
            raise DriverError(f"change confirmed but not saved to startup-config: {err}")

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        with self._lock:
            self._applied.pop((id(conn), txn), None)
        self._privileged(conn)
        sessions = self._sessions(conn)
        if sessions.get(txn, {}).get("state") in ("pending", "pendingCommitTimer"):
            out = self._send(conn, f"configure session {txn} abort")
            if err := _first_error(out):
                raise DriverError(f"configure session {txn} abort: {err}")
        if self.read_config(conn).text.strip() == backup.text.strip():
            return
        # Not at the backup (committed without a timer, changed meanwhile...): replace the whole config with it.
        session = f"{txn}-restore"
        if sessions.get(session, {}).get("state") in ("pending", "pendingCommitTimer"):
            self._send(conn, f"configure session {session} abort")
        lines = [ln for ln in config_lines(backup.text) if ln != "end"]
        self._session_lines(conn, session, ["rollback clean-config", *lines])
        out = self._send(conn, "commit")
        if err := _first_error(out):
            raise DriverError(f"restore commit refused: {err}")
        conn.set_base_prompt()
        if self.read_config(conn).text.strip() != backup.text.strip():
            raise DriverError("running-config still differs from the backup after a full restore")

    def collect(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        self._privileged(conn)  # every read is device-wide: ``ports`` narrows nothing
        return {cmd: self._send(conn, cmd) for cmd in COLLECT}

    def collect_counters(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        self._privileged(conn)
        return {cmd: self._send(conn, cmd) for cmd in COUNTERS}

    def collect_rest(self, conn: Any, intent: Intent, counters: dict[str, str],
                     ports: Collection[str] | None = None) -> dict[str, str]:
        self._privileged(conn)
        return first_sample(COLLECT, counters, lambda cmds: {cmd: self._send(conn, cmd) for cmd in cmds})




DRIVER = EosDriver()
