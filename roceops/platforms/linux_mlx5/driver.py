"""Driver for ConnectX (mlx5) GPU hosts on Linux: capture runtime values, run the setup script's changes,
put captured values back.

A host has no transaction of its own: ``read_config`` captures every value the setup script and
netplan set, the persistence files (text and mode), the boot unit's enablement and the NIC firmware's
next-boot values (the ``host_state_json`` backup, see :mod:`driver_model` and :mod:`driver_boot`), ``apply``
runs only the script lines that change something, then installs the changed persistence files (and, with
``--firmware``, sets mlxconfig values), ``confirm`` has nothing to make permanent (the runtime state is
live at once, the files are in place; the deploy's verify step has already read every value back), and
``abort`` computes the commands that set the captured values and files again and runs them.

Round trips are batched: several commands go on one line separated by ``;`` (reads) or ``&&``
(writes, so the first failure stops the rest), each followed by an ``echo`` of a per-batch random
marker (carrying ``$?`` for reads); a leading marker says where the answer starts, so the echoed
(possibly terminal-wrapped) command line is never mistaken for output. ``collect`` is one round
trip for any number of NICs, ``read_config`` two (RDMA NIC discovery, then per-NIC reads), a push
one per ``chunk_commands`` lines. Lines are written and read with Netmiko's channel primitives, so
a session the host closes fails at once instead of after the read timeout. A write fails on a
non-zero exit status or on error text in its output (``cma_roce_tos`` exits 0 after a refused write).

Privilege: ``privilege="auto"`` (default) runs as is when the prompt ends in ``#`` and otherwise
prefixes ``sudo -n`` (``sudo -n sh -c '...'`` for sysfs redirections, which the calling shell
would otherwise open unprivileged); ``"sudo"`` always prefixes, ``"none"`` never does. Among the reads only
``cma_roce_mode``/``cma_roce_tos``, the file reads (netplan files are 0600) and ``mlxconfig`` need root.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import shlex
import time
import weakref
from collections.abc import Collection
from typing import Any, Literal

from roceops.device.change import Change, DriverError, RenderedDevice, Snapshot
from roceops.device.intent import HostIntent, Intent, NicIntent
from roceops.device.observed import ObservedHost
from roceops.device.oper import LldpNeighbor, OperState, PortOper, RdmaBandwidth, RdmaEnd, canonical_mac
from roceops.platforms.channel import alive, current_prompt, read_timeout, wait_output
from roceops.platforms.driver import RoomDriver, first_sample
from roceops.platforms.linux_mlx5 import driver_boot as boot
from roceops.platforms.linux_mlx5 import driver_model as dm
from roceops.platforms.linux_mlx5 import observe as observed
from roceops.platforms.linux_mlx5 import perftest
from roceops.platforms.linux_mlx5.batch_text import after_begin, begin_marker, done_lines, segments
from roceops.platforms.linux_mlx5.driver_plan import cleanup_commands, diff_table, restore_commands, simulate
from roceops.platforms.linux_mlx5.expected import expected as expected_host
from roceops.platforms.linux_mlx5.gpu_paths import gpu_paths
from roceops.platforms.linux_mlx5.hw_counters import CC_COUNTERS, TRANSPORT_COUNTERS, transport_counters
from roceops.platforms.linux_mlx5.lldp import CMD_LLDP, LldpParseError, parse_lldpcli_json
from roceops.platforms.linux_mlx5.nic_mode import cmd_nic_mode, dpu_problems, parse_nic_mode
from roceops.platforms.linux_mlx5.parsers import (
    ParseError,
    ethtool_counters,
    parse_ethtool_driver,
    parse_ethtool_fec,
    parse_rdma_links,
)
from roceops.platforms.linux_mlx5.pcie import CMD_PCI_BRIDGES, CMD_PCI_TREE, CMD_TOPO
from roceops.platforms.linux_mlx5.render import FIRMWARE_SCRIPT, INSTALL_TARGETS, PERSISTED, UNIT, script_commands

Privilege = Literal["auto", "sudo", "none"]
SCRIPT = "roce-setup.sh"
NETPLAN = "netplan.yaml"
ERROR_TEXT = re.compile(
    r"Permission denied|Operation not permitted|command not found|RTNETLINK answers|^Error:|write error|"
    r"No such (?:file|device)|must be root|password is required|Failed to|command failed|Invalid |Bad value|"
    r"Cannot find device|cannot |not supported on your system$", re.MULTILINE)
_BENIGN = ("Rate limit is not supported on your system!",)


# operational's ethtool -S counters: (neutral name, ethtool name) of the pause frames per priority, and
# (neutral name, ethtool names in order of preference) of the others. The *_phy names are today's mlx5
# (Linux Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst); older in-box drivers
# print crc_align_errors, symbol_err, pause_ctrl_rx/tx and no rx_prio*_pause (isc-projects/ethq
# tests/mlx5_core @ 6331e03, shared/fixtures/linux_mlx5/ethtool_S_mlx5_connectx4_older_driver.txt).
_PAUSE_COUNTERS = tuple((f"pfc_{d}_{p}", f"{d}_prio{p}_pause") for p in range(8) for d in ("rx", "tx"))
_NEUTRAL_COUNTERS = (("crc_errors", ("rx_crc_errors_phy", "crc_align_errors")),
                     ("pfcwd_storms", ("tx_pause_storm_error_events",)),
                     ("symbol_errors", ("rx_symbol_err_phy", "rx_pcs_symbol_err_phy", "symbol_err")),
                     ("pause_rx", ("rx_pause_ctrl_phy", "pause_ctrl_rx")),
                     ("pause_tx", ("tx_pause_ctrl_phy", "pause_ctrl_tx")),
                     ("rx_packets", ("rx_packets_phy", "rx_packets")), ("tx_packets", ("tx_packets_phy", "tx_packets")))
# what health needs of every NIC: missing, each is reported unread (unknown), never left out
_NEEDED = ("crc_errors", "symbol_errors", "pause_rx", "pause_tx")
_ETHTOOL_NAMES = (*(stat for _, stat in _PAUSE_COUNTERS), *(n for _, names in _NEUTRAL_COUNTERS for n in names))


def _ethtool_counters(text: str | None, netdev: str) -> tuple[dict[str, int], dict[str, str]]:
    """Neutral counters of one ``ethtool -S`` output, and the needed ones it could not give -> why."""
    if not text:
        return {}, dict.fromkeys(_NEEDED, f"`ethtool -S {netdev}` gave no output")
    try:
        stats = ethtool_counters(text, _ETHTOOL_NAMES)
    except ParseError as exc:
        return {}, dict.fromkeys(_NEEDED, f"`ethtool -S {netdev}`: {exc}")
    counters = {key: stats[stat] for key, stat in _PAUSE_COUNTERS if stat in stats}
    for neutral, names in _NEUTRAL_COUNTERS:
        found = next((stats[n] for n in names if n in stats), None)
        if found is not None:
            counters[neutral] = found
    unread = {n: f"`ethtool -S {netdev}` has none of {', '.join(names)}"
              for n, names in _NEUTRAL_COUNTERS if n in _NEEDED and n not in counters}
    return counters, unread


def _errors(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if ERROR_TEXT.search(line) and line.strip() not in _BENIGN]


class LinuxMlx5Driver(RoomDriver):
    """See the module docstring. ``chunk_commands``/``chunk_chars`` bound one write round trip."""

    snapshot_format = "host_state_json"

    def __init__(self, privilege: Privilege = "auto", chunk_commands: int = 48, chunk_chars: int = 8000,
                 read_timeout: float = 120.0) -> None:
        self.privilege = privilege
        self.chunk_commands = chunk_commands
        self.chunk_chars = chunk_chars
        self.read_timeout = read_timeout
        self._root: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()

    # ==================================================================================== pure

    def expected(self, intent: Intent) -> ObservedHost:
        """The intent as the host shows it (:func:`expected.expected`)."""
        return expected_host(_host(intent))

    def unverified(self, rendered: RenderedDevice) -> tuple[str, ...]:
        """Parts of the observed state a deploy of ``rendered`` does not set, so its verify step leaves them out:
        the boot files, the unit and NCCL's file when persistence is skipped, the firmware unless ``--firmware``."""
        skipped = set(rendered.skip)
        boot_part = ("boot", "nccl") if skipped & set(PERSISTED) else ()  # NCCL is configured by its files
        return (*boot_part, *(("firmware",) if FIRMWARE_SCRIPT in skipped else ()))

    def diff(self, current: Snapshot, rendered: RenderedDevice, intent: Intent) -> Change:
        if SCRIPT not in rendered.files:
            raise DriverError(f"{rendered.name}: the rendered files have no {SCRIPT}")
        try:
            state = dm.load(current.text)
            commands = script_commands(rendered.files[SCRIPT])
            netplan = rendered.files.get(NETPLAN)
            if netplan is not None:
                commands = dm.netplan_commands(netplan) + commands
            target, payload = simulate(state, commands)
            if netplan is not None:
                cleanup = cleanup_commands(target, netplan)
                target, more = simulate(target, cleanup)
                payload += more
        except (dm.PlanError, ValueError) as exc:
            raise DriverError(f"{rendered.name}: {exc}") from None
        diff, summary = diff_table(state, target)
        persist_cmds, file_diffs, files_changed = self._persistence(state, rendered)
        fw_cmds, fw_diff = self._firmware(state, rendered, _host(intent))
        payload += persist_cmds + fw_cmds
        summary.update(files=files_changed, commands=len(payload))
        if fw_cmds:
            summary["reboot_required"] = 1  # mlxconfig values take effect at the next boot or firmware reset
        return Change(diff=diff + file_diffs + fw_diff, payload=payload, summary=summary)

    @staticmethod
    def _persistence(state: dict[str, Any], rendered: RenderedDevice) -> tuple[list[str], str, int]:
        names = [n for n in PERSISTED if n in rendered.files and n not in rendered.skip]
        if not names:
            return [], "", 0
        wanted = {INSTALL_TARGETS[n].path: (rendered.files[n], INSTALL_TARGETS[n].mode) for n in names}
        return boot.install_plan(state.get("boot") or {}, wanted, enable=UNIT in names)

    @staticmethod
    def _firmware(state: dict[str, Any], rendered: RenderedDevice, host: HostIntent) -> tuple[list[str], str]:
        if host.firmware is None or FIRMWARE_SCRIPT not in rendered.files or FIRMWARE_SCRIPT in rendered.skip:
            return [], ""
        current = state.get("firmware") or {}
        missing = [dev for dev in host.firmware.devices if current.get(dev) is None]
        if missing:
            raise DriverError(f"{rendered.name}: cannot read the firmware settings of {', '.join(missing)} "
                              "(mlxconfig query failed: is MFT installed?)")
        return boot.firmware_commands(current, host.firmware.devices)

    def restore(self, current: Snapshot, backup: Snapshot) -> Change:
        try:
            cur, want = dm.load(current.text), dm.load(backup.text)
            payload = restore_commands(cur, want)
        except (dm.PlanError, ValueError) as exc:
            raise DriverError(f"cannot plan the restore: {exc}") from None
        target = {**cur, "nics": {**cur["nics"], **want["nics"]}, "routes": want["routes"], "rules": want["rules"],
                  "sysctls": {**cur["sysctls"], **want["sysctls"]}}
        diff, summary = diff_table(cur, target)
        if "boot" in want:  # backups taken before persistence was deployed have no boot part
            payload += boot.restore_boot(cur.get("boot") or {}, want["boot"])
        wanted_fw = {dev: v for dev, v in (want.get("firmware") or {}).items() if v}
        fw_cmds, fw_diff = boot.firmware_commands(cur.get("firmware") or {}, wanted_fw)
        payload += fw_cmds
        diff += fw_diff
        summary["commands"] = len(payload)
        return Change(diff=diff, payload=payload, summary=summary)

    def collect_commands(self, intent: Intent, ports: Collection[str] | None = None,
                         link_apart: bool = False) -> list[str]:
        """Everything ``observe`` and ``operational`` read, for the NICs in ``ports`` (None: all). With
        ``link_apart`` the NICs' link and counter files are one sysfs read, the one ``counter_commands`` makes,
        and their ECN files another (the parsers merge every sysfs read: ``observe.sysfs_dump``)."""
        host = _host(intent)
        nics = _nics(host, ports)
        if link_apart:
            sysfs = [[f"/sys/class/net/{n.netdev}/ecn/" for n in nics], [p for n in nics for p in _link_sysfs(n)]]
        else:
            sysfs = [[p for n in nics for p in (f"/sys/class/net/{n.netdev}/ecn/", *_link_sysfs(n))]]
        cmds = [dm.CMD_ADDR, dm.CMD_RDMA, dm.CMD_ROUTES, dm.CMD_UNAME,  # rdma: which netdev is which RDMA device
                CMD_LLDP, CMD_PCI_TREE, CMD_PCI_BRIDGES, CMD_TOPO]  # each NIC's cable (lldp.py), GPU path (pcie.py)
        if host.sysctls:
            cmds.append(dm.cmd_sysctl(host.sysctls))
        cmds += [dm.cmd_sysfs(paths) for paths in sysfs if paths]
        for n in nics:
            cmds += [dm.cmd_mlnx_qos(n.netdev), f"ethtool -S {n.netdev}", f"ethtool -i {n.netdev}",
                     f"ethtool -I --show-fec {n.netdev}", dm.cmd_roce_mode(n.rdma_dev), dm.cmd_roce_tos(n.rdma_dev),
                     cmd_nic_mode(n.rdma_dev)]
        return cmds + (boot.observe_commands(host) if ports is None else [])

    def counter_commands(self, intent: Intent, ports: Collection[str] | None = None) -> list[str]:
        """Link state and counters of the NICs in ``ports`` (None: all): a health check's second sample."""
        nics = _nics(_host(intent), ports)
        if not nics:
            return []
        cmds = [dm.cmd_sysfs([path for n in nics for path in _link_sysfs(n)])]
        for n in nics:
            cmds += [f"ethtool -S {n.netdev}", f"ethtool -I --show-fec {n.netdev}"]
        return cmds

    def collect_rest(self, conn: Any, intent: Intent, counters: dict[str, str],
                     ports: Collection[str] | None = None) -> dict[str, str]:
        """``collect``'s reads in one round trip, but the link and counter files and ``ethtool`` counters come from
        ``counters`` (read just before) and only the ECN files are read with the rest."""
        return first_sample(self.collect_commands(intent, ports, link_apart=True), counters,
                            lambda cmds: self._read(conn, cmds))

    def observe(self, outputs: dict[str, str]) -> ObservedHost:
        """The host's configuration as ``collect``'s outputs show it (:func:`observe.observe`)."""
        return observed.observe(outputs)

    def operational(self, outputs: dict[str, str]) -> OperState:
        """The rail NICs the outputs read (the caller keeps the planned ones: ``device.oper.for_intent``)."""
        links = observed.links_by_name(outputs.get(dm.CMD_ADDR, "[]"))  # shared with observe: only read
        sysfs = observed.sysfs_dump(outputs)
        rdma_of = {**observed.rdma_devices(outputs, None), **_read_nics(outputs)}  # netdev -> RDMA device
        shown = {path[15:].partition("/")[0] for path in sysfs if path.startswith("/sys/class/net/")}  # its netdev
        ports: dict[str, PortOper] = {}
        firmware: set[str] = set()
        drivers: set[str] = set()
        bus: dict[str, str] = {}  # netdev -> PCI address (ethtool -i bus-info)
        for name in sorted(set(links) | shown | set(rdma_of)):
            link = links.get(name)
            base = f"/sys/class/net/{name}"
            counters, unread = _ethtool_counters(outputs.get(f"ethtool -S {name}"), name)
            fec_text = outputs.get(f"ethtool -I --show-fec {name}")
            if fec_text:
                try:
                    fec = parse_ethtool_fec(fec_text)
                except ParseError:
                    fec = {}
                if "uncorrectable_blocks" in fec:
                    counters["fec_uncorrected"] = fec["uncorrectable_blocks"]
            hw_counts, hw_unread = _hw_counters(sysfs, rdma_of.get(name), name)
            counters.update(hw_counts)
            unread.update(hw_unread)
            if sysfs.get(f"{base}/carrier_changes", "").isdigit():
                counters["carrier_changes"] = int(sysfs[f"{base}/carrier_changes"])
            state = sysfs.get(f"{base}/operstate") or (str(link.get("operstate", "")).lower() if link else None)
            speed = sysfs.get(f"{base}/speed", "")
            if link is None and not state:
                continue
            ports[name] = PortOper(name=name, oper_up=None if not state else state == "up",
                                   speed=int(speed) if speed.isdigit() and int(speed) > 0 else None,
                                   mtu=link.get("mtu") if link else None, counters=counters, unread=unread,
                                   mac=canonical_mac(str(link.get("address", ""))) if link else None)
            drv_text = outputs.get(f"ethtool -i {name}")
            if drv_text:
                try:
                    drv = parse_ethtool_driver(drv_text)
                except ParseError:
                    continue
                if drv["firmware"]:
                    firmware.add(drv["firmware"])
                if drv["bus_info"]:
                    bus[name] = str(drv["bus_info"])
                drivers.add(" ".join(x for x in (drv["driver"], drv["version"]) if x))
        uname = outputs.get(dm.CMD_UNAME, "").strip().splitlines()
        return OperState(ports=ports, lldp=_lldp(outputs.get(CMD_LLDP)), gpu_paths=gpu_paths(outputs, rdma_of, bus),
                         firmware=",".join(sorted(firmware)) or None,
                         driver=",".join(sorted(drivers)) or None, os_version=uname[-1].strip() if uname else None)

    # ==================================================================================== device I/O

    def read_config(self, conn: Any) -> Snapshot:
        outputs = self._read(conn, dm.discovery_commands())
        try:
            links = parse_rdma_links(outputs[dm.CMD_RDMA])
        except ParseError as exc:
            raise DriverError(f"cannot list the host's RDMA NICs (rdma -j link show): {exc}") from None
        outputs.update(self._read(conn, dm.nic_read_commands(links)))
        try:
            state = dm.host_state(outputs)
        except (ParseError, dm.PlanError, KeyError) as exc:
            raise DriverError(f"cannot capture the host state: {exc}") from None
        return Snapshot(format="host_state_json", text=dm.dump(state))

    def nic_mode_problems(self, conn: Any, intent: Intent) -> list[str]:
        """The host's NICs in BlueField DPU mode, where the settings a deploy sends would not take effect
        (:mod:`nic_mode`); deploy stops such a host before sending anything (``nic.mode``)."""
        nics = list(_host(intent).nics.values())
        cmds = {n.rdma_dev: cmd_nic_mode(n.rdma_dev) for n in nics}
        outputs = self._read(conn, list(cmds.values()))
        modes = {dev: parse_nic_mode(outputs.get(cmd)) for dev, cmd in cmds.items()}
        return dpu_problems(modes, {n.rdma_dev: n.netdev for n in nics})

    def apply(self, conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        self._run(conn, list(change.payload))

    def confirm(self, conn: Any, txn: str) -> None:
        """Nothing to confirm: host settings are live as soon as they are written (verify read them back)."""
        return None

    def abort(self, conn: Any, txn: str, backup: Snapshot) -> None:
        change = self.restore(self.read_config(conn), backup)
        self._run(conn, list(change.payload))

    def collect(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        return self._read(conn, self.collect_commands(intent, ports))

    def collect_counters(self, conn: Any, intent: Intent, ports: Collection[str] | None = None) -> dict[str, str]:
        return self._read(conn, self.counter_commands(intent, ports))

    # ---- health --traffic: perftest's ib_write_bw (perftest.py); the connection's read timeout bounds each call

    traffic_overhead_s = float(perftest.HEAD_START_S + perftest.CLIENT_GRACE_S)

    def traffic_serve(self, conn: Any, ends: list[RdmaEnd], duration_s: int) -> None:
        line = perftest.server_line(ends, duration_s)
        self._read(conn, [line])

    def traffic_send(self, conn: Any, runs: list[tuple[RdmaEnd, str]],
                     duration_s: int) -> dict[str, RdmaBandwidth | str]:
        line = perftest.client_line(runs, duration_s)
        blocks = perftest.split_rails(self._read(conn, [line])[line])
        out: dict[str, RdmaBandwidth | str] = {}
        for end, _ in runs:
            try:
                out[end.rdma_dev] = perftest.parse_write_bw(blocks.get(end.rdma_dev, ""))
            except ValueError as exc:
                out[end.rdma_dev] = str(exc)
        return out

    # ---- plumbing

    def _is_root(self, conn: Any) -> bool:
        if self.privilege != "auto":
            return self.privilege == "none"
        try:
            return self._root[conn]
        except (KeyError, TypeError):
            pass
        root = current_prompt(conn, _PROMPT_END, read_timeout(conn, self.read_timeout)).endswith("#")
        with contextlib.suppress(TypeError):  # not weak-referenceable: ask again next time
            self._root[conn] = root
        return root

    @staticmethod
    def _wrap(cmd: str, reading: bool, root: bool) -> str:
        """``cmd`` as sent by a session that is ``root`` (:meth:`_is_root`, asked once per batch)."""
        if root or (reading and not cmd.startswith(dm.ROOT_READS)):
            return cmd
        if " > " in cmd or " >> " in cmd:
            return f"sudo -n sh -c {shlex.quote(cmd)}"
        return f"sudo -n {cmd}"

    def _send(self, conn: Any, line: str, done: str, count: int = 1) -> str:
        """Write ``line`` and read until ``count`` lines were ``done`` followed by an exit status
        (``batch_text.done_lines``) and the prompt is back.

        Reads with netmiko's channel primitives rather than ``send_command`` so a session the host
        closed (reset, reboot) fails at once instead of after the read timeout, and so long
        command lines that a terminal wraps do not confuse command-echo detection.
        """
        try:
            conn.read_channel()  # drop anything left from before
            conn.write_channel(line + conn.RETURN)
            buf = ""
            hits, last_hit, scanned = 0, 0, 0  # ``done`` lines found in buf[:scanned], the end of the last one
            timeout = read_timeout(conn, self.read_timeout)  # the run's --timeout and deadline bound it
            deadline = time.monotonic() + timeout
            while True:
                chunk = wait_output(conn, min(1.0, deadline - time.monotonic()))
                if chunk:
                    buf += chunk
                    complete = buf.rfind("\n") + 1  # only whole lines are scanned, each once
                    for end in done_lines(buf, done, scanned, complete):
                        hits, last_hit = hits + 1, end
                    scanned = max(scanned, complete)
                    tail = max(last_hit, len(buf) - PROMPT_TAIL)
                    if hits >= count and _PROMPT_END.search(buf, tail):
                        return buf
                    continue
                if not alive(conn):
                    raise DriverError("the host closed the SSH session")
                if time.monotonic() > deadline:
                    raise DriverError(f"no complete answer within {timeout:g} s")
        except DriverError:
            raise
        except Exception as exc:
            raise DriverError(f"session failed while sending commands: {type(exc).__name__}: {exc}") from exc

    def _read(self, conn: Any, commands: list[str]) -> dict[str, str]:
        """Run read-only ``commands`` in one round trip; command -> its output."""
        if not commands:
            return {}
        token = secrets.token_hex(4)
        root = self._is_root(conn)
        line = "; ".join(f"{self._wrap(c, True, root)}; echo ':RO{token}:'$?" for c in commands)
        raw = self._send(conn, f"{begin_marker(token)}; {line}", f":RO{token}:", len(commands))
        outputs = segments(after_begin(raw, token), f":RO{token}:")
        if len(outputs) != len(commands):
            raise DriverError(f"incomplete output: {len(outputs)} of {len(commands)} commands answered")
        return dict(zip(commands, outputs, strict=True))

    def _chunks(self, commands: list[str]) -> list[list[str]]:
        chunks: list[list[str]] = []
        size = 0
        for c in commands:
            if not chunks or len(chunks[-1]) >= self.chunk_commands or size + len(c) > self.chunk_chars:
                chunks.append([])
                size = 0
            chunks[-1].append(c)
            size += len(c) + 40
        return chunks

    def _run(self, conn: Any, commands: list[str]) -> None:
        """Run write ``commands`` in order; raise DriverError at the first failure (the rest are not run)."""
        for chunk in self._chunks(commands):
            token = secrets.token_hex(4)
            ok_marker, end_marker = re.compile(rf"^:RO{token}:ok\s*$"), re.compile(rf"^:RO{token}:end:(\d+)\s*$")
            root = self._is_root(conn)
            line = " && ".join(f"{self._wrap(c, False, root)} && echo ':RO{token}:''ok'" for c in chunk)
            raw = self._send(conn, f"{begin_marker(token)}; {line}; echo ':RO{token}:end:'$?", f":RO{token}:end:")
            outputs: list[list[str]] = [[]]
            status: int | None = None
            for text_line in after_begin(raw, token).splitlines():
                stripped = text_line.strip()
                if ok_marker.match(stripped):
                    outputs.append([])
                elif m := end_marker.match(stripped):
                    status = int(m.group(1))
                else:
                    outputs[-1].append(text_line)
            if status is None:
                raise DriverError("the host did not finish the command batch (no end marker in the output)")
            done = len(outputs) - 1
            for i, cmd in enumerate(chunk[:done]):
                problems = _errors("\n".join(outputs[i]))
                if problems:
                    raise DriverError(f"{_short(cmd)}: {problems[0]}")
            if done < len(chunk):
                text = "\n".join(outputs[done]).strip()
                first = (_errors(text) or text.splitlines() or ["no output"])[0]
                raise DriverError(f"{_short(chunk[done])} failed (exit {status}): {first.strip()}")


_PROMPT_END = re.compile(r"\n[^\n]*[$#>][ \t]*$")


PROMPT_TAIL = 512  # a prompt is far shorter: only the end of a long answer is searched for it


def _lldp(text: str | None) -> dict[str, LldpNeighbor]:
    """The NICs' LLDP neighbours; none when lldpd does not run or answer (health then skips the host's view)."""
    try:
        return {local: LldpNeighbor(device=dev, port=port) for local, (dev, port) in
                parse_lldpcli_json(text).items()} if text else {}
    except LldpParseError:
        return {}


def _host(intent: Intent) -> HostIntent:
    if not isinstance(intent, HostIntent):
        raise DriverError(f"linux_mlx5 drives hosts; {intent.name} is a {intent.kind}")
    return intent


def _nics(host: HostIntent, ports: Collection[str] | None) -> list[NicIntent]:
    return [n for n in sorted(host.nics.values(), key=lambda n: n.netdev) if ports is None or n.netdev in ports]


def _hw_counters(sysfs: dict[str, str], rdma_dev: str | None, netdev: str) -> tuple[dict[str, int], dict[str, str]]:
    """The congestion-control and transport counters of ``netdev``'s RDMA device, and those unread -> why
    (health's cc.loop and nic.transport: unknown, never 0)."""
    names = (*(neutral for neutral, _ in CC_COUNTERS), *TRANSPORT_COUNTERS)
    if rdma_dev is None:
        return {}, dict.fromkeys(names, f"the outputs do not say which RDMA device {netdev} is")
    hw = f"/sys/class/infiniband/{rdma_dev}/ports/{dm.RDMA_PORT}/hw_counters"
    counters: dict[str, int] = {}
    unread: dict[str, str] = {}
    for neutral, hw_name in CC_COUNTERS:
        if sysfs.get(f"{hw}/{hw_name}", "").isdigit():
            counters[neutral] = int(sysfs[f"{hw}/{hw_name}"])
        else:
            unread[neutral] = f"{hw}/{hw_name} not readable"
    hw_counts, hw_unread = transport_counters(sysfs, hw)
    return {**counters, **hw_counts}, {**unread, **hw_unread}


def _read_nics(outputs: dict[str, str]) -> dict[str, str]:
    """netdev -> RDMA device of every NIC whose link state the outputs read: the sysfs read names both, the
    netdev's files right before its RDMA device's hardware counters (:func:`_link_sysfs`)."""
    out: dict[str, str] = {}
    for cmd in outputs:
        if not cmd.startswith(_SYSFS_READ):
            continue
        netdev = None
        for path in cmd[len(_SYSFS_READ):].split():
            parts = path.split("/")
            if path.startswith("/sys/class/net/") and len(parts) > 4:
                netdev = parts[4]
            elif path.startswith("/sys/class/infiniband/") and path.endswith("/hw_counters/") and netdev:
                out[netdev] = parts[4]
    return out


_SYSFS_READ = dm.cmd_sysfs([])  # the start of every sysfs read


def _link_sysfs(nic: NicIntent) -> list[str]:
    """sysfs files with a NIC's link state, flap count and RoCE hardware counters (in this order: the netdev's,
    then its RDMA device's, which is how :func:`_read_nics` pairs them)."""
    base = f"/sys/class/net/{nic.netdev}"
    return [f"{base}/speed", f"{base}/operstate", f"{base}/carrier_changes",
            f"/sys/class/infiniband/{nic.rdma_dev}/ports/{dm.RDMA_PORT}/hw_counters/"]


def _short(cmd: str, limit: int = 100) -> str:
    return cmd if len(cmd) <= limit else cmd[:limit - 3] + "..."


DRIVER = LinuxMlx5Driver()
