"""The SONiC audit's fast paths give what the previous code gave: ``operational`` (its per-port loop), the facts'
breakout children (cached per switch profile and cage names), and the CONFIG_DB reader's ports, which share the
maps and queues they bind instead of each validating its own copy (equal models, equal drift), and its BGP
neighbours (validated with ObservedBgp in one call). On every SONiC switch of lab-mini and of a 2-SU lab fabric
(bench/common.py ``lab_fabric``), on the real captures of shared/fixtures/sonic, and on outputs with N/A counters."""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from labtools import lab_mini

from roceops.device.compare import compare
from roceops.device.observed import ObservedBgp, ObservedBgpNeighbor, ObservedQueue, ObservedSwitch, ObservedSwitchPort
from roceops.device.oper import BgpSession, LldpNeighbor, OperState, PortOper
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.sonic import driver as D
from roceops.platforms.sonic import facts as F
from roceops.platforms.sonic import parsers as P
from roceops.platforms.sonic import parsers_config_db as C
from roceops.platforms.sonic import parsers_control as PC
from roceops.platforms.sonic import parsers_oper as O
from roceops.platforms.sonic.parsers_config_db import parse_config_db
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric
from roceops.util.sorting import ip_sort_key

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT.parent / "shared" / "fixtures" / "sonic"


@cache
def two_su() -> Fabric:
    sys.path.insert(0, str(ROOT / "bench"))
    from common import lab_fabric  # the benches' lab fabric

    return expand(lab_fabric(2))


def lab_outputs() -> Iterator[tuple[str, dict[str, str]]]:
    """Every SONiC switch of lab-mini and of the 2-SU lab fabric: its COLLECT outputs from its lab personality."""
    for fabric in (lab_mini(), two_su()):
        for spec in lab_specs(fabric, configured=True):
            if spec.platform != "sonic":
                continue
            personality = get_personality(spec.platform)
            state = personality.state_factory(spec.name, spec.platform, spec.extra)
            session = personality.session_factory(state, SessionInfo(username="admin", pty=True))
            yield spec.name, {cmd: str(getattr(r := session.handle(cmd), "text", r)) for cmd in D.COLLECT}


# ---------------------------------------------------------------------------------------------- operational


def operational_before(outputs: dict[str, str]) -> OperState:
    """``SonicDriver.operational`` as it was before its per-port loop was reworked (main at c2d29b6), verbatim."""
    status = O.interfaces_link(outputs[D.INTERFACES_STATUS]) if D.INTERFACES_STATUS in outputs else {}
    pfc = P.show_pfc_counters(outputs[D.PFC_COUNTERS]) if D.PFC_COUNTERS in outputs else {"rx": {}, "tx": {}}
    wred = D._optional(outputs, D.WRED_COUNTERS, O.wred_ecn_marked) or {}
    storms = D._optional(outputs, D.PFCWD_STATS, P.pfcwd_show_stats)
    errors = D._optional(outputs, D.ERROR_COUNTERS, O.errors_rx) or {}
    fec = D._optional(outputs, D.FEC_COUNTERS, O.fec_errors) or {}
    flaps = D._optional(outputs, D.FLAPS, O.flap_counts) or {}
    ports: dict[str, PortOper] = {}
    storms_of: dict[str, list[int | None]] = {}
    for (port, _), v in (storms or {}).items():
        storms_of.setdefault(port, []).append(v["storm_detected"])
    shown = dict.fromkeys([*status, *pfc["rx"], *pfc["tx"], *wred, *storms_of, *errors, *fec, *flaps])
    for name in shown:
        row = status.get(name)
        counters: dict[str, int] = {}
        unread: dict[str, str] = {}
        for direction in ("rx", "tx"):
            names = D._PFC_NAMES[direction]
            for prio, value in (pfc[direction].get(name) or {}).items():
                key = names.get(prio) or f"pfc_{direction}_{prio}"
                if value is None:
                    unread[key] = f"`{D.PFC_COUNTERS}` prints N/A"
                else:
                    counters[key] = value
        marked = [q for q in (wred.get(name) or {}).values() if q is not None]
        if marked:
            counters["ecn_marked"] = sum(marked)
        for queue, value in (wred.get(name) or {}).items():
            if value is not None and queue.startswith("UC") and queue[2:].isdigit():
                counters[f"ecn_marked_q{int(queue[2:])}"] = value
        if storms is not None:
            detected = storms_of.get(name, [])
            if None in detected:
                unread["pfcwd_storms"] = f"`{D.PFCWD_STATS}` prints N/A"
            else:
                counters["pfcwd_storms"] = sum(d for d in detected if d is not None)
        for source, field, key, command in ((errors, "rx_err", "crc_errors", D.ERROR_COUNTERS),
                                            (fec, "fec_uncorr", "fec_uncorrected", D.FEC_COUNTERS),
                                            (fec, "fec_symbol_err", "symbol_errors", D.FEC_COUNTERS),
                                            (flaps, "flaps", "carrier_changes", D.FLAPS)):
            entry = source.get(name)
            value = (entry or {}).get(field)
            if value is not None:
                counters[key] = value
            elif entry is not None:
                unread[key] = f"`{command}` prints N/A"
        if row is None and not counters and not unread:
            continue
        oper = row["oper"] if row else None
        ports[name] = PortOper(name=name, oper_up=None if oper not in ("up", "down") else oper == "up",
                               speed=row["speed"] if row else None, mtu=row["mtu"] if row else None,
                               counters=counters, unread=unread)
    lldp = D._optional(outputs, D.LLDP_TABLE, PC.show_lldp_table) or {}
    bgp = D._optional(outputs, D.BGP_SUMMARY, PC.show_ip_bgp_summary) or {"neighbors": {}}
    version = D._optional(outputs, D.VERSION, PC.show_version) or {}
    return OperState(
        ports=ports,
        lldp={port: LldpNeighbor(device=n["device"], port=n["port"]) for port, n in lldp.items()},
        neighbor_macs=D._optional(outputs, D.NDP_TABLE, PC.show_ndp) or {},
        bgp={ip: BgpSession(state=n["state"], remote_asn=n["remote_as"]) for ip, n in bgp["neighbors"].items()},
        os_version=version.get("SONiC Software Version"),
    )


