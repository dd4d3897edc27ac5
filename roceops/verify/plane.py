"""The routing plane to build for one run, from the fabric, the DeviceIntents and the rendered configs. Pure.

Switch interfaces carry the planned port address and MTU (DeviceIntent); a switch's BGP is the
platform's FRR translation of its *rendered* config; a host's NICs, tables, rules and sysctls are what its
rendered netplan.yaml and sysctl.conf apply. One veth pair per planned cable.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field

from roceops.device.change import RenderedDevice
from roceops.device.intent import HostIntent, SwitchIntent
from roceops.platforms.base import get_platform
from roceops.platforms.frr_conf import TranslationError
from roceops.topology.fabric import Fabric
from roceops.verify.netns import ifname

Intent = SwitchIntent | HostIntent
HOST_FILES = ("netplan.yaml", "sysctl.conf")  # the rendered files a host's routing comes from (_host)



@dataclass(frozen=True)
class End:
    device: str
    netns: str
    port: str  # planned name
    ifname: str  # name inside the namespace
    mtu: int
    address: str | None  # a.b.c.d/len
    mac: str  # set at creation, so neighbours can be written without ARP (see engine)


@dataclass(frozen=True)
class Cable:
    a: End
    b: End
    tier: str  # host-leaf, leaf-spine, spine-core


@dataclass(frozen=True)
class Session:
    """A planned BGP session (one per switch-to-switch cable)."""

    a: str
    a_ip: str
    b: str
    b_ip: str


@dataclass
class SwitchNode:
    name: str
    platform: str
    role: str
    netns: str
    loopback: str
    bgpd_conf: str | None
    error: str | None = None  # translation failure


@dataclass
class HostNode:
    name: str
    netns: str
    ip_commands: list[str]
    sysctls: dict[str, str]
    nics: dict[str, tuple[str, str, int]]  # netdev -> (address/len, gateway, mtu)
    tables: dict[str, int] = field(default_factory=dict)  # netdev -> its source table
    rails: dict[str, int] = field(default_factory=dict)
    su: int = 0


@dataclass
class Plane:
    run_id: str
    switches: dict[str, SwitchNode]
    hosts: dict[str, HostNode]
    cables: list[Cable]
    sessions: list[Session]
    host_subnets: dict[str, str]  # subnet -> origin leaf
    roce_mtu: int
    absent_peers: dict[str, set[str]] = field(default_factory=dict)  # switch -> addresses of peers not built

    @property
    def namespaces(self) -> list[str]:
        return [s.netns for s in self.switches.values()] + [h.netns for h in self.hosts.values()]


def mac_of(cable: int, side: int) -> str:
    """A locally administered unicast MAC per cable end.

    >>> mac_of(0, 0), mac_of(1025, 1)
    ('02:00:00:00:00:00', '02:00:00:04:01:01')
    """
    return f"02:00:{(cable >> 16) & 255:02x}:{(cable >> 8) & 255:02x}:{cable & 255:02x}:{side:02x}"


def _mtu(intent: Intent | None, port: str, default: int) -> int:
    if isinstance(intent, SwitchIntent) and port in intent.ports:
        return intent.ports[port].mtu
    if isinstance(intent, HostIntent) and port in intent.nics:
        return intent.nics[port].mtu
    return default


def build_plane(run_id: str, fabric: Fabric, intents: Mapping[str, Intent],
                rendered: Mapping[str, RenderedDevice]) -> Plane:
    ns_of: dict[str, str] = {}
    for i, sw in enumerate(fabric.switches):
        ns_of[sw.name] = f"{run_id}-s{i}"
    for i, h in enumerate(fabric.hosts):
        ns_of[h.name] = f"{run_id}-h{i}"
    switches = {sw.name: _switch(sw.name, ns_of[sw.name], intents[sw.name], rendered[sw.name])
                for sw in fabric.switches}
    hosts = {h.name: _host(h.name, ns_of[h.name], intents[h.name], rendered[h.name]) for h in fabric.hosts}
    for h in fabric.hosts:
        hosts[h.name].su = h.su
    cables: list[Cable] = []
    sessions: list[Session] = []
    subnets: dict[str, str] = {}
    names: dict[str, dict[str, str]] = {}  # device -> port -> ifname
    for index, link in enumerate(fabric.links):
        ends = []
        for side, (ep, ip) in enumerate(((link.a, link.a_ip), (link.b, link.b_ip))):
            taken = names.setdefault(ep.device, {})
            name = taken.get(ep.port) or ifname(ep.port, len(taken))
            taken[ep.port] = name
            default = fabric.intent.mtu.host if ep.device in hosts else fabric.intent.mtu.switch
            mtu = _mtu(intents.get(ep.device), ep.port, default)
            ends.append(End(ep.device, ns_of[ep.device], ep.port, name, mtu, ip, mac_of(index, side)))
        a, b = ends
        cables.append(Cable(a, b, link.tier))
        if link.tier == "host-leaf":
            host_end, leaf_end = (a, b) if a.device in hosts else (b, a)
            if host_end.address:
                subnets[str(ipaddress.ip_interface(host_end.address).network)] = leaf_end.device
        elif a.address and b.address:
            sessions.append(Session(a.device, a.address.split("/")[0], b.device, b.address.split("/")[0]))
    return Plane(run_id=run_id, switches=switches, hosts=hosts, cables=cables, sessions=sessions,
                 host_subnets=subnets, roce_mtu=fabric.intent.mtu.roce)


def device_nodes(fabric: Fabric, intents: Mapping[str, Intent], rendered: Mapping[str, RenderedDevice]
                 ) -> tuple[dict[str, SwitchNode | HostNode], dict[tuple[str, str], int]]:
    """What the plane would run for every device of ``fabric`` (namespace names left empty), and every
    cable end's MTU: the input of the class argument (:mod:`roceops.verify.classes`)."""
    nodes: dict[str, SwitchNode | HostNode] = {s.name: _switch(s.name, "", intents[s.name], rendered[s.name])
                                               for s in fabric.switches}
    nodes.update((h.name, _host(h.name, "", intents[h.name], rendered[h.name])) for h in fabric.hosts)
    mtus: dict[tuple[str, str], int] = {}
    for link in fabric.links:
        for ep in (link.a, link.b):
            default = fabric.intent.mtu.host if ep.device in nodes and isinstance(nodes[ep.device], HostNode) \
                else fabric.intent.mtu.switch
            mtus[(ep.device, ep.port)] = _mtu(intents.get(ep.device), ep.port, default)
    return nodes, mtus


