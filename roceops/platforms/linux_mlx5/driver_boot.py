"""Pure side of what a host keeps across a reboot: the installed persistence files, the systemd unit's state
and the NIC firmware (mlxconfig next-boot) values. Which commands read them, how they sit in the backup
document, the commands that install the rendered files (atomically) or put the backup back, and the reads
``collect`` adds for them (:mod:`observe` parses those into the ObservedHost's ``boot``/``nccl``/``firmware``).

Install, per file: the text goes base64-encoded into ``<path>.roceops-new.b64`` (``echo`` lines of simple
commands, so the line-by-line runner can send them), is decoded to ``<path>.roceops-new``, gets its mode, and
is renamed over ``<path>`` (``mv`` = rename(2): a reader sees the old or the new file, never half of one).
Then ``netplan generate`` (checks and renders the netplan files; ``netplan apply`` is not run because the
runtime commands already set the same addresses and routes, and apply would bounce links), ``systemctl
daemon-reload`` and ``systemctl enable`` of the unit. The backup holds each file's exact text and mode (or its
absence) and the unit's enablement; restore writes them back the same way.
"""

from __future__ import annotations

import base64
import difflib
import posixpath
from collections.abc import Collection
from typing import Any

from roceops.device.intent import HostIntent
from roceops.hardware.nics import ROCE_FIRMWARE_KEYS
from roceops.platforms.linux_mlx5.parsers import ParseError
from roceops.platforms.linux_mlx5.parsers_boot import (
    parse_base64_file,
    parse_mlxconfig_query,
    parse_systemctl_show,
)
from roceops.platforms.linux_mlx5.render import INSTALL_TARGETS, PERSISTED, UNIT

PATHS = tuple(INSTALL_TARGETS[name].path for name in PERSISTED)
NETPLAN_PATH = INSTALL_TARGETS["netplan.yaml"].path
NCCL_CONF = INSTALL_TARGETS["nccl.conf"].path
UNIT_PROPS = ("LoadState", "UnitFileState", "ActiveState", "Result", "ExecMainStatus")
CMD_UNIT = f"systemctl show {UNIT} " + " ".join(f"-p {p}" for p in UNIT_PROPS)
# Reads whose error text is parsed merge stderr into stdout so it arrives in order with the batch markers.
CMD_SHA = "sha256sum " + " ".join(PATHS) + " 2>&1"
CMD_NCCL = f"cat {NCCL_CONF} 2>&1"
CMD_GIDS = "show_gids 2>&1"
CMD_TOOLS = "which ib_write_bw"  # perftest, for health --traffic
FIRMWARE_PARAMS = tuple(f"{key}_P1" for key in ROCE_FIRMWARE_KEYS)
CHUNK = 3000  # base64 characters per echo line
STANDARD_DIRS = frozenset({"/etc", "/etc/netplan", "/etc/systemd/system", "/etc/sysctl.d", "/usr/local/sbin"})
TMP = ".roceops-new"


def cmd_file(path: str) -> str:
    return f"base64 {path} 2>&1"


def cmd_mode(path: str) -> str:
    return f"stat -c %a {path} 2>&1"


def cmd_mlxconfig(rdma_dev: str, params: tuple[str, ...] = FIRMWARE_PARAMS) -> str:
    return f"mlxconfig -d {rdma_dev} -e query " + " ".join(params) + " 2>&1"


def capture_commands(rdma_devs: list[str]) -> list[str]:
    """The backup's reads: every persistence file (text and mode), the unit, the firmware values."""
    cmds = [c for path in PATHS for c in (cmd_file(path), cmd_mode(path))]
    return [*cmds, CMD_UNIT, *(cmd_mlxconfig(dev) for dev in rdma_devs)]


def firmware_values(text: str | None, params: Collection[str] | None = None) -> dict[str, int] | None:
    """Next-boot values of ``params`` (None: every parameter the table shows with a numeric value) from an
    ``mlxconfig -e query``; None if the tool did not answer."""
    if not text:
        return None
    try:
        table = parse_mlxconfig_query(text)["params"]
    except ParseError:
        return None
    names = table if params is None else params
    return {p: v for p in names if (v := (table.get(p) or {}).get("next")) is not None}


def capture(outputs: dict[str, str], rdma_devs: list[str]) -> dict[str, Any]:
    """The ``boot`` and ``firmware`` parts of the backup document."""
    files: dict[str, dict[str, str] | None] = {}
    for path in PATHS:
        text = parse_base64_file(outputs.get(cmd_file(path), "base64: no output"))
        mode = outputs.get(cmd_mode(path), "").strip()
        files[path] = None if text is None or not mode.isdigit() else {"mode": mode, "text": text}
    unit = parse_systemctl_show(outputs.get(CMD_UNIT, ""))
    return {"boot": {"files": files, "unit_enabled": unit.get("UnitFileState", "")},
            "firmware": {dev: firmware_values(outputs.get(cmd_mlxconfig(dev)), FIRMWARE_PARAMS) for dev in rdma_devs}}


# ------------------------------------------------------------------------------------ writing files


