"""The SONiC lab personality: a Linux shell (``admin@HOST:~$``) with SONiC's tools on top.

Shell: ``sudo`` prefix, here-documents (``cat > /tmp/x.json <<'EOF'`` ... ``EOF`` with ``> `` continuation
prompts, as bash), ``cat FILE``, ``rm [-f] FILE``, ``hostname``, ``echo``, ``exit``.

SONiC: ``sonic-cfggen -d --print-data`` / ``-d --var-json TABLE`` / ``-j FILE --print-data``;
``redis-cli -n 4 keys|hgetall|hget``; ``config checkpoint|apply-patch|rollback|replace|list-checkpoints|
delete-checkpoint|save|load|interface pfc priority|interface mtu|interface startup|shutdown`` (root only);
``ecnconfig -l`` / ``-p PROFILE -gmin ...``; ``pfcwd show config|stats``; and the ``show`` commands of
:mod:`roceops.lab.devices.sonic.show`. Error texts are sonic-utilities' (click usage errors, GCU messages).

Faults (see :class:`~roceops.lab.devices.sonic.state.SonicState`): ``pfc_off``, ``ecn_changed``,
``mtu_mismatch`` edit CONFIG_DB as the matching CLI would; ``reject_config`` makes sudo refuse every
``config``/``ecnconfig`` write (as a restricted sudoers rule does); ``confirm_lost`` makes ``config save``
report success without writing the file; ``link_down``/``link_flap``/``pause_storm``/``crc_errors`` are
:class:`~roceops.lab.physical.Physical`'s; ``facts`` (hwsku=, version=) makes ``show version`` report another
HwSKU or release (the switch answers the fabric's by default).
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from typing import Any

from roceops.lab.devices.sonic.format import cfggen_dump, redis_array
from roceops.lab.devices.sonic.show import GROUPS, SHOW, ecn_list, pfcwd_config, pfcwd_stats
from roceops.lab.devices.sonic.state import CONFIG_FILE, CommandFailed, SonicState
from roceops.lab.personality import CloseSession, DeviceState, Reply, Session, SessionInfo
from roceops.util.sorting import natsorted

__all__ = ["SonicSession", "SonicState"]

CFGGEN = "/usr/local/bin/sonic-cfggen"
TOOLS = {"config": "/usr/local/bin/config", "ecnconfig": "/usr/local/bin/ecnconfig"}
MAX_FILES = 16
MAX_FILE_BYTES = 4 << 20  # the file store is small on purpose: 1,000 lab devices share one process
MAX_TOTAL_BYTES = 8 << 20
_HEREDOC = re.compile(
    r"^\s*(?:sudo\s+)?cat\s+(?:>\s*(?P<p1>\S+)\s+<<-?\s*(?P<q1>['\"]?)(?P<d1>\w+)(?P=q1)"
    r"|<<-?\s*(?P<q2>['\"]?)(?P<d2>\w+)(?P=q2)\s+>\s*(?P<p2>\S+))\s*$")
_ECN_OPTIONS = {"-gmin": "green_min_threshold", "-gmax": "green_max_threshold", "-ymin": "yellow_min_threshold",
                "-ymax": "yellow_max_threshold", "-rmin": "red_min_threshold", "-rmax": "red_max_threshold",
                "-gdrop": "green_drop_probability", "-ydrop": "yellow_drop_probability",
                "-rdrop": "red_drop_probability"}
_VALUE_OPTIONS = frozenset({"-f", "--format", "-i", "--ignore-path", "-t", "--path-trace"})
_CONFIG_USAGE = {
    "apply-patch": "[OPTIONS] PATCH_FILE_PATH", "replace": "[OPTIONS] TARGET_FILE_PATH",
    "rollback": "[OPTIONS] CHECKPOINT_NAME", "checkpoint": "[OPTIONS] CHECKPOINT_NAME",
    "delete-checkpoint": "[OPTIONS] CHECKPOINT_NAME", "save": "[OPTIONS] [FILENAME]", "load": "[OPTIONS] [FILENAME]",
    "reload": "[OPTIONS] [FILENAME]",
}


def usage_error(command: str, usage: str, error: str) -> Reply:
    """click's usage error (``ctx.fail``): exit status 2."""
    return Reply(f'Usage: {command} {usage}\nTry "{command} -h" for help.\n\nError: {error}', exit_status=2)