def _same_oper(outputs: dict[str, str]) -> None:
    after, before = D.DRIVER.operational(outputs), operational_before(outputs)
    assert after == before
    # the counters in the same order (reports list them as the dict holds them)
    assert [list(p.counters) for p in after.ports.values()] == [list(p.counters) for p in before.ports.values()]
    assert [list(p.unread) for p in after.ports.values()] == [list(p.unread) for p in before.ports.values()]
    assert list(after.ports) == list(before.ports)


def _with_na(text: str, every: int) -> str:
    """``text`` with every ``every``-th counter cell of a table row printed as N/A (right-aligned as before)."""
    out = []
    for k, line in enumerate(text.splitlines()):
        words = line.split()
        if k % every == 0 and len(words) > 2 and words[-1].replace(",", "").isdigit():
            cell = words[-1]
            line = line[: len(line) - max(len(cell), 3)] + "N/A"  # columns are 2+ spaces apart
        out.append(line)
    return "\n".join(out) + "\n"


def test_operational_equals_the_previous_loop_on_every_lab_switch() -> None:
    seen = 0
    for _, outputs in lab_outputs():
        _same_oper(outputs)
        # N/A counters (unread), and outputs older images do not have
        na = {cmd: _with_na(text, 3) if cmd in D.COUNTERS else text for cmd, text in outputs.items()}
        assert any(p.unread for p in D.DRIVER.operational(na).ports.values())
        _same_oper(na)
        _same_oper({cmd: t for cmd, t in outputs.items() if cmd not in (D.FLAPS, D.FEC_COUNTERS, D.PFCWD_STATS)})
        seen += 1
    assert seen >= 4


@pytest.mark.skipif(not FIX.is_dir(), reason="shared/fixtures/sonic is not present")
def test_operational_equals_the_previous_loop_on_the_real_captures() -> None:
    outputs = {D.INTERFACES_STATUS: (FIX / "show_interfaces_status.txt").read_text(),
               D.PFC_COUNTERS: (FIX / "show_pfc_counters.txt").read_text(),
               D.WRED_COUNTERS: (FIX / "show_queue_wredcounters.txt").read_text(),
               D.PFCWD_STATS: (FIX / "pfcwd_show_stats.txt").read_text()}
    assert D.DRIVER.operational(outputs).ports  # the captures show ports
    _same_oper(outputs)
    _same_oper({**outputs, D.PFCWD_STATS: (FIX / "pfcwd_show_stats_multi_asic.txt").read_text(),
                D.PFC_COUNTERS: (FIX / "show_pfc_counters_all_multi_asic.txt").read_text()})
    na = {cmd: _with_na(text, 2) for cmd, text in outputs.items()}
    assert any(p.unread for p in D.DRIVER.operational(na).ports.values())
    _same_oper(na)


@pytest.mark.parametrize("queue", ["UC0", "UC7", "UC12", "MC3", "UC", "UCx", "Q1", "uc1"])
def test_ecn_queue_key_as_before(queue: str) -> None:
    before = f"ecn_marked_q{int(queue[2:])}" if queue.startswith("UC") and queue[2:].isdigit() else None
    assert D._ecn_queue_key(queue) == before


# ---------------------------------------------------------------------------------------------- facts


