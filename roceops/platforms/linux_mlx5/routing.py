"""A host's routing as ``roceops verify routing`` builds it in a network namespace: exactly what the rendered
``netplan.yaml`` (rail NICs, per-NIC tables, source rules) and ``sysctl.conf`` (multi-rail ARP/rp_filter)
apply, through the same translation the driver uses (:func:`netplan_commands`). No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from roceops.platforms.linux_mlx5.driver_model import netplan_spec, spec_commands


@dataclass(frozen=True)
class HostRouting:
    nics: dict[str, tuple[int | None, list[str]]]  # netdev -> (mtu, addresses)
    ip_commands: list[str]  # for ``ip -batch``: addresses, MTUs, routes, rules
    sysctls: dict[str, str]


def host_routing(netplan_text: str, sysctl_text: str) -> HostRouting:
    spec = netplan_spec(netplan_text)
    nics = {netdev: (e["mtu"], list(e["addresses"])) for netdev, e in spec.items()}
    commands = [c.removeprefix("ip ") for c in spec_commands(spec)]  # the file parsed once (YAML is slow)
    sysctls: dict[str, str] = {}
    for line in sysctl_text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith(("#", ";")):
            sysctls[key.strip()] = value.strip()
    return HostRouting(nics=nics, ip_commands=commands, sysctls=sysctls)
