"""What a report draws of the fabric (the HTML report's map): each device's place (tier, SU, rail, plane, spine pod,
core group) and the cables between devices, as plain data. A :class:`~roceops.report.result.Run` carries it, so a
reporter reads only results and their Run; :func:`fabric_map` draws it from a planned Fabric."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

if TYPE_CHECKING:  # a Run (which carries a map) must not pull the topology in: the CLI imports it at start-up
    from roceops.topology.fabric import Fabric


class MapDevice(BaseModel):
    """One device as the map places it (``leaves``: a host's leaves, which a health run also reads)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    role: Literal["leaf", "spine", "core", "host"]
    plane: int = 0
    su: int | None = None
    rail: int | None = None
    pod: int | None = None
    group: int | None = None
    leaves: tuple[str, ...] = ()


class MapLink(BaseModel):
    """One cable: ``a`` the lower-tier device, ``b`` the upper; each end's address (a BGP session's far end)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    a: str
    b: str
    tier: str
    a_ip: str | None = None
    b_ip: str | None = None


class FabricMap(BaseModel):
    """The fabric as its map needs it: its name, planes, devices (in the fabric's order) and cables."""

    model_config = ConfigDict(extra="forbid")

    name: str
    planes: int
    devices: list[MapDevice]
    links: list[MapLink]
    _by_name: dict[str, MapDevice] | None = PrivateAttr(default=None)
    _links_of: dict[str, list[MapLink]] | None = PrivateAttr(default=None)

    @property
    def by_name(self) -> dict[str, MapDevice]:
        if self._by_name is None:
            self._by_name = {d.name: d for d in self.devices}
        return self._by_name

    def links_of(self, name: str) -> list[MapLink]:
        """The cables with an end on device ``name``."""
        if self._links_of is None:
            index: dict[str, list[MapLink]] = {}
            for link in self.links:
                index.setdefault(link.a, []).append(link)
                index.setdefault(link.b, []).append(link)
            self._links_of = index
        return self._links_of.get(name, [])


def fabric_map(fabric: Fabric) -> FabricMap:
    """The map's data of a planned fabric."""
    from roceops.topology.fabric import Host

    devices = []
    for d in fabric.devices():
        if isinstance(d, Host):
            devices.append(MapDevice(name=d.name, role="host", su=d.su,
                                     leaves=tuple(dict.fromkeys(n.leaf for n in d.nics))))
        else:
            devices.append(MapDevice(name=d.name, role=d.role, plane=d.plane, su=d.su, rail=d.rail, pod=d.pod,
                                     group=d.group))
    links = [MapLink(a=link.a.device, b=link.b.device, tier=link.tier, a_ip=link.a_ip, b_ip=link.b_ip)
             for link in fabric.links]
    return FabricMap(name=fabric.intent.name, planes=fabric.intent.planes, devices=devices, links=links)
