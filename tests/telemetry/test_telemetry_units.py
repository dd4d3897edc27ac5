"""The collector's parts without a network: the SONiC room's decoding, what is exported (lossy zeros not, lossless
queues labelled), the store's bounds, the shard split, and that the CLI starts without grpc."""

from __future__ import annotations

import subprocess
import sys

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from roceops.platforms.gnmi_paths import Interest, Reading
from roceops.platforms.sonic.gnmi_paths import GNMI, decode
from roceops.telemetry.gnmi_worker import Backoff, readings_of
from roceops.telemetry.store import Store
from roceops.telemetry.targets import Target
from roceops.util.shard import shard_of

LEAF = Target("leaf-su1-r1", "sonic", "gnmi", "127.0.0.1", 1, ("leaf-su1-r1", "leaf", "1", "1"),
              lossless_priorities=frozenset({3}), lossless_queues=frozenset({3}))


def test_sonic_updates_decode_into_neutral_readings() -> None:
    ports = {"Ethernet0": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "12", "SAI_PORT_STAT_PFC_3_TX_PKTS": "4",
                           "SAI_PORT_STAT_IF_IN_ERRORS": "9"}, "Ethernet8": "not a dict"}
    got = list(decode("COUNTERS/Ethernet*", ports))
    assert got == [Reading("port_rx_errors_total", (("port", "Ethernet0"),), 9.0),
                   Reading("pfc_pause_frames_total", (("port", "Ethernet0"), ("priority", "3"), ("direction", "rx")),
                           12.0),
                   Reading("pfc_pause_frames_total", (("port", "Ethernet0"), ("priority", "3"), ("direction", "tx")),
                           4.0)]
    queues = {"Ethernet0:3": {"SAI_QUEUE_STAT_DROPPED_PACKETS": "5", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "7"},
              "bad-key": {"SAI_QUEUE_STAT_DROPPED_PACKETS": "1"}, "Ethernet0:x": {"SAI_QUEUE_STAT_PACKETS": "1"}}
    assert {(r.metric, r.value) for r in decode("/COUNTERS/Ethernet*/Queues", queues)} == {
        ("queue_drops_total", 5.0), ("ecn_marked_packets_total", 7.0)}
    assert list(decode("COUNTERS/Ethernet*/Unknown", ports)) == []
    assert list(decode("COUNTERS/Ethernet*", ["not", "a", "map"])) == []


def test_lossy_zero_counters_are_not_exported_and_drops_say_lossless() -> None:
    want = Interest(priorities=frozenset({3}), queues=frozenset({3}))
    fields = {f"SAI_PORT_STAT_PFC_{p}_RX_PKTS": "0" for p in range(8)} | {"SAI_PORT_STAT_PFC_0_RX_PKTS": "2"}
    prios = {dict(r.labels)["priority"] for r in decode("COUNTERS/Ethernet*", {"Ethernet0": fields}, want)
             if r.metric == "pfc_pause_frames_total"}
    assert prios == {"3", "0"}  # lossless from zero on (rate() sees the first frames); lossy once it moves
    queues = {"Ethernet0:3": {"SAI_QUEUE_STAT_DROPPED_PACKETS": "0"}, "Ethernet0:0": {
        "SAI_QUEUE_STAT_DROPPED_PACKETS": "4"}, "Ethernet0:1": {"SAI_QUEUE_STAT_DROPPED_PACKETS": "0"}}
    drops = {dict(r.labels)["queue"]: dict(r.labels)["lossless"] for r in decode("COUNTERS/Ethernet*/Queues",
                                                                                  queues, want)}
    assert drops == {"3": "true", "0": "false"}


def test_pygnmi_updates_of_unknown_paths_are_ignored() -> None:
    update = {"update": {"update": [{"path": "COUNTERS/Ethernet*", "val": {"Ethernet0": {
        "SAI_PORT_STAT_PFC_3_RX_PKTS": "1"}}}, {"path": "SOMETHING/else", "val": {}}]}}
    got = list(readings_of(LEAF, GNMI, update))
    assert [path for path, _ in got] == ["COUNTERS/Ethernet*"] and len(got[0][1]) == 1


