"""Turn observations into findings: each device's own (drift, LLDP, BGP), then the checks across the two
ends of each host-leaf link.

A device's own findings need only that device (its intent, its observed state and the cabling plan), so
they are worked out wherever the device was read, in any process. What the link checks need of each end
travels as :class:`EndFacts`: a few values per NIC or port, not the whole observed state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from roceops.device.change import DeviceFacts
from roceops.device.compare import Drift, compare
from roceops.device.facts import mismatches
from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.observed import Observed, ObservedHost, ObservedSwitch
from roceops.device.oper import OperState
from roceops.hints import command
from roceops.report.result import Result, Status
from roceops.topology.fabric import Fabric

Intent = SwitchIntent | HostIntent


@dataclass
class Observation:
    device: str
    platform: str
    intent: Intent
    expected: Observed  # the intent as the platform shows it (the driver's ``expected``)
    observed: Observed | None = None
    oper: OperState | None = None
    error: Result | None = None
    outputs: dict[str, str] | None = None  # raw command outputs, kept only between collect and parse
    facts: DeviceFacts | None = None  # what a switch reports it is (release, hardware, ports)
    mode_problems: list[str] = field(default_factory=list)  # modes its config asks that it does not run
    phases: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class EndFacts:
    """One end of a host-leaf link as observed (values as the parser gave them; None: not observable), and for a
    host NIC what its intent asks, so that a mismatch can be blamed on the end that departs from intent."""

    pfc_priorities: list[int] | None = None
    mtu: int | None = None
    intended_pfc: tuple[int, ...] | None = None
    intended_mtu: int | None = None
    neighbor: tuple[str, str] | None = None  # what this end's LLDP hears: (device, port); None: nothing heard
    macs: tuple[str, ...] = ()  # a host NIC's own MAC; the MACs a leaf port's IPv6 neighbour table holds


def _hint(device: str, d: Drift, context: Sequence[str] = ()) -> str:
    fix = command("deploy", "--limit", device, "--commit", context=context)
    if d.kind == "missing":
        return f"{d.path} is absent on the device; {fix} restores it"
    if d.kind == "unexpected":
        return f"{d.path} is not in the intent; remove it or add it to fabric.yaml"
    return f"set {d.path} back to {d.expected!r} ({fix})"


def _fabric_only(context: Sequence[str]) -> list[str]:
    """``-f FILE`` of a hint context (for commands that take no ``--lab``)."""
    return list(context[context.index("-f"):context.index("-f") + 2]) if "-f" in context else []


def _severity(path: str) -> Status:
    return "warn" if path.endswith(".description") or ".networks" in path else "fail"


def _boot_finding(device: str, d: Drift, context: Sequence[str] = ()) -> Result | None:
    """Drift in what the host applies at its next boot (installed files, the unit, NIC firmware): the node may be
    fine now and still lose its settings at the next reboot, so it is its own finding, not runtime drift."""
    fix = command("deploy", "--limit", device, "--commit", context=context)
    if d.path.startswith("boot.files["):
        path = d.path[len("boot.files["):-1]
        state = "is missing" if d.observed is None else "differs from the rendered file"
        return Result(check="boot.file", device=device, path=d.path, expected=d.expected, observed=d.observed,
                       message=f"{path} {state}: the settings it carries are lost at the next boot",
                       hint=f"{fix} installs it")
    if d.path.startswith("boot.unit"):
        return Result(check="boot.unit", device=device, path=d.path, expected=d.expected, observed=d.observed,
                       message=f"the boot unit is {d.observed or 'not installed'} ({d.path}): the NIC settings are "
                               "not re-applied at the next boot", hint=f"{fix} installs and enables it")
    if d.path.startswith("firmware."):
        return Result(check="firmware.drift", device=device, path=d.path, expected=d.expected, observed=d.observed,
                       message=f"NIC firmware (mlxconfig next boot) differs: {d.path}",
                       hint=f"{command('deploy', '--limit', device, '--commit', '--firmware', context=context)}, "
                            "then reboot the node")
    return None


def drift_findings(obs: Observation, hint_context: Sequence[str] = ()) -> list[Result]:
    if obs.observed is None:
        return []
    out = []
    for d in compare(obs.expected, obs.observed):
        boot = _boot_finding(obs.device, d, hint_context)
        out.append(boot or Result(check="config.drift", device=obs.device, path=d.path, expected=d.expected,
                                   observed=d.observed, status=_severity(d.path), message=f"{d.kind}: {d.path}",
                                   hint=_hint(obs.device, d, hint_context)))
    return out


def end_facts(fabric: Fabric, obs: Observation) -> dict[str, EndFacts]:
    """NIC netdev or switch port -> what the link checks need of it, for the host-leaf links of this device."""
    oper = obs.oper
    facts: dict[str, EndFacts] = {}
    for name, config in _end_config(fabric, obs).items():
        if oper is None:
            facts[name] = EndFacts(*config)
            continue
        heard = oper.lldp.get(name)  # the cable check (roceops.audit.cabling) reads both ends' LLDP
        # and, where LLDP is absent, the MACs (a host NIC's own, a leaf port's neighbours')
        learned, port = oper.neighbor_macs.get(name), oper.ports.get(name)
        macs = tuple(learned) if learned else (port.mac,) if port is not None and port.mac else ()
        facts[name] = EndFacts(*config, neighbor=None if heard is None else (heard.device, heard.port), macs=macs)
    return facts


_Config = tuple[list[int] | None, int | None, tuple[int, ...] | None, int | None]


def _end_config(fabric: Fabric, obs: Observation) -> dict[str, _Config]:
    """NIC netdev or host-facing port -> its :class:`EndFacts` configuration fields, in order."""
    observed = obs.observed
    if observed is None:
        return {}
    if isinstance(obs.intent, HostIntent):
        if not isinstance(observed, ObservedHost):
            return {}
        out: dict[str, _Config] = {}
        for netdev, nic in (observed.nics or {}).items():
            want = obs.intent.nics.get(netdev)
            if want is not None:
                out[netdev] = (nic.pfc_priorities, nic.mtu, tuple(want.pfc_priorities), want.mtu)
        return out
    if not isinstance(observed, ObservedSwitch):
        return {}
    host_ports = {link.b.port if link.b.device == obs.device else link.a.port
                  for link in fabric.links_of(obs.device) if link.tier == "host-leaf"}
    return {name: (port.pfc_priorities, port.mtu, None, None)
            for name, port in (observed.ports or {}).items() if name in host_ports}


def _blame(host_ok: bool, host: tuple[str, str], leaf: tuple[str, str]) -> list[tuple[str, str]]:
    """Attribute a cross-link mismatch to the end that departs from its own intent (both if neither does)."""
    return [leaf] if host_ok else [host]


def link_findings(fabric: Fabric, facts: dict[str, dict[str, EndFacts]]) -> list[Result]:
    """Host NIC vs its leaf port: the contract no single device can check on its own.

    ``facts`` holds each audited device's :func:`end_facts`. A mismatch is reported at the end that departs
    from intent, so it merges with that device's drift finding instead of showing up twice.
    """
    out: list[Result] = []
    for host in fabric.hosts:
        host_facts = facts.get(host.name) or {}
        for nic in host.nics:
            n = host_facts.get(nic.netdev)
            p = (facts.get(nic.leaf) or {}).get(nic.leaf_port)
            if n is None or p is None:
                continue
            where = f"{host.name}:{nic.netdev} <-> {nic.leaf}:{nic.leaf_port}"
            if n.pfc_priorities is not None and p.pfc_priorities is not None and sorted(n.pfc_priorities) != sorted(
                    p.pfc_priorities):
                host_ok = sorted(n.pfc_priorities) == sorted(n.intended_pfc or ())
                for dev, path in _blame(host_ok, (host.name, f"nics[{nic.netdev}].pfc_priorities"),
                                        (nic.leaf, f"ports[{nic.leaf_port}].pfc_priorities")):
                    out.append(Result(check="pfc.mismatch", device=dev, path=path,
                                       expected=list(n.intended_pfc or ()),
                                       observed=p.pfc_priorities if host_ok else n.pfc_priorities,
                                       message=f"PFC priorities differ across {where}",
                                       hint="PFC must be on the same priorities on the NIC and its leaf port"))
            if n.mtu is not None and p.mtu is not None and int(n.mtu) + 18 > int(p.mtu):
                host_ok = int(n.mtu) == n.intended_mtu
                for dev, path in _blame(host_ok, (host.name, f"nics[{nic.netdev}].mtu"),
                                        (nic.leaf, f"ports[{nic.leaf_port}].mtu")):
                    out.append(Result(check="mtu.fit", device=dev, path=path,
                                       expected=f"NIC {n.mtu} + 18 <= port {p.mtu}",
                                       observed=p.mtu if host_ok else n.mtu,
                                       message=f"NIC MTU does not fit the leaf port MTU across {where}",
                                       hint="host MTU + 18 bytes of L2 overhead must not exceed the switch port MTU"))
    return out


def lldp_findings(fabric: Fabric, obs: Observation, hint_context: Sequence[str] = ()) -> list[Result]:
    """This switch's LLDP neighbours against the cabling plan (switch-to-switch links)."""
    cabling = command("cabling", context=_fabric_only(hint_context))
    if obs.oper is None or not obs.oper.lldp or not isinstance(obs.intent, SwitchIntent):
        return []
    out: list[Result] = []
    for link in fabric.links_of(obs.device):
        if link.tier == "host-leaf":
            continue  # hosts rarely run LLDP agents; checked on the switch-to-switch cabling only
        local, peer = (link.a, link.b) if link.a.device == obs.device else (link.b, link.a)
        seen = obs.oper.lldp.get(local.port)
        if seen is None:
            continue
        if (seen.device, seen.port) != (peer.device, peer.port):
            out.append(Result(check="lldp.neighbor", device=obs.device, path=f"lldp[{local.port}]",
                               expected=f"{peer.device}:{peer.port}", observed=f"{seen.device}:{seen.port}",
                               message="LLDP neighbour differs from the cabling plan",
                               hint=f"check the cable against `{cabling}`"))
    return out


