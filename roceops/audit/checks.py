"""Turn observations into findings: per-device drift, then checks across the two ends of each link."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from roceops.audit.compare import Drift, compare
from roceops.audit.findings import Finding
from roceops.plan.model import HostIntent, SwitchIntent
from roceops.platforms.driver import OperState
from roceops.topology.fabric import Fabric

Intent = SwitchIntent | HostIntent


@dataclass
class Observation:
    device: str
    platform: str
    intent: Intent
    expected: Intent  # the intent as the platform can represent it
    observed: dict[str, Any] | None = None
    oper: OperState | None = None
    error: Finding | None = None
    outputs: dict[str, str] | None = None  # raw command outputs, kept only between collect and parse
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)


def _hint(device: str, d: Drift) -> str:
    fix = f"roceops deploy --limit {device} --commit"
    if d.kind == "missing":
        return f"{d.path} is absent on the device; {fix} restores it"
    if d.kind == "unexpected":
        return f"{d.path} is not in the intent; remove it or add it to fabric.yaml"
    return f"set {d.path} back to {d.expected!r} ({fix})"


def _severity(path: str) -> str:
    return "warning" if path.endswith(".description") or ".networks" in path else "error"


def drift_findings(obs: Observation) -> list[Finding]:
    if obs.observed is None:
        return []
    return [
        Finding(check="config.drift", device=obs.device, path=d.path, expected=d.expected, observed=d.observed,
                severity=_severity(d.path), message=f"{d.kind}: {d.path}", hint=_hint(obs.device, d))
        for d in compare(obs.expected, obs.observed)
    ]


def _observed_port(obs: Observation | None, port: str) -> dict[str, Any] | None:
    if obs is None or obs.observed is None:
        return None
    ports = obs.observed.get("ports") or {}
    value = ports.get(port)
    return value if isinstance(value, dict) else None


def _observed_nic(obs: Observation | None, netdev: str) -> dict[str, Any] | None:
    if obs is None or obs.observed is None:
        return None
    value = (obs.observed.get("nics") or {}).get(netdev)
    return value if isinstance(value, dict) else None


def _blame(host_ok: bool, host: tuple[str, str], leaf: tuple[str, str]) -> list[tuple[str, str]]:
    """Attribute a cross-link mismatch to the end that departs from its own intent (both if neither does)."""
    return [leaf] if host_ok else [host]


def link_findings(fabric: Fabric, by_name: dict[str, Observation]) -> list[Finding]:
    """Host NIC vs its leaf port: the contract no single device can check on its own.

    A mismatch is reported at the end that departs from intent, so it merges with that
    device's drift finding instead of showing up twice.
    """
    out: list[Finding] = []
    for host in fabric.hosts:
        hobs = by_name.get(host.name)
        for nic in host.nics:
            n = _observed_nic(hobs, nic.netdev)
            p = _observed_port(by_name.get(nic.leaf), nic.leaf_port)
            if n is None or p is None or hobs is None or not isinstance(hobs.intent, HostIntent):
                continue
            want = hobs.intent.nics[nic.netdev]
            where = f"{host.name}:{nic.netdev} <-> {nic.leaf}:{nic.leaf_port}"
            if "pfc_priorities" in n and "pfc_priorities" in p and sorted(n["pfc_priorities"]) != sorted(
                    p["pfc_priorities"]):
                host_ok = sorted(n["pfc_priorities"]) == sorted(want.pfc_priorities)
                for dev, path in _blame(host_ok, (host.name, f"nics[{nic.netdev}].pfc_priorities"),
                                        (nic.leaf, f"ports[{nic.leaf_port}].pfc_priorities")):
                    out.append(Finding(check="pfc.mismatch", device=dev, path=path, expected=want.pfc_priorities,
                                       observed=p["pfc_priorities"] if host_ok else n["pfc_priorities"],
                                       message=f"PFC priorities differ across {where}",
                                       hint="PFC must be on the same priorities on the NIC and its leaf port"))
            if "mtu" in n and "mtu" in p and int(n["mtu"]) + 18 > int(p["mtu"]):
                host_ok = int(n["mtu"]) == want.mtu
                for dev, path in _blame(host_ok, (host.name, f"nics[{nic.netdev}].mtu"),
                                        (nic.leaf, f"ports[{nic.leaf_port}].mtu")):
                    out.append(Finding(check="mtu.fit", device=dev, path=path,
                                       expected=f"NIC {n['mtu']} + 18 <= port {p['mtu']}",
                                       observed=p["mtu"] if host_ok else n["mtu"],
                                       message=f"NIC MTU does not fit the leaf port MTU across {where}",
                                       hint="host MTU + 18 bytes of L2 overhead must not exceed the switch port MTU"))
    return out


def lldp_findings(fabric: Fabric, by_name: dict[str, Observation]) -> list[Finding]:
    out: list[Finding] = []
    for sw in fabric.switches:
        obs = by_name.get(sw.name)
        if obs is None or obs.oper is None or not obs.oper.lldp:
            continue
        for link in fabric.links_of(sw.name):
            if link.tier == "host-leaf":
                continue  # hosts rarely run LLDP agents; checked on the switch-to-switch cabling only
            local, peer = (link.a, link.b) if link.a.device == sw.name else (link.b, link.a)
            seen = obs.oper.lldp.get(local.port)
            if seen is None:
                continue
            if (seen.device, seen.port) != (peer.device, peer.port):
                out.append(Finding(check="lldp.neighbor", device=sw.name, path=f"lldp[{local.port}]",
                                   expected=f"{peer.device}:{peer.port}", observed=f"{seen.device}:{seen.port}",
                                   message="LLDP neighbour differs from the cabling plan",
                                   hint="check the cable against `roceops cabling`"))
    return out


def bgp_findings(by_name: dict[str, Observation]) -> list[Finding]:
    out: list[Finding] = []
    for obs in by_name.values():
        if not isinstance(obs.intent, SwitchIntent) or obs.oper is None or not obs.oper.bgp:
            continue
        for nb in obs.intent.bgp.neighbors:
            session = obs.oper.bgp.get(nb.ip)
            state = session.state if session else "absent"
            if state != "Established":
                out.append(Finding(check="bgp.session", device=obs.device, path=f"bgp.sessions[{nb.ip}]",
                                   expected="Established", observed=state,
                                   message=f"BGP session to {nb.description or nb.ip} is {state}",
                                   hint=f"check {nb.port} and the peer {nb.description}"))
    return out


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (device, path); a cross-device check adds its reason to the drift it explains."""
    merged: dict[tuple[str, str, str], Finding] = {}
    for f in findings:
        key = (f.device, f.path, "" if f.path else f.check)
        if key in merged:
            first = merged[key]
            first.context.append(f"{f.check}: {f.message}")
        else:
            merged[key] = f
    return sorted(merged.values(), key=lambda f: (f.device, f.path, f.check))


def all_findings(fabric: Fabric, observations: list[Observation]) -> list[Finding]:
    by_name = {o.device: o for o in observations}
    found: list[Finding] = [o.error for o in observations if o.error is not None]
    for o in observations:
        found.extend(drift_findings(o))
    found.extend(link_findings(fabric, by_name))
    found.extend(lldp_findings(fabric, by_name))
    found.extend(bgp_findings(by_name))
    return merge(found)
