"""Fabric: the expansion of a FabricIntent into every device, port, cable and address.

Plain data, no behaviour beyond look-ups. Built only by ``roceops.topology.expand``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from roceops.model.intent import FabricIntent
from roceops.model.qos import DcqcnPolicy, EcnPolicy, PfcWatchdog
from roceops.model.types import HostPlatform, SwitchPlatform, SwitchRole

LinkTier = Literal["host-leaf", "leaf-spine", "spine-core"]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResolvedSettings(_Data):
    """Settings after fabric defaults, group overrides and device overrides are applied."""

    mtu: int
    pfc_watchdog: PfcWatchdog
    dcqcn: DcqcnPolicy
    ecn: dict[str, EcnPolicy]
    cable_length: int | None = None
    nos_version: str | None = None


@dataclass(frozen=True, slots=True)
class Endpoint:
    device: str
    port: str


@dataclass(frozen=True, slots=True)
class Link:
    """One cable. ``a`` is the lower tier (host/leaf/spine), ``b`` the upper tier.

    A plain slotted dataclass: a 64-SU fabric has ~50,000 of them and they are
    built only by ``expand`` from validated input.
    """

    a: Endpoint
    b: Endpoint
    tier: LinkTier
    plane: int
    speed: int  # Mb/s
    cable_length: int  # metres
    a_ip: str | None = None  # address/31 on the a end
    b_ip: str | None = None  # address/31 on the b end


class Switch(_Data):
    kind: Literal["switch"] = "switch"
    name: str
    role: SwitchRole
    platform: SwitchPlatform
    model: str
    hwsku: str | None = None
    plane: int
    su: int | None = None
    rail: int | None = None
    pod: int | None = None
    group: int | None = Field(default=None, description="core group (= spine index in its pod)")
    index: int = Field(description="1-based index within its role and plane")
    radix: int
    port_speed: int
    asn: int
    loopback: str
    mgmt_ip: str
    settings: ResolvedSettings

    @property
    def groups(self) -> list[str]:
        out = [self.role, self.platform, f"plane{self.plane}"]
        if self.pod is not None:
            out.append(f"pod{self.pod}")
        if self.su is not None:
            out.append(f"su{self.su}")
        if self.rail is not None:
            out.append(f"rail{self.rail}")
        return out


class Nic(_Data):
    netdev: str
    rdma_dev: str
    rail: int
    plane: int
    speed: int
    leaf: str
    leaf_port: str
    address: str = Field(description="address/31 of the NIC")
    gateway: str = Field(description="leaf-side address of the /31")
    rail_subnet: str = Field(description="the rail's subnet, routed out of this NIC")
    table: int = Field(description="policy-routing table id for this NIC")


class Host(_Data):
    kind: Literal["host"] = "host"
    name: str
    role: Literal["host"] = "host"
    platform: HostPlatform
    model: str
    su: int
    node: int = Field(description="1-based node number across the fabric")
    mgmt_ip: str
    nics: list[Nic]
    settings: ResolvedSettings

    @property
    def groups(self) -> list[str]:
        return ["host", self.platform, f"su{self.su}", *sorted({f"rail{n.rail}" for n in self.nics})]


Device = Annotated[Switch | Host, Field(discriminator="kind")]


class TierSummary(_Data):
    role: Literal["leaf", "spine", "core", "host"]
    count: int
    model: str
    radix: int
    ports_used: int
    ports_free: int
    downlinks: int
    uplinks: int
    oversubscription: float | None


@dataclass(frozen=True)
class Fabric:
    """Everything the intent implies. Devices are ordered: leaves, spines, cores, hosts.

    ``tiers`` is 2 or 3 (1 for rail-only); ``rail_subnets`` maps 'rail{r}/plane{p}' to a subnet.
    """

    intent: FabricIntent
    tiers: int
    switches: list[Switch]
    hosts: list[Host]
    links: list[Link]
    rail_subnets: dict[str, str]
    summary: list[TierSummary]

    @cached_property
    def by_name(self) -> dict[str, Switch | Host]:
        out: dict[str, Switch | Host] = {s.name: s for s in self.switches}
        out.update((h.name, h) for h in self.hosts)
        return out

    @cached_property
    def links_by_device(self) -> dict[str, list[Link]]:
        idx: dict[str, list[Link]] = defaultdict(list)
        for link in self.links:
            idx[link.a.device].append(link)
            idx[link.b.device].append(link)
        return dict(idx)

    def device(self, name: str) -> Switch | Host:
        try:
            return self.by_name[name]
        except KeyError:
            raise KeyError(f"no device named {name!r} in fabric {self.intent.name!r}") from None

    def devices(self) -> Iterator[Switch | Host]:
        yield from self.switches
        yield from self.hosts

    def links_of(self, name: str) -> list[Link]:
        return self.links_by_device.get(name, [])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the golden snapshot format)."""
        return {
            "name": self.intent.name,
            "tiers": self.tiers,
            "summary": [t.model_dump(mode="json") for t in self.summary],
            "rail_subnets": self.rail_subnets,
            "switches": [s.model_dump(mode="json") for s in self.switches],
            "hosts": [h.model_dump(mode="json") for h in self.hosts],
            "links": [_link_dict(link) for link in self.links],
        }

    def peer(self, device: str, port: str) -> Endpoint | None:
        for link in self.links_of(device):
            if link.a.device == device and link.a.port == port:
                return link.b
            if link.b.device == device and link.b.port == port:
                return link.a
        return None


def _link_dict(link: Link) -> dict[str, Any]:
    return {
        "a": f"{link.a.device}:{link.a.port}", "b": f"{link.b.device}:{link.b.port}", "tier": link.tier,
        "plane": link.plane, "speed": link.speed, "cable_length": link.cable_length,
        "a_ip": link.a_ip, "b_ip": link.b_ip,
    }
