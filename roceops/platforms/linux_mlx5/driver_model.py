"""Pure side of the linux_mlx5 driver: which commands read a host, the host-state JSON (the backup),
what the rendered setup script would change, and how to go back.

A host has no configuration file to diff, so the "configuration" is a JSON document of every
runtime value the setup script and netplan set (per NIC: MTU, global pause, trust, DSCP map, PFC,
ETS, every DCQCN sysfs value, RDMA-CM mode/ToS, addresses; the NICs' routes and policy rules;
the multi-rail sysctls). :func:`host_state` builds it from command outputs, :func:`simulate`
replays script lines on it (keeping the lines that change something) and
:func:`restore_commands` writes the commands that bring one state back to another.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from roceops.platforms.linux_mlx5 import driver_boot
from roceops.platforms.linux_mlx5.parsers import (
    parse_cma_roce_mode,
    parse_cma_roce_tos,
    parse_ethtool_pause,
    parse_ip_json,
    parse_mlnx_qos,
    parse_rdma_links,
    parse_sysctl,
    parse_sysfs_grep,
)

FORMAT = "roceops.linux_mlx5.host_state/1"
RDMA_PORT = 1
PRIOS = range(8)
SYSCTL_CAPTURE = r"^net\.ipv4\.conf\.[^.]+\.(arp_announce|arp_ignore|rp_filter)$"
"""Sysctls captured in the backup (``read_config`` has no intent; these are the keys roceops plans)."""

CMD_RDMA = "rdma -j link show"
CMD_ADDR = "ip -j addr show"
CMD_ROUTES = "ip -j route show table all"
CMD_RULES = "ip -j rule show"
CMD_SYSCTL_CAPTURE = f"sysctl -a -r {shlex.quote(SYSCTL_CAPTURE)}"
CMD_UNAME = "uname -r"
ROOT_READS = ("cma_roce_mode", "cma_roce_tos", "base64 ", "sha256sum ", "mlxconfig ", "lldpcli ", "lspci -PP -vvv")
"""Read-only commands that still need root (mlnx-tools refuses: "You must be root to run this"; netplan files
are 0600; mlxconfig opens the PCI device; lldpcli talks to lldpd.socket, root or group _lldpd;
lspci prints bridge capabilities (ACS) to root only)."""

_ECN = re.compile(r"^/sys/class/net/(?P<dev>[^/]+)/ecn/(?P<side>roce_np|roce_rp)/(?:enable/(?P<prio>[0-7])|"
                  r"(?P<name>[a-z0-9_]+))$")
_HW = re.compile(r"^/sys/class/infiniband/(?P<dev>[^/]+)/ports/\d+/hw_counters/(?P<name>\w+)$")
_NET = re.compile(r"^/sys/class/net/(?P<dev>[^/]+)/(?P<name>speed|operstate|carrier_changes|mtu)$")
DEFAULT_RULES = {(0, "all", "local"), (32766, "all", "main"), (32767, "all", "default")}


class PlanError(ValueError):
    """The rendered script or a captured state cannot be modelled (unknown command shape, unknown NIC)."""


def cmd_mlnx_qos(netdev: str) -> str:
    return f"mlnx_qos -i {netdev} -a"


def cmd_pause(netdev: str) -> str:
    return f"ethtool -a {netdev}"


def cmd_roce_mode(rdma_dev: str) -> str:
    return f"cma_roce_mode -d {rdma_dev} -p {RDMA_PORT}"


def cmd_roce_tos(rdma_dev: str) -> str:
    return f"cma_roce_tos -d {rdma_dev} -p {RDMA_PORT}"


def cmd_sysfs(paths: Iterable[str]) -> str:
    """One ``grep`` over many sysfs folders/files: ``path:value`` lines, unreadable files silently skipped."""
    return "grep -r -H -s . " + " ".join(paths)


def cmd_sysctl(keys: Iterable[str]) -> str:
    return "sysctl " + " ".join(shlex.quote(k) for k in sorted(keys))


def discovery_commands() -> list[str]:
    return [CMD_RDMA, CMD_ADDR, CMD_ROUTES, CMD_RULES, CMD_SYSCTL_CAPTURE]


def nic_read_commands(links: dict[str, dict[str, Any]]) -> list[str]:
    """Second read batch of ``read_config``: per NIC QoS, pause, RDMA-CM, and one sysfs grep for all ECN dirs."""
    cmds: list[str] = []
    for netdev, link in sorted(links.items()):
        cmds += [cmd_mlnx_qos(netdev), cmd_pause(netdev), cmd_roce_mode(link["rdma_dev"]),
                 cmd_roce_tos(link["rdma_dev"])]
    if links:
        cmds.append(cmd_sysfs(f"/sys/class/net/{n}/ecn/" for n in sorted(links)))
    return cmds + driver_boot.capture_commands(sorted(link["rdma_dev"] for link in links.values()))


# ------------------------------------------------------------------------------------ the state document


def ecn_entries(values: dict[str, str]) -> dict[str, list[tuple[str, str | None, str | None, str]]]:
    """The ECN files of a sysfs dump, per netdev (one pass over the dump, which holds every NIC's files):
    netdev -> (side, priority or None, file name or None, value) in dump order."""
    out: dict[str, list[tuple[str, str | None, str | None, str]]] = {}
    for path, value in values.items():
        if path.startswith("/sys/class/net/") and (parts := _ecn_path(path)) is not None:
            dev, side, prio, name = parts
            out.setdefault(dev, []).append((side, prio, name, value))
    return out


@lru_cache(maxsize=16384)  # the same files on every host (one NIC has ~50), so remembered per path
def _ecn_path(path: str) -> tuple[str, str, str | None, str | None] | None:
    """(netdev, side, priority, file name) of an ECN file's path, None for any other path."""
    m = _ECN.match(path)
    return m.groups() if m is not None else None  # type: ignore[return-value]


def ecn_values(entries: list[tuple[str, str | None, str | None, str]]) -> dict[str, Any]:
    """One NIC's ``roce_np``/``roce_rp`` values (integers; per-priority ``enable`` lists) from its
    :func:`ecn_entries`."""
    out: dict[str, Any] = {"roce_np": {"enable": [None] * 8}, "roce_rp": {"enable": [None] * 8}}
    for side, prio, name, value in entries:
        if not value.lstrip("-").isdigit():
            continue
        if prio is not None:
            out[side]["enable"][int(prio)] = int(value)
        else:
            out[side][name] = int(value)
    return out


def qos_fields(qos: dict[str, Any]) -> dict[str, Any]:
    """mlnx_qos facts in the state-document shape (lists indexed by priority/TC)."""
    tcs = qos["tcs"]
    return {
        "trust": qos["trust"],
        "dscp2prio": {str(d): p for d, p in sorted((qos["dscp2prio"] or {}).items())},
        "pfc": qos["pfc"],
        "prio_tc": [qos["prio_tc"].get(p) for p in PRIOS],
        "tsa": [tcs[tc]["tsa"] if tc in tcs else None for tc in PRIOS],
        "tcbw": [(tcs[tc]["bw"] or 0) if tc in tcs else None for tc in PRIOS],
    }


def _route(e: dict[str, Any]) -> dict[str, Any]:
    r = {"dst": "0.0.0.0/0" if e["dst"] == "default" else e["dst"], "gateway": e.get("gateway"), "dev": e["dev"],
         "table": str(e.get("table", "main"))}
    if e.get("metric"):
        r["metric"] = int(e["metric"])
    return r


def _route_key(r: dict[str, Any]) -> tuple[Any, ...]:
    return r["dev"], r["table"], r["dst"], r["gateway"] or "", r.get("metric", 0)


def _rule(e: dict[str, Any]) -> dict[str, Any]:
    src = e.get("src", "all")
    if src != "all":
        src = f"{src}/{e.get('srclen', 32)}"
    return {"priority": int(e.get("priority", 0)), "src": src, "table": str(e.get("table", "main"))}


def host_state(outputs: dict[str, str]) -> dict[str, Any]:
    """The backup document from the outputs of :func:`discovery_commands` + :func:`nic_read_commands`."""
    links = parse_rdma_links(outputs[CMD_RDMA])
    ifaces = {e["ifname"]: e for e in parse_ip_json(outputs[CMD_ADDR])}
    sysfs = parse_sysfs_grep(outputs.get(cmd_sysfs(f"/sys/class/net/{n}/ecn/" for n in sorted(links)), ""))
    ecn = ecn_entries(sysfs)
    nics: dict[str, Any] = {}
    for netdev, link in sorted(links.items()):
        iface = ifaces.get(netdev)
        if iface is None:
            raise PlanError(f"RDMA device {link['rdma_dev']} names netdev {netdev}, which `ip addr` does not show")
        nic: dict[str, Any] = {"rdma_dev": link["rdma_dev"], "mtu": iface.get("mtu")}
        nic["addresses"] = sorted(f"{a['local']}/{a['prefixlen']}" for a in iface.get("addr_info", [])
                                  if a.get("family") == "inet")
        nic.update(qos_fields(parse_mlnx_qos(outputs[cmd_mlnx_qos(netdev)])))
        pause = parse_ethtool_pause(outputs[cmd_pause(netdev)])
        nic["pause"] = {"rx": pause["rx"], "tx": pause["tx"]}
        nic["ecn"] = ecn_values(ecn.get(netdev, []))
        nic["roce_mode"] = parse_cma_roce_mode(outputs.get(cmd_roce_mode(link["rdma_dev"]), ""))
        nic["roce_tos"] = parse_cma_roce_tos(outputs.get(cmd_roce_tos(link["rdma_dev"]), ""))
        nics[netdev] = nic
    routes = [_route(e) for e in parse_ip_json(outputs[CMD_ROUTES])
              if e.get("dev") in nics and "type" not in e and e.get("protocol") != "kernel"
              and e.get("table") != "local"]
    rules = [r for r in (_rule(e) for e in parse_ip_json(outputs[CMD_RULES]))
             if (r["priority"], r["src"], r["table"]) not in DEFAULT_RULES]
    return {
        "format": FORMAT,
        "nics": nics,
        "routes": sorted(routes, key=_route_key),
        "rules": sorted(rules, key=lambda r: (r["priority"], r["src"], r["table"])),
        "sysctls": dict(sorted(parse_sysctl(outputs[CMD_SYSCTL_CAPTURE]).items())),
        **driver_boot.capture(outputs, sorted(nic["rdma_dev"] for nic in nics.values())),
    }


def dump(state: dict[str, Any]) -> str:
    return json.dumps(state, sort_keys=True, indent=1)


def load(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PlanError(f"not a {FORMAT} document")
    return data


# ------------------------------------------------------------------------------------ rendered files


def _yaml_load(text: str) -> Any:
    """Safe YAML load: libyaml through PyYAML when present (fast; lab preload parses one file per host),
    else ruamel.yaml (a declared dependency)."""
    try:
        import yaml

        return yaml.load(text, Loader=yaml.CSafeLoader)
    except (ImportError, AttributeError):
        from ruamel.yaml import YAML

        return YAML(typ="safe").load(text)


def netplan_spec(text: str) -> dict[str, dict[str, Any]]:
    """``netplan.yaml`` ethernets -> {netdev: {mtu, addresses, routes[{to, via, table}], policy[{from, table}]}}."""
    data = _yaml_load(text) or {}
    eths = (data.get("network") or {}).get("ethernets") or {}
    out: dict[str, dict[str, Any]] = {}
    for netdev, e in eths.items():
        out[str(netdev)] = {
            "mtu": e.get("mtu"),
            "addresses": [str(a) for a in e.get("addresses") or []],
            "routes": [{"to": "0.0.0.0/0" if str(r["to"]) == "default" else str(r["to"]), "via": str(r["via"]),
                        "table": r.get("table")} for r in e.get("routes") or []],
            "policy": [{"from": str(p["from"]), "table": p["table"]} for p in e.get("routing-policy") or []],
        }
    return out


def netplan_commands(text: str) -> list[str]:
    """The runtime equivalent of ``netplan apply`` for roceops' rail file, as ``ip`` commands."""
    return spec_commands(netplan_spec(text))


def spec_commands(spec: dict[str, dict[str, Any]]) -> list[str]:
    """:func:`netplan_commands` of a file's :func:`netplan_spec` (for callers that have parsed it already)."""
    cmds: list[str] = []
    for netdev, e in spec.items():
        if e["mtu"]:
            cmds.append(f"ip link set dev {netdev} mtu {e['mtu']}")
        cmds += [f"ip addr replace {a} dev {netdev}" for a in e["addresses"]]
        for r in e["routes"]:
            to = "default" if r["to"] == "0.0.0.0/0" else r["to"]
            cmds.append(f"ip route replace {to} via {r['via']} dev {netdev}"
                        + (f" table {r['table']}" if r["table"] is not None else ""))
        cmds += [f"ip rule add from {p['from']} table {p['table']}" for p in e["policy"]]
    return cmds


def sysctl_conf_commands(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith(("#", ";")):
            out.append(f"sysctl -w {shlex.quote(f'{key.strip()}={value.strip()}')}")
    return out