def test_breakout_children_cached_equal_uncached_on_every_lab_switch() -> None:
    seen = 0
    for _, outputs in lab_outputs():
        doc = D._load(outputs[D.PRINT_DATA], "print-data")
        hwsku = PC.show_version(outputs[D.VERSION]).get("HwSKU") or doc["DEVICE_METADATA"]["localhost"]["hwsku"]
        cages = doc["BREAKOUT_CFG"]
        F._CHILDREN.clear()
        first = F.breakout_children(hwsku, cages)  # computed
        assert first == F._children(F.switch_profile(hwsku), tuple(cages))
        assert first and F.breakout_children(hwsku, cages) is first  # then from the cache
        assert F.parse_facts(outputs[D.VERSION], doc).ports == frozenset(doc["PORT"]) | first
        seen += 1
    assert seen >= 4


@pytest.mark.skipif(not FIX.is_dir(), reason="shared/fixtures/sonic is not present")
@pytest.mark.parametrize("name", ["config_db_buffers_mellanox4600c_t1.json", "config_db_qos_dell9332.json",
                                  "config_db_qos_mellanox4600c_c64.json"])
def test_facts_of_the_real_captures_cached_as_uncached(name: str) -> None:
    doc = D._load((FIX / name).read_text(), name)
    hwsku = (doc.get("DEVICE_METADATA") or {}).get("localhost", {}).get("hwsku") or "Mellanox-SN5600-O128"
    cages = doc.get("BREAKOUT_CFG") or {f"Ethernet{8 * k}": {} for k in range(8)}
    for sku in (hwsku, "Mellanox-SN5600-O128", "Dell-Z9864f-O64"):
        F._CHILDREN.clear()
        try:
            uncached = F._children(F.switch_profile(sku), tuple(cages))
        except F.UnknownSwitchProfile:
            uncached = frozenset()
        assert F.breakout_children(sku, cages) == uncached == F.breakout_children(sku, cages)