def node_of(name: str, netns: str, intent: Intent, rendered: RenderedDevice) -> SwitchNode | HostNode:
    """What the plane runs for one device (:func:`device_nodes` of one device)."""
    return _host(name, netns, intent, rendered) if isinstance(intent, HostIntent) \
        else _switch(name, netns, intent, rendered)


def port_mtu(fabric: Fabric, intent: Intent, port: str) -> int:
    """One cable end's MTU as :func:`device_nodes` gives it."""
    default = fabric.intent.mtu.host if isinstance(intent, HostIntent) else fabric.intent.mtu.switch
    return _mtu(intent, port, default)


def _switch(name: str, netns: str, intent: Intent, rendered: RenderedDevice) -> SwitchNode:
    assert isinstance(intent, SwitchIntent)
    node = SwitchNode(name=name, platform=intent.platform, role=intent.role, netns=netns,
                      loopback=intent.loopback, bgpd_conf=None)
    platform = get_platform(intent.platform)  # the room's translation of its rendered routing config
    try:
        if platform.code.routing_translation is None or platform.routing_source is None:
            raise TranslationError(f"{platform.title} has no routing translation for `verify routing`")
        node.bgpd_conf = platform.code.routing_translation(name, rendered.files[platform.routing_source])
    except (TranslationError, KeyError, ValueError) as exc:
        node.error = str(exc)
    return node


def _host(name: str, netns: str, intent: Intent, rendered: RenderedDevice) -> HostNode:
    assert isinstance(intent, HostIntent)
    host_routing = get_platform(intent.platform).code.host_routing
    assert host_routing is not None, f"{intent.platform} has no host routing for `verify routing`"
    netplan, sysctl = HOST_FILES
    r = host_routing(rendered.files[netplan], rendered.files.get(sysctl, ""))
    node = HostNode(name=name, netns=netns, ip_commands=r.ip_commands, sysctls=r.sysctls, nics={})
    for netdev, nic in intent.nics.items():
        mtu, addresses = r.nics.get(netdev, (None, []))
        node.nics[netdev] = (addresses[0] if addresses else nic.address, nic.gateway, mtu or nic.mtu)
        node.rails[netdev] = nic.rail
        node.tables[netdev] = nic.table
    return node
