"""The lab speaks gNMI: a SONiC lab switch serves sonic-gnmi's COUNTERS_DB paths on its loopback address, with the
counters its SSH ``show`` prints, moved by pause_storm and crc_errors; faults and credentials apply to gNMI too."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from labtools import free_endpoint_base, lab_mini, netmiko_connect

pytest.importorskip("grpc")
pygnmi_client = pytest.importorskip("pygnmi.client")

from roceops.lab.fabric_specs import lab_specs  # noqa: E402
from roceops.lab.runtime import LabThread  # noqa: E402

pytestmark = pytest.mark.lab
LEAF = "leaf-su1-r1"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabThread]:
    base, port = free_endpoint_base()
    specs = lab_specs(lab_mini(), [LEAF, "spine01", "gpu001"], configured=True)
    with LabThread(specs, Path(tmp_path_factory.mktemp("gnmi-lab")), base_address=base, port=port) as running:
        yield running


@pytest.fixture(autouse=True)
def _clean(lab: LabThread) -> Iterator[None]:
    yield
    lab.clear()


def _client(lab: LabThread, user: str = "admin") -> object:
    o = lab.overlay[LEAF]
    return pygnmi_client.gNMIclient(target=(o["host"], o["gnmi_port"]), username=user, password="lab",
                                    insecure=True, gnmi_timeout=5)


def _get(lab: LabThread, path: str, user: str = "admin") -> object:
    with _client(lab, user) as gc:
        reply = gc.get(path=[path], target="COUNTERS_DB", encoding="json_ietf")
    return reply["notification"][0]["update"][0]["val"]


def _ssh_pfc_rx(lab: LabThread, port: str, prio: int) -> int:
    conn = netmiko_connect(lab, LEAF, "sonic")
    try:
        text = conn.send_command("show pfc counters")
    finally:
        conn.disconnect()
    rx_block = text.split("Port Tx")[0]
    row = next(line for line in rx_block.splitlines() if re.match(rf"\s*{port}\s", line))
    return int(row.split()[1 + prio].replace(",", ""))


def test_only_switches_with_a_gnmi_path_table_serve_gnmi(lab: LabThread) -> None:
    assert lab.overlay[LEAF]["gnmi_port"] > 0
    assert "gnmi_port" not in lab.overlay["gpu001"]  # hosts: NIC counters stay on SSH/sysfs
    assert lab.overlay[LEAF]["host"].startswith("127.")


def test_gnmi_shows_the_counters_ssh_shows(lab: LabThread) -> None:
    before = _ssh_pfc_rx(lab, "Ethernet0", 3)
    via_gnmi = int(_get(lab, "COUNTERS/Ethernet0")["SAI_PORT_STAT_PFC_3_RX_PKTS"])  # type: ignore[index]
    after = _ssh_pfc_rx(lab, "Ethernet0", 3)
    assert before <= via_gnmi <= after
    every = _get(lab, "COUNTERS/Ethernet*")
    assert isinstance(every, dict) and "Ethernet0" in every and "SAI_PORT_STAT_PFC_7_TX_PKTS" in every["Ethernet0"]
    queues = _get(lab, "COUNTERS/Ethernet*/Queues")
    assert isinstance(queues, dict) and int(queues["Ethernet0:3"]["SAI_QUEUE_STAT_PACKETS"]) > 0


def test_pause_storm_and_crc_errors_move_the_gnmi_counters(lab: LabThread) -> None:
    def read() -> tuple[int, int, int]:
        port = _get(lab, "COUNTERS/Ethernet0")
        wd = _get(lab, "COUNTERS/Ethernet*/Pfcwd")
        assert isinstance(port, dict) and isinstance(wd, dict)
        return (int(port["SAI_PORT_STAT_PFC_3_RX_PKTS"]), int(port["SAI_PORT_STAT_IF_IN_ERRORS"]),
                int(wd["Ethernet0:3"]["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"]))

    pfc0, crc0, wd0 = read()
    lab.inject(LEAF, "pause_storm", port="Ethernet0")
    lab.inject(LEAF, "crc_errors", port="Ethernet0")
    time.sleep(0.3)
    pfc1, crc1, wd1 = read()
    assert pfc1 - pfc0 > 10_000 and crc1 > crc0 and wd1 == wd0 + 1
    lab.clear(LEAF)
    pfc2, _, _ = read()
    time.sleep(0.3)
    pfc3, _, _ = read()
    assert pfc3 - pfc2 < 100  # back to the healthy ~2 frames/s


# pygnmi's subscription thread re-raises the CANCELLED its channel's close causes
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_stream_sample_mode_streams_at_the_asked_interval(lab: LabThread) -> None:
    sub = {"subscription": [{"path": "COUNTERS/Ethernet*", "mode": "sample", "sample_interval": 200_000_000}],
           "mode": "stream", "encoding": "json_ietf"}
    with _client(lab) as gc:
        stream = gc.subscribe_stream(subscribe=sub, target="COUNTERS_DB")
        try:
            first = stream.get_update(5)
            t0 = time.monotonic()
            stream.get_update(5)
            stream.get_update(5)
            elapsed = time.monotonic() - t0
        finally:
            stream.close()
    # the stream's thread ends with CANCELLED only when the channel closes (the `with` above); waited for here so
    # the exception is this test's (filtered above), not reported against the next test
    stream._subscribe_thread.join(10)
    assert "Ethernet0" in first["update"]["update"][0]["val"]
    assert 0.3 <= elapsed < 2.0


def test_faults_and_credentials_apply_to_gnmi(lab: LabThread) -> None:
    with pytest.raises(pygnmi_client.gNMIException, match="authentication failed"):
        _get(lab, "COUNTERS/Ethernet0", user="intruder")
    lab.inject(LEAF, "auth_reject")
    with pytest.raises(pygnmi_client.gNMIException, match="authentication failed"):
        _get(lab, "COUNTERS/Ethernet0")
    lab.clear(LEAF)
    lab.inject(LEAF, "refuse")
    with pytest.raises(pygnmi_client.gNMIException, match="refused"):
        _get(lab, "COUNTERS/Ethernet0")
    lab.clear(LEAF)
    with pytest.raises(pygnmi_client.gNMIException, match="not a valid sonic interface"):
        _get(lab, "COUNTERS/Ethernet999")
    assert json.dumps(_get(lab, "COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_3_RX_PKTS")).count("PFC_3") == 1