def _exposition(store: Store) -> str:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(store.registry_collector)
    return store.counter_text() + generate_latest(registry).decode()


def test_store_is_bounded_and_keeps_the_last_sample_only() -> None:
    store = Store(max_series=10)
    store.register("leaf-su1-r1", "sonic", LEAF.place)
    many = [Reading("pfc_pause_frames_total", (("port", f"Ethernet{i}"), ("priority", "3"), ("direction", "rx")),
                    float(i)) for i in range(25)]
    for _ in range(50):  # a long run: still one sample per part
        assert store.put("leaf-su1-r1", many, part="ports") == 10
    assert store.series_count() == 10
    assert store.put("leaf-su1-r1", many[:3], part="queues") == 0  # the device's cap covers all its parts
    text = _exposition(store)
    assert "roceops_telemetry_dropped_series_total 753.0" in text
    assert 'roceops_target_up{device="leaf-su1-r1",platform="sonic",rail="1",su="1",tier="leaf"} 1.0' in text


def test_a_down_device_keeps_its_last_counters_and_says_so() -> None:
    store = Store()
    store.register("gpu001", "linux_mlx5", ("gpu001", "host", "1", ""), own_place=True)
    store.put("gpu001", [Reading("nic_cnp_sent_total", (("port", "eth1"), ("rail", "2")), 7.0)])
    store.down("gpu001")
    text = _exposition(store)
    assert 'roceops_target_up{device="gpu001",platform="linux_mlx5",rail="",su="1",tier="host"} 0.0' in text
    # a NIC's rail overrides the host's empty one
    assert 'roceops_nic_cnp_sent_total{device="gpu001",port="eth1",rail="2",su="1",tier="host"} 7.0' in text


def test_backoff_doubles_to_its_cap_and_resets() -> None:
    b = Backoff(1.0, 8.0)
    delays = [b.next() for _ in range(6)]
    assert 0.8 <= delays[0] <= 1.2 and 6.4 <= delays[-1] <= 9.6 and delays[3] >= 6.4
    b.reset()
    assert b.next() <= 1.2


def test_shards_split_every_device_into_exactly_one() -> None:
    names = [f"leaf-su{s}-r{r}" for s in range(1, 65) for r in range(1, 9)]
    owners = {n: [i for i in range(1, 5) if shard_of(n, 4) == i] for n in names}
    assert all(len(v) == 1 for v in owners.values())
    sizes = [sum(1 for v in owners.values() if v == [i]) for i in range(1, 5)]
    assert min(sizes) > len(names) / 4 * 0.8  # roughly even
    # a device keeps its shard when others leave the selection (a long-running collector's property)
    assert all(shard_of(n, 4) == owners[n][0] for n in names[::7])


def test_the_cli_starts_without_grpc() -> None:
    code = "import sys; import roceops.cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] in " \
           "('grpc', 'pygnmi', 'google')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_gnmi_credentials_come_from_the_environment_and_stay_out_of_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    from roceops.telemetry.collector import gnmi_settings

    for name in ("ROCEOPS_USERNAME", "ROCEOPS_PASSWORD", "ROCEOPS_GNMI_INSECURE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ROCEOPS_GNMI_USERNAME", "telemetry")
    monkeypatch.setenv("ROCEOPS_GNMI_PASSWORD", "s3cret-pw")
    monkeypatch.setenv("ROCEOPS_GNMI_CA", "/etc/roceops/ca.pem")
    settings = gnmi_settings(10.0)
    assert (settings.username, settings.password, settings.root_ca, settings.insecure) == (
        "telemetry", "s3cret-pw", "/etc/roceops/ca.pem", False)
    assert "s3cret-pw" not in repr(settings)
    monkeypatch.delenv("ROCEOPS_GNMI_PASSWORD")
    monkeypatch.setenv("ROCEOPS_PASSWORD", "ssh-pw")  # the SSH password is the fallback
    assert gnmi_settings(10.0).password == "ssh-pw"
    assert gnmi_settings(1.0, "admin").insecure  # the lab: plaintext gRPC on loopback