def test_a_new_profile_object_is_not_answered_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalogue gives a new profile object when its file changes: the children are computed for it anew."""
    real = F.switch_profile("Dell-Z9864f-O64")
    cages = {"Ethernet8": {}}
    assert "Ethernet12" in F.breakout_children("Dell-Z9864f-O64", cages)
    fewer: Any = real.model_copy(update={"cages": tuple(c for c in real.cages if c.name != "Ethernet8")})
    monkeypatch.setattr(F, "switch_profile", lambda name: fewer)
    assert F.breakout_children("Dell-Z9864f-O64", cages) == frozenset()


# ---------------------------------------------------------------------------------------------- observe


def _revalidated(port: ObservedSwitchPort) -> ObservedSwitchPort:
    """The port as the previous reader built it: every field it sets validated (own copies of maps and queues)."""
    return ObservedSwitchPort.model_validate({f: getattr(port, f) for f in port.model_fields_set})


def _types(value: Any) -> Any:
    """The value's shape with the type of every part (an int key that became a str would show)."""
    if isinstance(value, dict):
        return {(type(k), k): _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    if isinstance(value, ObservedQueue):
        return (ObservedQueue, value.model_dump())
    return type(value), value


def _same_as_validated(observed: ObservedSwitch) -> None:
    assert observed.ports
    for port in observed.ports.values():
        again = _revalidated(port)
        assert port == again and port.model_fields_set == again.model_fields_set
        assert [_types(getattr(port, f)) for f in type(port).model_fields] == [
            _types(getattr(again, f)) for f in type(again).model_fields]


def _drifted(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with one port's queue rescheduled, one port's DSCP map and one port's PFC changed."""
    out = copy.deepcopy(doc)
    queue = sorted(out.get("QUEUE") or {})
    if queue:
        out["QUEUE"][queue[len(queue) // 2]]["scheduler"] = "[SCHEDULER|roceops-none]"
    qos = [k for k in sorted(out.get("PORT_QOS_MAP") or {}) if k != "global"]
    if qos:
        out["PORT_QOS_MAP"][qos[-1]]["dscp_to_tc_map"] = "[DSCP_TO_TC_MAP|missing]"
        out["PORT_QOS_MAP"][qos[0]]["pfc_enable"] = "2"
    return out


def test_ports_share_their_maps_and_queues_and_equal_validated_copies_on_every_lab_switch() -> None:
    seen = 0
    for fabric in (lab_mini(), two_su()):
        for spec in lab_specs(fabric, configured=True):
            if spec.platform != "sonic":
                continue
            personality = get_personality(spec.platform)
            state = personality.state_factory(spec.name, spec.platform, spec.extra)
            session = personality.session_factory(state, SessionInfo(username="admin", pty=True))
            doc = D._load(str(getattr(r := session.handle(D.PRINT_DATA), "text", r)), "print-data")
            expected = D.DRIVER.expected(plan(fabric, spec.name))
            for variant in (doc, _drifted(doc)):
                observed = parse_config_db(variant)
                _same_as_validated(observed)
                ports = list(observed.ports.values())
                assert len({id(p.queues) for p in ports}) < len(ports)  # shared (what the compare walk skips)
                assert len({id(p.dscp_to_tc) for p in ports}) <= 2
                previous = observed.model_copy(update={"ports": {n: _revalidated(p) for n, p in
                                                                 observed.ports.items()}})
                assert compare(expected, observed) == compare(expected, previous)
            assert compare(expected, parse_config_db(_drifted(doc)))  # the drift is found
            seen += 1
    assert seen >= 4


@pytest.mark.skipif(not FIX.is_dir(), reason="shared/fixtures/sonic is not present")
@pytest.mark.parametrize("name", ["config_db_buffers_mellanox4600c_t1.json", "config_db_qos_dell9332.json",
                                  "config_db_qos_mellanox4600c_c64.json"])
def test_real_config_db_ports_equal_validated_copies(name: str) -> None:
    doc = D._load((FIX / name).read_text(), name)
    _same_as_validated(parse_config_db(doc))
    _same_as_validated(parse_config_db(_drifted(doc)))


def bgp_before(r: Any, addresses: dict[str, str]) -> ObservedBgp | None:
    """``_Reader.bgp`` as it was (main at c2d29b6), verbatim: one ObservedBgpNeighbor per neighbour."""
    meta = r.t("DEVICE_METADATA").get("localhost", {})
    table = r.t("BGP_NEIGHBOR")
    if not table and "bgp_asn" not in meta and not r.t("BGP_GLOBALS"):
        return None
    local_port = {prefix.split("/")[0]: port for port, prefix in addresses.items()}
    neighbors = sorted((ObservedBgpNeighbor(ip=key.rsplit("|", 1)[-1], remote_asn=C._int(f.get("asn")),
                                            port=local_port.get(f.get("local_addr", ""), ""),
                                            description=f.get("name", ""))
                        for key, f in table.items()), key=lambda n: ip_sort_key(n.ip or ""))
    out: dict[str, Any] = {"neighbors": neighbors}
    instance = r.t("BGP_GLOBALS").get("default", {})
    asn = instance.get("local_asn", meta.get("bgp_asn"))
    router_id = instance.get("router_id", meta.get("bgp_router_id"))
    if asn is not None:
        out["asn"] = C._int(asn)
    if router_id is not None:
        out["router_id"] = router_id
    if r.t("BGP_GLOBALS") or r.t("BGP_GLOBALS_AF_NETWORK"):
        ours = "default|ipv4_unicast|"
        nets = [k.removeprefix(ours) for k in r.t("BGP_GLOBALS_AF_NETWORK") if k.startswith(ours)]
        out["networks"] = sorted(set(nets), key=C._prefix_key)
    return ObservedBgp(**out)


def _bgp_variants(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield doc
    neighbors = doc.get("BGP_NEIGHBOR") or {}
    # unsorted, VRF-keyed, without asn/name/local_addr, IPv6, no BGP_GLOBALS (DEVICE_METADATA's bgp_asn then)
    odd = {f"default|{k}" if n % 2 else k: ({} if n % 3 == 0 else v) for n, (k, v) in
           enumerate(reversed(list(neighbors.items())))}
    odd["fc00::1"] = {"asn": "65001", "name": "v6"}
    yield {**{k: v for k, v in doc.items() if k != "BGP_GLOBALS"}, "BGP_NEIGHBOR": odd}
    yield {k: v for k, v in doc.items() if k not in ("BGP_NEIGHBOR", "BGP_GLOBALS", "BGP_GLOBALS_AF_NETWORK")}


def _config_dbs() -> Iterator[dict[str, Any]]:
    for _, outputs in lab_outputs():
        yield D._load(outputs[D.PRINT_DATA], "print-data")
    if FIX.is_dir():
        for name in ("config_db_buffers_mellanox4600c_t1.json", "config_db_qos_dell9332.json",
                     "config_db_qos_mellanox4600c_c64.json"):
            yield D._load((FIX / name).read_text(), name)


def test_bgp_equals_the_previous_reader() -> None:
    seen = 0
    for doc in _config_dbs():
        for variant in _bgp_variants(doc):
            r = C._Reader(variant)
            addresses = r.addresses()
            after, before = r.bgp(addresses), bgp_before(r, addresses)
            assert after == before
            assert (after is None) == (before is None)
            if after is not None and before is not None:
                assert after.model_fields_set == before.model_fields_set
                assert [n.model_fields_set for n in after.neighbors or []] == [
                    n.model_fields_set for n in before.neighbors or []]
                seen += bool(after.neighbors)
    assert seen >= 8