def bgp_findings(obs: Observation) -> list[Result]:
    """Every BGP neighbour this switch's intent plans is Established."""
    if not isinstance(obs.intent, SwitchIntent) or obs.oper is None or not obs.oper.bgp:
        return []
    out: list[Result] = []
    for nb in obs.intent.bgp.neighbors:
        session = obs.oper.bgp.get(nb.ip)
        state = session.state if session else "absent"
        if state != "Established":
            out.append(Result(check="bgp.session", device=obs.device, path=f"bgp.sessions[{nb.ip}]",
                               expected="Established", observed=state,
                               message=f"BGP session to {nb.description or nb.ip} is {state}",
                               hint=f"check {nb.port} and the peer {nb.description}"))
    return out


def device_findings(fabric: Fabric, obs: Observation, hint_context: Sequence[str] = ()) -> list[Result]:
    """Everything one device shows on its own: why it was not audited, or its drift, LLDP and BGP findings."""
    if obs.error is not None:
        return [obs.error]
    return [*facts_findings(obs), *nic_mode_findings(obs), *drift_findings(obs, hint_context),
            *lldp_findings(fabric, obs, hint_context), *bgp_findings(obs)]


def nic_mode_findings(obs: Observation) -> list[Result]:
    """A host NIC in BlueField DPU mode: the host-side RoCE settings roceops audits do not take effect there."""
    if not isinstance(obs.observed, ObservedHost):
        return []
    return [Result(check="nic.mode", device=obs.device, path=f"nics[{netdev}].mode", expected="nic", observed="dpu",
                    message=f"{nic.rdma_dev or netdev} is a BlueField in DPU mode: trust, PFC, DCQCN and RoCE ToS set "
                            "from the host do not take effect",
                    hint="configure RoCE QoS on the BlueField's Arm side, or switch it to NIC mode (docs/platforms.md, "
                         "BlueField-3 modes)")
            for netdev, nic in sorted((obs.observed.nics or {}).items()) if nic.mode == "dpu"]