def test_openconfig_leaves_of_a_notification_merge_into_their_subscription_part() -> None:
    from roceops.platforms.eos.gnmi_paths import GNMI as EOS

    eos_leaf = Target("leaf-su1-r1", "eos", "gnmi", "127.0.0.1", None, LEAF.place, frozenset({3}), frozenset({3}))
    pfc = "interfaces/interface[name=Ethernet1]/ethernet/pfc/priorities/priority[index={}]/state/in-frames"
    first = {"update": {"update": [{"path": pfc.format(3), "val": "5"}, {"path": pfc.format(0), "val": "0"},
                                   {"path": "interfaces/interface[name=Ethernet1]/state/counters/carrier-transitions",
                                    "val": 2}, {"path": "system/state/hostname", "val": "x"}]}}
    got = dict(readings_of(eos_leaf, EOS, first))
    part = "interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state/in-frames"
    # priority 0 is lossy and zero: left out; the hostname is no leaf of the room's table
    assert got[part] == [Reading("pfc_pause_frames_total", (("port", "Ethernet1"), ("priority", "3"),
                                                            ("direction", "rx")), 5.0)]
    store = Store()
    store.register("leaf-su1-r1", "eos", LEAF.place)
    for p, readings in got.items():
        store.put("leaf-su1-r1", readings, part=p, merge=True)
    # a later notification with another port's leaf keeps Ethernet1's series
    second = {"update": {"prefix": "interfaces/interface[name=Ethernet2]", "update": [
        {"path": "ethernet/pfc/priorities/priority[index=3]/state/in-frames", "val": 9}]}}
    for p, readings in readings_of(eos_leaf, EOS, second):
        store.put("leaf-su1-r1", readings, part=p, merge=True)
    text = store.counter_text()
    assert 'roceops_pfc_pause_frames_total{device="leaf-su1-r1",direction="rx",port="Ethernet1",priority="3",' in text
    assert 'port="Ethernet2",priority="3",rail="1",su="1",tier="leaf"} 9.0' in text
    assert 'roceops_link_flaps_total{device="leaf-su1-r1",port="Ethernet1",rail="1",su="1",tier="leaf"} 2.0' in text



def test_parse_reads_a_notification_as_pygnmis_parser_does() -> None:
    import json

    from pygnmi.client import telemetryParser
    from pygnmi.create_gnmi_path import gnmi_path_generator
    from pygnmi.spec.v080 import gnmi_pb2 as pb

    from roceops.telemetry.gnmi_worker import parse

    ports = {"Ethernet0": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "12", "SAI_PORT_STAT_IF_IN_ERRORS": "1"}}
    leaf = "interfaces/interface[name=Ethernet1]/state/counters/carrier-transitions"
    response = pb.SubscribeResponse(update=pb.Notification(
        timestamp=1, prefix=gnmi_path_generator("", "COUNTERS_DB"),
        update=[pb.Update(path=gnmi_path_generator("COUNTERS/Ethernet*"),
                          val=pb.TypedValue(json_ietf_val=json.dumps(ports).encode())),
                pb.Update(path=gnmi_path_generator(leaf), val=pb.TypedValue(uint_val=7))]))
    ours, theirs = parse(response), telemetryParser(response)
    assert ours["update"]["update"] == theirs["update"]["update"]
    assert ours["update"]["update"][1] == {"path": leaf, "val": 7}
    assert list(readings_of(LEAF, GNMI, ours)) == list(readings_of(LEAF, GNMI, theirs))