def install_commands(path: str, text: str, mode: int) -> list[str]:
    """Simple commands that replace ``path`` by ``text`` with ``mode``, atomically (write temp + rename)."""
    encoded = base64.b64encode(text.encode()).decode()
    chunks = [encoded[i:i + CHUNK] for i in range(0, len(encoded), CHUNK)] or [""]
    tmp = path + TMP
    folder = posixpath.dirname(path)
    cmds = [] if folder in STANDARD_DIRS else [f"mkdir -p {folder}"]
    cmds += [f"echo {chunk} {'>' if i == 0 else '>>'} {tmp}.b64" for i, chunk in enumerate(chunks)]
    return [*cmds, f"base64 -d {tmp}.b64 > {tmp}", f"chmod {mode:o} {tmp}", f"mv -f {tmp} {path}", f"rm -f {tmp}.b64"]


def file_diff(path: str, old: str | None, new: str | None) -> str:
    lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                 fromfile=f"{path} (on the host)" if old is not None else "/dev/null",
                                 tofile=f"{path} (rendered)" if new is not None else "/dev/null")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def install_plan(boot: dict[str, Any], wanted: dict[str, tuple[str, int]], enable: bool
                 ) -> tuple[list[str], str, int]:
    """(commands, unified diffs, files changed) that install ``wanted`` (path -> (text, mode)) over the files
    in ``boot`` (the backup's ``boot`` part), then netplan generate / daemon-reload / enable as needed."""
    cmds: list[str] = []
    diffs: list[str] = []
    changed: set[str] = set()
    for path, (text, mode) in wanted.items():
        cur = (boot.get("files") or {}).get(path)
        if cur is not None and cur["text"] == text and cur["mode"] == f"{mode:o}":
            continue
        changed.add(path)
        cmds += install_commands(path, text, mode)
        diff = file_diff(path, cur["text"] if cur else None, text)
        diffs.append(diff or f"{path}: mode {cur['mode'] if cur else '(absent)'} -> {mode:o}\n")
    cmds += _activate(changed, reload_units=any(p.startswith("/etc/systemd/") for p in changed))
    if enable and boot.get("unit_enabled") != "enabled":
        cmds.append(f"systemctl enable {UNIT}")
        diffs.append(f"{UNIT}: {boot.get('unit_enabled') or '(not installed)'} -> enabled\n")
    return cmds, "".join(diffs), len(changed)


def _activate(changed: set[str], reload_units: bool) -> list[str]:
    cmds = ["netplan generate"] if NETPLAN_PATH in changed else []
    return cmds + (["systemctl daemon-reload"] if reload_units else [])


def restore_boot(current: dict[str, Any], backup: dict[str, Any]) -> list[str]:
    """Commands that put the backup's files (text, mode, absence) and unit enablement back."""
    cur_files, want_files = current.get("files") or {}, backup.get("files") or {}
    cmds: list[str] = []
    want_state, cur_state = backup.get("unit_enabled", ""), current.get("unit_enabled", "")
    if cur_state == "enabled" and want_state != "enabled":
        cmds.append(f"systemctl disable {UNIT}")  # while the unit file is still there
    changed: set[str] = set()
    for path, want in sorted(want_files.items()):
        cur = cur_files.get(path)
        if want == cur:
            continue
        changed.add(path)
        cmds += [f"rm -f {path}"] if want is None else install_commands(path, want["text"], int(want["mode"], 8))
    cmds += _activate(changed, reload_units=any(p.startswith("/etc/systemd/") for p in changed))
    if want_state == "enabled" and cur_state != "enabled":
        cmds.append(f"systemctl enable {UNIT}")
    return cmds


def firmware_commands(current: dict[str, dict[str, int] | None], wanted: dict[str, dict[str, int]]
                      ) -> tuple[list[str], str]:
    """``mlxconfig set`` commands for the values that differ (next boot), and their diff lines."""
    cmds: list[str] = []
    diff: list[str] = []
    for dev, params in sorted(wanted.items()):
        now = current.get(dev) or {}
        todo = {k: v for k, v in sorted(params.items()) if now.get(k) != v}
        if todo:
            cmds.append(f"mlxconfig -d {dev} -y set " + " ".join(f"{k}={v}" for k, v in todo.items()))
            diff += [f"firmware.{dev}.{k}: {now.get(k, '(unknown)')} -> {v} (next boot)" for k, v in todo.items()]
    return cmds, "".join(f"{line}\n" for line in diff)


# ------------------------------------------------------------------------------------ collect


def observe_commands(host: HostIntent) -> list[str]:
    """The boot, NCCL, GID and tool reads, and the firmware values the intent sets (the devices and
    parameters it names: ``collect`` decides what to read)."""
    cmds = [CMD_SHA, CMD_UNIT, CMD_NCCL, CMD_GIDS, CMD_TOOLS]
    if host.firmware is not None:
        cmds += [cmd_mlxconfig(dev, tuple(sorted(params))) for dev, params in sorted(host.firmware.devices.items())]
    return cmds
