"""The ``nv`` command of the lab's Cumulus switch: ``set``/``unset``, ``config ...``, ``show ...``, ``action``.

Pure functions of the device state (:class:`roceops.lab.devices.cumulus.state.CumulusStateCore`); they never
sleep or do I/O. See :mod:`roceops.lab.devices.cumulus.device` for the revision model.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from roceops.lab.devices.cumulus import show
from roceops.lab.devices.cumulus.releases import views_tree
from roceops.lab.devices.cumulus.schema import (
    NvError,
    Tree,
    apply_set,
    apply_unset,
    commands_text,
    diff_commands,
    diff_yaml,
    nested,
    parse_commands,
    resolve,
    yaml_lines,
)
from roceops.lab.personality import reported_fact

if TYPE_CHECKING:
    from roceops.lab.devices.cumulus.state import CumulusStateCore

Result = tuple[str, int]
DEFAULT_CONFIRM_S = 600  # NVUE: "If you do not confirm within ten minutes, the configuration rolls back"
USAGE = "Usage:\n  nv [options] <command> [<args>...]\n\nCommands: set, unset, show, config, action"


def run_nv(state: CumulusStateCore, args: list[str], user: str) -> Result:
    if not args:
        return USAGE, 0
    verb, rest = args[0], args[1:]
    try:
        if verb in ("set", "unset"):
            return _edit(state, verb, rest)
        if verb == "config":
            return _config(state, rest, user)
        if verb == "show":
            return _show(state, rest)
        if verb == "action":
            return _action(state, rest)
    except NvError as exc:
        return str(exc), 1
    return f"Error: Invalid Command: {' '.join(args)}", 2


# --------------------------------------------------------------------------- set / unset


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _edit(state: CumulusStateCore, verb: str, tokens: list[str]) -> Result:
    res = resolve(verb, tokens, state.schema)
    if state.rejecting:
        rev = state.pending_rev or state.next_rev
        return (f"Error: Invalid config [rev_id: {rev}]\n  Config invalid at {_dotted(res.path)}: "
                "the switch rejected the change"), 1
    tree = state.ensure_pending()
    (apply_set if verb == "set" else apply_unset)(tree, res)
    return "", 0


# --------------------------------------------------------------------------- config


def _opts(args: list[str], with_value: set[str]) -> tuple[dict[str, str | None], list[str]]:
    """Split ``--flag``/``--flag value``/``--flag=value``/``-o value`` options from positionals."""
    if "-" not in "".join([a[:1] for a in args]):  # no option at all (every per-port show)
        return {}, list(args)
    opts: dict[str, str | None] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-"):
            key, eq, value = a.partition("=")
            if eq:
                opts[key] = value
            elif key in with_value and i + 1 < len(args) and not args[i + 1].startswith("-"):
                opts[key] = args[i + 1]
                i += 1
            else:
                opts[key] = None
        else:
            positional.append(a)
        i += 1
    return opts, positional


def _revision_tree(state: CumulusStateCore, ref: str) -> Tree | None:
    if ref == "applied":
        return state.applied
    if ref == "pending":
        return state.pending if state.pending is not None else state.applied
    if ref == "startup":
        return parse_commands(_unz(state.startup_z))
    if ref == "empty":
        return {}
    if ref.isdigit() and int(ref) in state.revisions:
        rev = state.revisions[int(ref)]
        if int(ref) == state.pending_rev and state.pending is not None:
            return state.pending
        return rev.tree() if rev.text_z else None
    return None


def _unz(data: bytes) -> str:
    return zlib.decompress(data).decode()


def _config(state: CumulusStateCore, args: list[str], user: str) -> Result:
    if not args:
        return "Error: Incomplete Command: config", 2
    sub, rest = args[0], args[1:]
    if sub == "apply":
        return _apply(state, rest, user)
    if sub == "detach":
        state.detach()
        return "", 0
    if sub == "save":
        state.startup_z = state.revisions[state.applied_rev].text_z
        return "saved [rev_id: applied]", 0
    if sub == "diff":
        opts, pos = _opts(rest, {"-o", "--output"})
        base = _revision_tree(state, pos[0] if pos else "applied")
        target = _revision_tree(state, pos[1] if len(pos) > 1 else "pending")
        if base is None or target is None:
            return "Error: The requested revision does not exist.", 1
        fmt = opts.get("-o") or opts.get("--output")
        return (diff_commands if fmt == "commands" else diff_yaml)(base, target), 0
    if sub == "show":
        opts, _ = _opts(rest, {"-o", "--output", "-r", "--rev"})
        ref = opts.get("-r") or opts.get("--rev") or "applied"
        tree = _revision_tree(state, ref)
        if tree is None:
            return "Error: The requested revision does not exist.", 1
        fmt = opts.get("-o") or opts.get("--output") or "yaml"
        if fmt == "commands" and tree is state.applied:  # the applied revision keeps its text: no re-render
            return _unz(state.revisions[state.applied_rev].text_z).rstrip("\n"), 0
        if fmt == "commands":
            return commands_text(tree).rstrip("\n"), 0
        if fmt == "json":
            return show.dump_json([{"set": nested(tree)}]), 0
        return _yaml(tree, ref), 0
    if sub == "revision":
        return _revision_table(state), 0
    if sub == "history":
        rows = [[str(r.rev_id), f"rev_{r.rev_id}_apply_{r.applies}", r.date, r.user, r.state]
                for r in state.revisions.values() if r.applies]
        return "\n".join(show.sub_table(None, ["Rev ID", "Apply ID", "Apply Date", "User", "State"], rows,
                                        indent=0)), 0
    return f"Error: Invalid Command: config {' '.join(args)}", 2


def _yaml(tree: Tree, rev: str) -> str:
    header = ["- header:", "    model: VX", "    nvue-api-version: nvue_v1", f"    rev-id: {rev}",
              f"    version: {show.BUILD}", "- set:"]
    return "\n".join([*header, *yaml_lines(nested(tree), 4)])


def _revision_table(state: CumulusStateCore) -> str:
    rows = []
    for rev in sorted(state.revisions.values(), key=lambda r: r.rev_id):
        applied = rev.applies > 0
        rows.append([str(rev.rev_id), rev.state, f"rev_{rev.rev_id}_apply_{rev.applies}" if applied else "",
                     rev.date if applied else "", "CLI", rev.user, "Config update" if applied else "",
                     f"Config update by {rev.user}" if applied else ""])
    headers = ["Rev ID", "State", "Apply ID", "Apply Date", "Type", "User", "Reason", "Message"]
    return "\n".join(show.sub_table(None, headers, rows, min_widths=(20, 17, 32, 19, 8, 7, 13, 31), indent=0))


def parse_duration(text: str | None) -> float:
    """``--confirm`` time: ``90s``, ``5m``, ``1h``; a bare number is minutes (NVUE reference example)."""
    if text is None:
        return float(DEFAULT_CONFIRM_S)
    m = re.fullmatch(r"(\d+)([smh]?)", text.strip())
    if not m:
        raise NvError(f"Error: Invalid confirm time '{text}': use <n>s, <n>m or <n>h")
    number, unit = int(m.group(1)), m.group(2) or "m"
    return float(number * {"s": 1, "m": 60, "h": 3600}[unit])


def _apply(state: CumulusStateCore, args: list[str], user: str) -> Result:
    opts, pos = _opts(args, {"--confirm"})
    if "--confirm-status" in opts:
        return _confirm_status(state), 0
    if "--confirm-yes" in opts:
        if state.confirm is None:
            return "Error: There is no pending confirm.", 1
        return f"confirmed [rev_id: {state.confirm_yes()}]", 0
    if "--confirm-no" in opts:
        if state.confirm is None:
            return "Error: There is no pending confirm.", 1
        rolled = state.confirm.rev_id
        back = state.revert_confirm()
        return f"rolled back [rev_id: {rolled}] to [rev_id: {back}]", 0
    if state.confirm is not None:
        return (f"Error: rev_id {state.confirm.rev_id} is waiting for confirmation; run "
                "'nv config apply --confirm-yes' or 'nv config apply --confirm-no' first."), 1
    if "--assume-no" in opts:
        return "Aborted: apply declined.", 1
    confirm_s = parse_duration(opts["--confirm"]) if "--confirm" in opts else None
    if pos:
        ref = pos[0]
        tree = _revision_tree(state, ref)
        if tree is None:
            return f"Error: The requested revision '{ref}' does not exist.", 1
        rev_id = int(ref) if ref.isdigit() else state.next_rev
        if not ref.isdigit():
            state.next_rev += 1
        from_pending = ref.isdigit() and int(ref) == state.pending_rev
    else:
        state.ensure_pending()
        assert state.pending is not None and state.pending_rev is not None
        tree, rev_id, from_pending = state.pending, state.pending_rev, True
    problem = _validate(state, tree)
    if problem:
        return f"Invalid config [rev_id: {rev_id}]\n  {problem}", 1
    if from_pending:
        state.pending = state.pending_rev = None
    state.commit(dict(tree), rev_id, user, confirm_s)
    return f"applied [rev_id: {rev_id}]", 0


def _validate(state: CumulusStateCore, tree: Tree) -> str | None:
    if state.rejecting:
        changed = next(iter(sorted(set(tree.items()) ^ set(state.applied.items()))), None)
        where = ".".join(changed[0]) if changed else "qos"
        return f"Config invalid at {where}: the switch rejected the change"
    cages = {cage for cage, _n in state.cage_of.values()}
    for key in tree:
        if key[0] != "interface" or not key[1].startswith("swp"):
            continue
        name = key[1]
        if name not in state.physical.ports and name not in cages:
            return f"Config invalid at interface.{name}: '{name}' is not a valid interface on this platform"
        if name in state.cage_of:  # a split port exists only while its cage is broken out that way
            cage, split = state.cage_of[name]
            if tree.get(("interface", cage, "link", "breakout")) != f"{split}x":
                return (f"Config invalid at interface.{name}: '{name}' is not a valid interface on this platform "
                        f"({cage} is not broken out {split}x)")
    return None


def _confirm_status(state: CumulusStateCore) -> str:
    if state.confirm is None:
        return "No configuration is waiting for confirmation."
    left = max(0, int(state.confirm.deadline - state.clock() + 0.999))
    return "\n".join(show.kv_table([("rev-id", str(state.confirm.rev_id)), ("state", "confirm"),
                                    ("rollback-to", str(state.confirm.previous_rev)),
                                    ("time-left", f"{left} s")]))


# --------------------------------------------------------------------------- show


_SHOW_OPTIONS = {"-o", "--output", "--view"}


def _show(state: CumulusStateCore, args: list[str]) -> Result:
    opts, pos = _opts(args, _SHOW_OPTIONS)
    fmt = opts.get("-o") or opts.get("--output") or "auto"
    ctx = show.ShowContext(hostname=state.applied.get(("system", "hostname"), state.hostname), model=state.model,
                           tree=views_tree(state.applied, state.new_words), view=state.view(), physical=state.physical,
                           new_words=state.new_words,
                           uptime_s=state.clock() - state.started, bgp_vty=state.extra.get("bgp_vty"),
                           release=reported_fact(state, "version", state.release),
                           platform=reported_fact(state, "hwsku", state.platform_id))
    text = _show_text(ctx, pos, fmt, opts.get("--view"))
    if text is None:
        return f"Error: {show.MISSING}" if _known_show(pos) else f"Error: Invalid Command: show {' '.join(args)}", 1
    return text, 0


def _known_show(pos: list[str]) -> bool:
    return bool(pos) and pos[0] in ("qos", "interface", "vrf", "system", "router")


def _show_text(ctx: show.ShowContext, pos: list[str], fmt: str, view: str | None) -> str | None:
    if len(pos) >= 2 and pos[0] == "interface":
        return _interface_text(ctx, pos[1], pos[2:], fmt)
    if pos == ["system"]:
        return show.system_json(ctx) if fmt == "json" else show.system_text(ctx)
    if pos == ["qos", "roce"]:
        return show.qos_roce(ctx)
    if len(pos) == 3 and pos[:2] == ["qos", "pfc"]:
        return show.qos_pfc(ctx, pos[2])
    if len(pos) == 3 and pos[:2] == ["qos", "congestion-control"]:
        return show.qos_congestion(ctx, pos[2])
    if len(pos) == 3 and pos[:2] == ["qos", "egress-queue-mapping"]:
        return show.qos_egress_queue_mapping(ctx, pos[2])
    if pos == ["interface"]:
        if view == "ber":
            return show.ber_view(ctx)
        return show.interfaces_json(ctx) if fmt == "json" else show.interfaces_text(ctx)
    if len(pos) == 5 and pos[0] == "vrf" and pos[2:] == ["router", "bgp", "neighbor"]:
        neighbors = show.bgp_neighbors(ctx, pos[1])
        return show.dump_json(neighbors) if fmt == "json" else show.bgp_text(neighbors)
    return None


def _interface_text(ctx: show.ShowContext, name: str, rest: list[str], fmt: str) -> str | None:
    if name not in ctx.view.ports:
        return None
    if not rest and fmt == "json":
        return show.dump_json(show.interface_json(ctx, name))
    if rest == ["link"]:
        link = show.interface_json(ctx, name)["link"]
        return show.dump_json(link) if fmt == "json" else show.interface_link(ctx, name)
    if name not in ctx.physical.ports:
        return None
    per_port = _PER_PORT.get(tuple(rest))
    return per_port(ctx, name) if per_port is not None else None


_PER_PORT: dict[tuple[str, ...], Callable[[show.ShowContext, str], str]] = {
    ("counters", "qos"): show.counters_qos, ("counters", "errors"): show.counters_errors,
    ("qos", "pfc-watchdog"): show.pfc_watchdog, ("qos", "roce", "counters"): show.roce_counters,
    ("qos", "roce", "status"): show.roce_status,
}


# --------------------------------------------------------------------------- action


def _action(state: CumulusStateCore, args: list[str]) -> Result:
    if args[:2] == ["clear", "interface"] and len(args) >= 3:
        if args[2] not in state.physical.ports and args[2] != "counters":
            return f"Error: {show.MISSING}", 1
        return "Action succeeded", 0
    return f"Error: Invalid Command: action {' '.join(args)}", 2
