"""Replaying setup-script lines on a host-state document, diffs, and restore commands (all pure).

:func:`apply_command` knows the effect of each command shape the linux_mlx5 templates and
:func:`driver_model.netplan_commands` emit, with mlx5/mlnx-tools semantics (``--trust dscp`` on a
pcp port installs the default DSCP map; the first DSCP entry switches trust; ``ip rule add`` of a
rule that exists changes nothing). Anything else raises :class:`PlanError` rather than guessing.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
import shlex
from typing import Any

from roceops.platforms.linux_mlx5.driver_model import (
    DEFAULT_RULES,
    PRIOS,
    PlanError,
    _route_key,
    netplan_spec,
)

_ECN = re.compile(r"^/sys/class/net/(?P<dev>[^/]+)/ecn/(?P<side>roce_np|roce_rp)/(?:enable/(?P<prio>[0-7])|"
                  r"(?P<name>[a-z0-9_]+))$")
ROCE_MODE_ARG = {"1": "IB/RoCE v1", "2": "RoCE v2"}


def _nic(state: dict[str, Any], netdev: str) -> dict[str, Any]:
    nic: dict[str, Any] | None = state["nics"].get(netdev)
    if nic is None:
        raise PlanError(f"the script configures {netdev}, which is not an RDMA NIC on this host "
                        f"(found: {', '.join(sorted(state['nics'])) or 'none'})")
    return nic


def _by_rdma(state: dict[str, Any], rdma_dev: str) -> dict[str, Any]:
    nics: dict[str, dict[str, Any]] = state["nics"]
    for nic in nics.values():
        if nic["rdma_dev"] == rdma_dev:
            return nic
    raise PlanError(f"the script configures RDMA device {rdma_dev}, which this host does not have")


_MISSING = object()


def _set(target: dict[str, Any] | list[Any], key: Any, value: Any) -> bool:
    old = target[key] if isinstance(target, list) else target.get(key, _MISSING)
    if old == value:
        return False
    target[key] = value
    return True


def _csv_ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def _mlnx_qos(state: dict[str, Any], words: list[str]) -> bool:
    opts: dict[str, str] = {}
    actions: list[str] = []
    netdev = None
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-a",):
            i += 1
            continue
        if i + 1 >= len(words):
            raise PlanError(f"mlnx_qos option {w} without a value")
        if w in ("-i", "--interface"):
            netdev = words[i + 1]
        elif w == "--dscp2prio":
            actions.append(words[i + 1])
        elif w in ("--trust", "--pfc", "-f", "--prio_tc", "-p", "--tsa", "-s", "--tcbw", "-t"):
            opts[{"-f": "--pfc", "-p": "--prio_tc", "-s": "--tsa", "-t": "--tcbw"}.get(w, w)] = words[i + 1]
        else:
            raise PlanError(f"mlnx_qos option {w} is not modelled")
        i += 2
    if netdev is None:
        raise PlanError("mlnx_qos without -i")
    nic = _nic(state, netdev)
    changed = False
    if "--pfc" in opts:
        bits = _csv_ints(opts["--pfc"])
        changed |= _set(nic, "pfc", [p for p in PRIOS if bits[p]])
    dmap: dict[str, int] = dict(nic["dscp2prio"]) if nic["trust"] == "dscp" else {}
    for a in actions:
        if a == "flush":
            dmap = {}
            continue
        verb, d, p = a.split(",")
        if verb == "set":
            dmap[str(int(d))] = int(p)
        elif dmap.get(str(int(d))) == int(p):
            del dmap[str(int(d))]
    if actions:
        changed |= _set(nic, "trust", "dscp" if dmap else "pcp")
        changed |= _set(nic, "dscp2prio", dict(sorted(dmap.items(), key=lambda kv: int(kv[0]))))
    trust = opts.get("--trust")
    if trust is not None and trust != nic["trust"]:
        nic["trust"] = trust
        nic["dscp2prio"] = {str(d): d >> 3 for d in range(64)} if trust == "dscp" else {}
        changed = True
    tsa = list(nic["tsa"])
    if "--tsa" in opts:
        tsa = opts["--tsa"].split(",")
        changed |= _set(nic, "tsa", tsa)
    if "--tcbw" in opts:
        bw = _csv_ints(opts["--tcbw"])
        changed |= _set(nic, "tcbw", [b if t == "ets" else 0 for b, t in zip(bw, tsa, strict=True)])
    if "--prio_tc" in opts:
        changed |= _set(nic, "prio_tc", _csv_ints(opts["--prio_tc"]))
    return changed


def _ip(state: dict[str, Any], words: list[str]) -> bool:
    obj, verb, args = words[0], words[1], words[2:]
    kv = dict(zip(args[1::2], args[2::2], strict=False)) if obj != "link" else {}
    if obj == "link" and verb == "set":
        rest = args[1:] if args[:1] == ["dev"] else args
        nic = _nic(state, rest[0])
        opts = dict(zip(rest[1::2], rest[2::2], strict=False))
        if set(opts) != {"mtu"}:
            raise PlanError(f"ip link set {' '.join(rest[1:])} is not modelled")
        return _set(nic, "mtu", int(opts["mtu"]))
    if obj == "addr":
        nic = _nic(state, kv.get("dev", ""))
        addr = str(ipaddress.IPv4Interface(args[0]))
        addrs = list(nic["addresses"])
        if verb in ("replace", "add"):
            addrs = [a for a in addrs if a.split("/")[0] != addr.split("/")[0]] + [addr]
        elif verb == "del":
            addrs = [a for a in addrs if a != addr]
        else:
            raise PlanError(f"ip addr {verb} is not modelled")
        return _set(nic, "addresses", sorted(addrs))
    if obj == "route":
        _nic(state, kv.get("dev", ""))
        dst = "0.0.0.0/0" if args[0] == "default" else str(ipaddress.IPv4Network(args[0]))
        route = {"dst": dst, "gateway": kv.get("via"), "dev": kv["dev"], "table": kv.get("table", "main")}
        same = [r for r in state["routes"] if (r["table"], r["dst"], r.get("metric", 0)) == (route["table"], dst, 0)]
        if verb == "replace":
            if same == [route]:
                return False
            state["routes"] = sorted([r for r in state["routes"] if r not in same] + [route], key=_route_key)
            return True
        if verb == "del":
            gone = [r for r in same if r["dev"] == route["dev"] and (route["gateway"] in (None, r["gateway"]))]
            state["routes"] = [r for r in state["routes"] if r not in gone[:1]]
            return bool(gone)
        raise PlanError(f"ip route {verb} is not modelled")
    if obj == "rule":
        kv = dict(zip(args[0::2], args[1::2], strict=False))
        src = kv.get("from", "all")
        if src != "all":
            src = str(ipaddress.IPv4Network(src))
        table = kv.get("table", "main")
        rules = state["rules"]
        if verb == "add":
            if any(r["src"] == src and r["table"] == table for r in rules):
                return False
            prios = sorted({r["priority"] for r in rules} | {0, 32766, 32767})
            prio = int(kv["priority"]) if "priority" in kv else prios[1] - 1
            state["rules"] = sorted([*rules, {"priority": prio, "src": src, "table": table}],
                                    key=lambda r: (r["priority"], r["src"], r["table"]))
            return True
        if verb == "del":
            gone = [r for r in rules if r["src"] == src and r["table"] == table
                    and ("priority" not in kv or r["priority"] == int(kv["priority"]))]
            state["rules"] = [r for r in rules if r not in gone[:1]]
            return bool(gone)
        raise PlanError(f"ip rule {verb} is not modelled")
    raise PlanError(f"ip {obj} {verb} is not modelled")


def apply_command(state: dict[str, Any], line: str) -> bool:
    """Apply one script line to ``state`` (in place); True if it changed a value. Raises PlanError."""
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise PlanError(f"cannot split {line!r}: {exc}") from None
    if not words:
        return False
    tool = words[0]
    try:
        if tool == "mlnx_qos":
            return _mlnx_qos(state, words[1:])
        if tool == "ip" and len(words) >= 4:
            return _ip(state, words[1:])
        if tool == "echo" and len(words) == 4 and words[2] == ">" and (m := _ECN.match(words[3])):
            side = _nic(state, m["dev"])["ecn"][m["side"]]
            if m["prio"] is not None:
                return _set(side["enable"], int(m["prio"]), int(words[1]))
            return _set(side, m["name"], int(words[1]))
        if tool == "ethtool" and words[1:2] == ["-A"]:
            nic = _nic(state, words[2])
            opts = dict(zip(words[3::2], words[4::2], strict=False))
            pause = dict(nic["pause"])
            pause.update({k: v == "on" for k, v in opts.items() if k in ("rx", "tx")})
            return _set(nic, "pause", pause)
        if tool in ("cma_roce_mode", "cma_roce_tos"):
            opts = dict(zip(words[1::2], words[2::2], strict=False))
            nic = _by_rdma(state, opts.get("-d", "mlx5_0"))
            if tool == "cma_roce_mode":
                return "-m" in opts and _set(nic, "roce_mode", ROCE_MODE_ARG[opts["-m"]])
            return "-t" in opts and _set(nic, "roce_tos", int(opts["-t"]))
        if tool == "sysctl" and words[1:2] == ["-w"]:
            changed = False
            for assignment in words[2:]:
                key, _, value = assignment.partition("=")
                changed |= _set(state["sysctls"], key, " ".join(value.split()))
            return changed
    except (IndexError, KeyError, ValueError) as exc:
        raise PlanError(f"cannot model {line[:120]!r}: {type(exc).__name__}: {exc}") from None
    raise PlanError(f"the driver cannot model {line[:120]!r}; extend driver_plan.apply_command")


def simulate(state: dict[str, Any], commands: list[str]) -> tuple[dict[str, Any], list[str]]:
    """(target state, the commands that change something), replaying ``commands`` in order."""
    target = copy.deepcopy(state)
    return target, [c for c in commands if apply_command(target, c)]


def cleanup_commands(state: dict[str, Any], netplan_text: str) -> list[str]:
    """Remove addresses, routes and rules on the netplan NICs that the netplan file does not declare."""
    spec = netplan_spec(netplan_text)
    cmds: list[str] = []
    tables = {str(r["table"]) for e in spec.values() for r in e["routes"] if r["table"] is not None}
    sources = {str(ipaddress.IPv4Network(p["from"])) for e in spec.values() for p in e["policy"]}
    wanted_rules = {(str(ipaddress.IPv4Network(p["from"])), str(p["table"])) for e in spec.values()
                    for p in e["policy"]}
    for netdev, e in spec.items():
        nic = state["nics"].get(netdev)
        if nic is None:
            continue
        keep = {str(ipaddress.IPv4Interface(a)) for a in e["addresses"]}
        wanted = {(r["to"], r["via"], str(r["table"] or "main")) for r in e["routes"]}
        for r in state["routes"]:
            if r["dev"] == netdev and (r["dst"], r["gateway"], r["table"]) not in wanted:
                cmds.append(route_del(r))
        cmds += [f"ip addr del {a} dev {netdev}" for a in nic["addresses"] if a not in keep]
    for r in state["rules"]:
        if (r["table"] in tables or r["src"] in sources) and (r["src"], r["table"]) not in wanted_rules:
            cmds.append(rule_del(r))
    return cmds


def route_del(r: dict[str, Any]) -> str:
    dst = "default" if r["dst"] == "0.0.0.0/0" else r["dst"]
    via = f" via {r['gateway']}" if r.get("gateway") else ""
    metric = f" metric {r['metric']}" if r.get("metric") else ""
    return f"ip route del {dst}{via} dev {r['dev']} table {r['table']}{metric}"


def route_add(r: dict[str, Any]) -> str:
    dst = "default" if r["dst"] == "0.0.0.0/0" else r["dst"]
    via = f" via {r['gateway']}" if r.get("gateway") else ""
    metric = f" metric {r['metric']}" if r.get("metric") else ""
    table = f" table {r['table']}" if r["table"] != "main" else ""
    return f"ip route replace {dst}{via} dev {r['dev']}{table}{metric}"


def rule_del(r: dict[str, Any]) -> str:
    return f"ip rule del priority {r['priority']} from {r['src']} table {r['table']}"


def rule_add(r: dict[str, Any]) -> str:
    return f"ip rule add from {r['src']} table {r['table']} priority {r['priority']}"


# ------------------------------------------------------------------------------------ restore


def _qos_restore(netdev: str, cur: dict[str, Any], want: dict[str, Any]) -> list[str]:
    cmds: list[str] = []
    base = f"mlnx_qos -i {netdev}"
    if want["trust"] == "pcp" and cur["trust"] == "dscp":
        cmds.append(f"{base} --trust pcp")
    elif want["trust"] == "dscp":
        cur_map = cur["dscp2prio"] if cur["trust"] == "dscp" else {str(d): d >> 3 for d in range(64)}
        if cur["trust"] != "dscp":
            cmds.append(f"{base} --trust dscp")
        sets = [f"--dscp2prio set,{d},{p}" for d, p in sorted(want["dscp2prio"].items(), key=lambda kv: int(kv[0]))
                if cur_map.get(d) != p]
        dels = [f"--dscp2prio del,{d},{p}" for d, p in sorted(cur_map.items(), key=lambda kv: int(kv[0]))
                if d not in want["dscp2prio"]]
        if sets or dels:
            cmds.append(" ".join([base, *sets, *dels]))
    if want["pfc"] is not None and cur["pfc"] != want["pfc"]:
        cmds.append(f"{base} --pfc {','.join('1' if p in want['pfc'] else '0' for p in PRIOS)}")
    if None not in want["prio_tc"] + want["tsa"] + want["tcbw"] and (
            cur["prio_tc"], cur["tsa"], cur["tcbw"]) != (want["prio_tc"], want["tsa"], want["tcbw"]):
        cmds.append(f"{base} --prio_tc {','.join(map(str, want['prio_tc']))} --tsa {','.join(want['tsa'])} "
                    f"--tcbw {','.join(map(str, want['tcbw']))}")
    return cmds


def restore_commands(current: dict[str, Any], backup: dict[str, Any]) -> list[str]:
    """Commands that set every value captured in ``backup`` where ``current`` differs (NICs of the backup)."""
    cmds: list[str] = []
    for netdev, want in sorted(backup["nics"].items()):
        cur = current["nics"].get(netdev)
        if cur is None:
            raise PlanError(f"{netdev} is in the backup but no longer on the host")
        if want["mtu"] is not None and cur["mtu"] != want["mtu"]:
            cmds.append(f"ip link set dev {netdev} mtu {want['mtu']}")
        if cur["pause"] != want["pause"]:
            cmds.append(f"ethtool -A {netdev} rx {'on' if want['pause']['rx'] else 'off'} "
                        f"tx {'on' if want['pause']['tx'] else 'off'}")
        cmds += _qos_restore(netdev, cur, want)
        ecn_dir = f"/sys/class/net/{netdev}/ecn"
        for side in ("roce_np", "roce_rp"):
            w, c = want["ecn"][side], cur["ecn"][side]
            cmds += [f"echo {v} > {ecn_dir}/{side}/enable/{p}" for p, v in enumerate(w["enable"])
                     if v is not None and c["enable"][p] != v]
            cmds += [f"echo {v} > {ecn_dir}/{side}/{name}" for name, v in sorted(w.items())
                     if name != "enable" and c.get(name) != v]
        if want["roce_mode"] is not None and cur["roce_mode"] != want["roce_mode"]:
            arg = {v: k for k, v in ROCE_MODE_ARG.items()}[want["roce_mode"]]
            cmds.append(f"cma_roce_mode -d {want['rdma_dev']} -p 1 -m {arg}")
        if want["roce_tos"] is not None and cur["roce_tos"] != want["roce_tos"]:
            cmds.append(f"cma_roce_tos -d {want['rdma_dev']} -p 1 -t {want['roce_tos']}")
        cmds += [f"ip addr add {a} dev {netdev}" for a in want["addresses"] if a not in cur["addresses"]]
    routes_want = [r for r in backup["routes"] if r["dev"] in backup["nics"]]
    cmds += [route_del(r) for r in current["routes"] if r["dev"] in backup["nics"] and r not in routes_want]
    for netdev, want in sorted(backup["nics"].items()):
        cmds += [f"ip addr del {a} dev {netdev}" for a in current["nics"][netdev]["addresses"]
                 if a not in want["addresses"]]
    cmds += [route_add(r) for r in routes_want if r not in current["routes"]]
    cmds += [rule_del(r) for r in current["rules"] if r not in backup["rules"]]
    cmds += [rule_add(r) for r in backup["rules"] if r not in current["rules"]
             and (r["priority"], r["src"], r["table"]) not in DEFAULT_RULES]
    cmds += [f"sysctl -w {shlex.quote(f'{k}={v}')}" for k, v in sorted(backup["sysctls"].items())
             if current["sysctls"].get(k) != v]
    return cmds


# ------------------------------------------------------------------------------------ diff


def dscp_ranges(mapping: dict[str, int]) -> str:
    """``{"0": 0, "1": 0, "26": 3}`` -> ``"0-1:0 26:3"`` (compact, for diffs); ``"(none)"`` when empty."""
    items = sorted((int(d), p) for d, p in mapping.items())
    runs: list[tuple[int, int, int]] = []
    for d, p in items:
        if runs and runs[-1][1] == d - 1 and runs[-1][2] == p:
            runs[-1] = (runs[-1][0], d, p)
        else:
            runs.append((d, d, p))
    return " ".join(f"{a}:{p}" if a == b else f"{a}-{b}:{p}" for a, b, p in runs) or "(none)"


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict) and prefix.endswith(".dscp2prio"):
        return {prefix: dscp_ranges(value)}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k == "format":
                continue
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and prefix.endswith(("routes", "rules")):
        return {f"{prefix}[{json.dumps(v, sort_keys=True)}]": "present" for v in value}
    return {prefix: value}


def diff_table(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """``path: before -> after`` lines for every value that differs, and add/replace/remove counts."""
    a, b = flatten(before), flatten(after)
    rows: list[tuple[str, str, str]] = []
    summary = {"add": 0, "replace": 0, "remove": 0}
    for path in sorted(set(a) | set(b)):
        if a.get(path, _MISSING) == b.get(path, _MISSING):
            continue
        kind = "add" if path not in a else "remove" if path not in b else "replace"
        summary[kind] += 1
        rows.append((path, _show(a.get(path, _MISSING)), _show(b.get(path, _MISSING))))
    if not rows:
        return "", summary
    width = min(max(len(p) for p, _, _ in rows), 72)
    return "\n".join(f"{p:<{width}}  {x} -> {y}" for p, x, y in rows) + "\n", summary


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    return json.dumps(value) if not isinstance(value, str) else value