def facts_findings(obs: Observation) -> list[Result]:
    """A switch whose release, hardware or ports contradict its intent: one ``facts.mismatch`` finding."""
    out = [Result(check="facts.mode", device=obs.device, path="facts.mode", message="; ".join(obs.mode_problems),
                   hint="the switch still runs its old modes: they take effect at a restart (deploy --bringup)")
           ] if obs.mode_problems else []
    if obs.facts is None or not isinstance(obs.intent, SwitchIntent):
        return out
    problems = mismatches(obs.facts, obs.intent)
    if not problems:
        return out
    return [*out, Result(check="facts.mismatch", device=obs.device, path="facts", message="; ".join(problems),
                          hint="the device is not the one the fabric describes: fix the fabric (hwsku, nos_version) "
                               "or the device; deploy refuses it")]


def merge(findings: Iterable[Result]) -> list[Result]:
    """One finding per (device, path); a cross-device check adds its reason to the drift it explains."""
    merged: dict[tuple[str, str, str], Result] = {}
    for f in findings:
        key = (f.device, f.path, "" if f.path else f.check)
        if key in merged:
            first = merged[key]
            first.context.append(f"{f.check}: {f.message}")
        else:
            merged[key] = f
    return sorted(merged.values(), key=lambda f: (f.device, f.path, f.check))