def _fail(text: str, status: int = 1) -> Reply:
    return Reply(text, exit_status=status)


# what shlex.split treats differently from str.split: quotes, backslashes, blanks other than space/tab/CR/LF
_SHLEX_SPECIAL = re.compile(r"['\"\\]|[^\S \t\r\n]")


class SonicSession(Session):
    state: SonicState

    def __init__(self, state: DeviceState, info: SessionInfo) -> None:
        super().__init__(state, info)
        self.heredoc: tuple[str, str, list[str]] | None = None  # (path, delimiter, lines so far)

    def prompt(self) -> str:
        return "> " if self.heredoc is not None else f"{self.info.username}@{self.state.hostname}:~$ "

    # ---------------------------------------------------------------- shell

    def handle(self, line: str) -> str | Reply:
        if self.heredoc is not None:
            return self._heredoc_line(line)
        if not line.strip():
            return ""
        m = _HEREDOC.match(line)
        if m is not None:
            path, delim = m.group("p1") or m.group("p2"), m.group("d1") or m.group("d2")
            self.heredoc = (path, delim, [])
            return ""
        try:
            words = shlex.split(line) if _SHLEX_SPECIAL.search(line) else line.split()
        except ValueError:
            return _fail("-bash: syntax error: unexpected end of file", 2)
        root = False
        if words and words[0] == "sudo":
            root, words = True, words[1:]
            if not words:
                return _fail("usage: sudo -h | -K | -k | -V", 1)
        cmd, args = words[0], words[1:]
        handler = getattr(self, f"_cmd_{cmd.replace('-', '_')}", None)
        if handler is None:
            return _fail(f"-bash: {cmd}: command not found", 127)
        result: str | Reply = handler(args, root)
        return result

    def _heredoc_line(self, line: str) -> str | Reply:
        assert self.heredoc is not None
        path, delim, lines = self.heredoc
        if line != delim:
            lines.append(line)
            return ""
        self.heredoc = None
        return self._write_file(path, "".join(f"{text}\n" for text in lines))

    def _write_file(self, path: str, text: str) -> str | Reply:
        files = self.state.files
        if path.startswith("/") and not path.startswith("/tmp/"):
            return _fail(f"-bash: {path}: Permission denied")
        total = sum(len(t) for p, t in files.items() if p != path) + len(text)
        if (path not in files and len(files) >= MAX_FILES) or len(text) > MAX_FILE_BYTES or total > MAX_TOTAL_BYTES:
            return _fail(f"-bash: {path}: No space left on device")
        files[path] = text
        return ""

    def _cmd_exit(self, args: list[str], root: bool) -> str:
        raise CloseSession("logout")

    _cmd_logout = _cmd_exit

    def _cmd_hostname(self, args: list[str], root: bool) -> str:
        return self.state.hostname

    def _cmd_pgrep(self, args: list[str], root: bool) -> str | Reply:
        """``pgrep -af PATTERN``: the processes whose modes the switch read when its services last started
        (buffermgrd.sh's arguments; frrcfgd or bgpcfgd in the bgp container)."""
        words = [a for a in args if not a.startswith("-")]
        if len(words) != 1:
            return _fail("pgrep: no matching criteria specified\nTry `pgrep --help' for more information.", 2)
        try:
            pattern = re.compile(words[0])
        except re.error:
            return _fail(f"pgrep: invalid regular expression: {words[0]}", 2)
        modes = self.state.modes
        lines = [
            "1812 /usr/bin/buffermgrd " + ("-a /etc/sonic/asic_table.json" if modes["buffer_model"] == "dynamic"
                                           else "-l /usr/share/sonic/hwsku/pg_profile_lookup.ini"),
            "2207 /usr/bin/python3 /usr/local/bin/"
            + ("frrcfgd" if modes["frr_mgmt_framework_config"] == "true" else "bgpcfgd"),
        ]
        found = [line for line in lines if pattern.search(line.split(" ", 1)[1])]
        return "\n".join(found) if found else Reply("", exit_status=1)

    def _cmd_echo(self, args: list[str], root: bool) -> str:
        return " ".join(args)

    def _cmd_cat(self, args: list[str], root: bool) -> str | Reply:
        out = []
        for path in args:
            text = self.state.read_file(path)
            if text is None:
                return _fail(f"cat: {path}: No such file or directory")
            out.append(text)
        return "".join(out).rstrip("\n")

    def _cmd_rm(self, args: list[str], root: bool) -> str | Reply:
        force = any(a.startswith("-") and "f" in a for a in args)
        for path in (a for a in args if not a.startswith("-")):
            if self.state.files.pop(path, None) is None and not force:
                return _fail(f"rm: cannot remove '{path}': No such file or directory")
        return ""

    # ---------------------------------------------------------------- CONFIG_DB readers

    def _cmd_sonic_cfggen(self, args: list[str], root: bool) -> str | Reply:
        doc: dict[str, Any] = {}
        i = 0
        var_json = None
        print_data = False
        while i < len(args):
            a = args[i]
            if a == "-d":
                doc.update(self.state.db_read())
            elif a == "-j" and i + 1 < len(args):
                i += 1
                text = self.state.read_file(args[i])
                if text is None:
                    return _fail(f"FileNotFoundError: [Errno 2] No such file or directory: '{args[i]}'")
                try:
                    doc.update(json.loads(text))
                except json.JSONDecodeError as exc:
                    return _fail(f"json.decoder.JSONDecodeError: {exc}")
            elif a == "--var-json" and i + 1 < len(args):
                i += 1
                var_json = args[i]
            elif a == "--print-data":
                print_data = True
            else:
                return _fail(f"usage: sonic-cfggen [-h] ...\nsonic-cfggen: error: unrecognized arguments: {a}", 2)
            i += 1
        if var_json is not None:
            if var_json not in doc:
                return ""
            table = doc[var_json]
            return json.dumps({k: table[k] for k in natsorted(table)}, indent=4)
        if print_data:
            return cfggen_dump(doc)
        return ""

    def _cmd_redis_cli(self, args: list[str], root: bool) -> str | Reply:
        db_index = "0"
        if len(args) >= 2 and args[0] == "-n":
            db_index, args = args[1], args[2:]
        if not args:
            return _fail("redis-cli: interactive mode is not available in the lab")
        op = args[0].lower()
        config = self.state.db_read() if db_index == "4" else {}
        if op == "keys" and len(args) == 2:
            keys = [f"{t}|{k}" for t, entries in config.items() for k in entries]
            return redis_array(natsorted(k for k in keys if fnmatch.fnmatchcase(k, args[1])))
        if op in ("hgetall", "hget") and len(args) >= 2:
            table, _, key = args[1].partition("|")
            fields = config.get(table, {}).get(key)
            if op == "hget":
                value = (fields or {}).get(args[2]) if len(args) > 2 else None
                return "(nil)" if value is None else json.dumps(value)
            if fields is None:
                return "(empty array)"
            flat = [x for kv in sorted((fields or {"NULL": "NULL"}).items()) for x in kv]
            return redis_array(flat)
        return _fail(f"(error) ERR unknown command '{args[0]}'")

    # ---------------------------------------------------------------- config (GCU and friends)

    def _denied(self, tool: str, args: list[str]) -> Reply | None:
        """``reject_config``: the sudoers rule no longer lets this user run the tool as root."""
        if self.state.rejecting():
            command = " ".join([TOOLS[tool], *args])
            return _fail(f"Sorry, user {self.info.username} is not allowed to execute '{command}' as root on "
                         f"{self.state.hostname}.")
        return None

    def _cmd_config(self, args: list[str], root: bool) -> str | Reply:
        if not root:
            return _fail("Root privileges are required for this operation")
        denied = self._denied("config", args)
        if denied is not None:
            return denied
        if not args:
            return 'Usage: config [OPTIONS] COMMAND [ARGS]...\n\n  SONiC command line - \'config\' command'
        sub, rest = args[0], args[1:]
        flags: set[str] = set()
        params: list[str] = []
        skip = False
        for a in rest:
            if skip:
                skip = False
            elif a.startswith("-"):
                flags.add(a)
                skip = a in _VALUE_OPTIONS
            else:
                params.append(a)
        if sub == "interface":
            return self._config_interface(rest)
        handler = getattr(self, f"_config_{sub.replace('-', '_')}", None)
        if handler is None:
            return usage_error("config", "[OPTIONS] COMMAND [ARGS]...", f'No such command "{sub}".')
        usage = _CONFIG_USAGE.get(sub, "[OPTIONS]")
        needs_param = not usage.split()[-1].startswith("[")
        if needs_param and not params:
            return usage_error(f"config {sub}", usage, f"Missing argument \"{usage.split()[-1]}\".")
        result: str | Reply = handler(params, flags)
        return result

    def _gcu_log(self, title: str, lines: list[str]) -> str:
        return "\n".join(f"{title}: {line}" for line in lines)

    def _config_apply_patch(self, params: list[str], flags: set[str]) -> str | Reply:
        dry = bool(flags & {"-d", "--dry-run"})
        head = ["** DRY RUN EXECUTION **"] if dry else []
        log = self._gcu_log("Patch Applier", [
            "localhost: Patch application starting.", "localhost getting current config db.",
            "localhost: simulating the target full config after applying the patch.",
            "localhost: validating all JsonPatch operations are permitted on the specified fields",
            "localhost: validating target config does not have empty tables, since they do not show up in ConfigDb."])
        text = self.state.read_file(params[0])
        try:
            if text is None:
                raise CommandFailed(f"[Errno 2] No such file or directory: '{params[0]}'")
            self.state.apply_patch(text, dry_run=dry,
                                   ignore_non_yang=bool(flags & {"-n", "--ignore-non-yang-tables"}))
        except CommandFailed as exc:
            body = "\n".join([*head, log, f"Failed to apply patch due to: {exc}"])
            reply = usage_error("config apply-patch", _CONFIG_USAGE["apply-patch"], str(exc))
            return Reply(f"{body}\n{reply.text}", exit_status=2)
        tail = self._gcu_log("Patch Applier", [
            "localhost: sorting patch updates.", "localhost: verifying patch updates are reflected on ConfigDB.",
            "localhost patch application completed."])
        return "\n".join([*head, log, tail, "Patch applied successfully."])

    def _config_replace(self, params: list[str], flags: set[str]) -> str | Reply:
        dry = bool(flags & {"-d", "--dry-run"})
        text = self.state.read_file(params[0])
        try:
            if text is None:
                raise CommandFailed(f"[Errno 2] No such file or directory: '{params[0]}'")
            target = json.loads(text)
            ops = [{"op": "remove", "path": f"/{t}"} for t in self.state.db() if t not in target]
            ops += [{"op": "add", "path": f"/{t.replace('~', '~0').replace('/', '~1')}", "value": v}
                    for t, v in target.items()]
            self.state.apply_patch(json.dumps(ops), dry_run=dry)
        except (CommandFailed, json.JSONDecodeError) as exc:
            reply = usage_error("config replace", _CONFIG_USAGE["replace"], str(exc))
            return Reply(f"Failed to replace config\n{reply.text}", exit_status=2)
        return "\n".join([*(["** DRY RUN EXECUTION **"] if dry else []), "Config replaced successfully."])

    def _config_checkpoint(self, params: list[str], flags: set[str]) -> str:
        name = params[0]
        self.state.checkpoint(name)
        return "\n".join([self._gcu_log("Config Rollbacker", [
            "Config checkpoint starting.", f"Checkpoint name: {name}.", "Getting current config db.",
            "Getting checkpoint full-path.", "Ensuring checkpoint directory exist.",
            f"Saving config db content to /etc/sonic/checkpoints/{name}.cp.json.", "Config checkpoint completed."]),
            "Checkpoint created successfully."])

    def _config_rollback(self, params: list[str], flags: set[str]) -> str | Reply:
        name = params[0]
        dry = bool(flags & {"-d", "--dry-run"})
        log = self._gcu_log("Config Rollbacker", ["Config rollbacking starting.", f"Checkpoint name: {name}.",
                                                  f"Verifying '{name}' exists."])
        try:
            self.state.rollback(name, dry_run=dry)
        except CommandFailed as exc:
            reply = usage_error("config rollback", _CONFIG_USAGE["rollback"], str(exc))
            return Reply(f"{log}\nFailed to rollback config\n{reply.text}", exit_status=2)
        tail = self._gcu_log("Config Rollbacker", ["Loading checkpoint into memory.",
                                                   "Replacing config using 'Config Replacer'.",
                                                   "Config rollbacking completed."])
        return "\n".join([*(["** DRY RUN EXECUTION **"] if dry else []), log, tail, "Config rolled back successfully."])

    def _config_list_checkpoints(self, params: list[str], flags: set[str]) -> str:
        cps = self.state.checkpoints
        if flags & {"-t", "--time"}:
            from datetime import UTC, datetime

            items: list[Any] = [{"name": n, "time": datetime.fromtimestamp(t, UTC).isoformat()}
                                for n, (_, t) in sorted(cps.items(), key=lambda kv: -kv[1][1])]
        else:
            items = sorted(cps)
        return json.dumps(items, indent=4)

    def _config_delete_checkpoint(self, params: list[str], flags: set[str]) -> str | Reply:
        try:
            self.state.delete_checkpoint(params[0])
        except CommandFailed as exc:
            reply = usage_error("config delete-checkpoint", _CONFIG_USAGE["delete-checkpoint"], str(exc))
            return Reply(f"Failed to delete config checkpoint\n{reply.text}", exit_status=2)
        return "Checkpoint deleted successfully."

    def _config_save(self, params: list[str], flags: set[str]) -> str | Reply:
        if not flags & {"-y", "--yes"}:
            return _fail("Existing files will be overwritten, continue? [y/N]: \nAborted!")
        target = params[0] if params else CONFIG_FILE
        text = f"Running command: {CFGGEN} -d --print-data > {target}"
        if target == CONFIG_FILE:
            self.state.save()
        else:
            written = self._write_file(target, cfggen_dump(self.state.db()) + "\n")
            if isinstance(written, Reply):
                return Reply(f"{text}\n{written.text}", exit_status=1)
        return text

    def _config_load(self, params: list[str], flags: set[str]) -> str | Reply:
        target = params[0] if params else CONFIG_FILE
        if not flags & {"-y", "--yes"}:
            return _fail(f"Load config from the file(s) {target} ? [y/N]: \nAborted!")
        text = self.state.read_file(target)
        if text is None:
            return f"The config_db file {target} doesn't exist"
        out = f"Running command: {CFGGEN} -j {target} --write-to-db"
        try:
            self.state.load_config(json.loads(text))
        except (json.JSONDecodeError, CommandFailed, AttributeError) as exc:
            return _fail(f"{out}\nError: {exc}")
        return out

    def _config_reload(self, params: list[str], flags: set[str]) -> str | Reply:
        """``config reload -y [-n] [FILE]`` (sonic-utilities config/main.py ``reload``): stop, flush, load, restart;
        ``-n/--no_service_restart`` skips the stop and the restart (@ 691b1bbc, "Do not restart docker services").
        The lab prints the load step as ``config load`` does; the service lines of a real box are left out."""
        target = params[0] if params else CONFIG_FILE
        if not flags & {"-y", "--yes"}:
            return _fail(f"Clear current config and reload config in config_db from the file(s) {target} ? "
                         "[y/N]: \nAborted!")
        text = self.state.read_file(target)
        if text is None:
            return _fail(f"The config file {target} doesn't exist")
        out = f"Running command: {CFGGEN} -j {target} --write-to-db"
        try:
            self.state.reload(json.loads(text), restart=not flags & {"-n", "--no_service_restart"})
        except (json.JSONDecodeError, CommandFailed, AttributeError) as exc:
            return _fail(f"{out}\nError: {exc}")
        return out

    def _config_interface(self, rest: list[str]) -> str | Reply:
        words = [a for a in rest if not a.startswith("-")]
        try:
            if words[:2] == ["pfc", "priority"] and len(words) == 5 and words[4] in ("on", "off"):
                return self.state.pfc_priority(words[2], int(words[3]), words[4] == "on")
            if words[:1] == ["mtu"] and len(words) == 3:
                self.state.set_mtu(words[1], int(words[2]))
                return ""
            if words[:1] in (["startup"], ["shutdown"]) and len(words) == 2:
                self.state.set_port_field(words[1], "admin_status", "up" if words[0] == "startup" else "down")
                return ""
        except CommandFailed as exc:
            return usage_error(f"config interface {words[0]}", "[OPTIONS] INTERFACE_NAME ...", str(exc))
        except ValueError as exc:
            return usage_error(f"config interface {words[0]}", "[OPTIONS] INTERFACE_NAME ...", f"Invalid value: {exc}")
        return usage_error("config interface", "[OPTIONS] COMMAND [ARGS]...",
                           f'No such command "{words[0] if words else ""}".')

    # ---------------------------------------------------------------- other SONiC tools

    def _cmd_ecnconfig(self, args: list[str], root: bool) -> str | Reply:
        if "-l" in args or "--list" in args:
            return ecn_list(self.state, self.state.db_read(), [])
        if "-p" not in args:
            return _fail("Usage: ecnconfig [OPTIONS] [[on|off]]\nTry 'ecnconfig --help' for help.", 2)
        if not root:
            return _fail("Root privileges required for this operation")
        denied = self._denied("ecnconfig", args)
        if denied is not None:
            return denied
        profile = args[args.index("-p") + 1] if args.index("-p") + 1 < len(args) else ""
        values = {field: args[args.index(opt) + 1] for opt, field in _ECN_OPTIONS.items()
                  if opt in args and args.index(opt) + 1 < len(args)}
        if not values:
            return _fail("Exception caught:  Input arguments error. Specify at least one threshold parameter to set")
        try:
            self.state.set_ecn(profile, values)
        except CommandFailed:
            return _fail(f"Exception caught:  Input arguments error. Invalid WRED profile {profile} for namespace None")
        return ""

    def _cmd_pfcwd(self, args: list[str], root: bool) -> str | Reply:
        if args[:2] == ["show", "config"]:
            return pfcwd_config(self.state, self.state.db_read(), args[2:])
        if args[:2] == ["show", "stats"]:
            return pfcwd_stats(self.state, self.state.db_read(), args[2:])
        return usage_error("pfcwd", "[OPTIONS] COMMAND [ARGS]...", f'No such command "{" ".join(args[:2])}".')

    def _cmd_show(self, args: list[str], root: bool) -> str | Reply:
        words = [a for a in args if a not in ("-d", "all")] if args[:1] == ["runningconfiguration"] else args
        if words[:1] == ["runningconfiguration"]:
            return cfggen_dump(self.state.db_read())
        if words[:1] == ["pfcwd"] and len(words) >= 2:
            words = ["pfcwd", words[1], *words[2:]]
        for size in (3, 2, 1):
            key = " ".join(words[:size])
            if len(words) >= size and key in SHOW:  # longest command first
                return SHOW[key](self.state, self.state.db_read(), words[size:])
        if not words:
            return "Usage: show [OPTIONS] COMMAND [ARGS]...\n\n  SONiC command line - 'show' command"
        group = next((g for g in GROUPS if words[:len(g.split())] == g.split()), "")
        rest = words[len(group.split()):] if group else words
        command = f"show {group}".strip()
        if not rest:
            return usage_error(command, "[OPTIONS] COMMAND [ARGS]...", "Missing command.")
        return usage_error(command, "[OPTIONS] COMMAND [ARGS]...", f'No such command "{rest[0]}".')
