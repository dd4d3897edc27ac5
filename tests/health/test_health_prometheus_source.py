"""health --counters-from's reader: Prometheus' matrix of a leaf's series becomes two samples and a window; a leaf
that is down in the collector, missing, or a Prometheus that cannot be asked leaves the leaf unknown, never ok."""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from test_counter_reads import intents

from roceops.health.prometheus_source import leaf_samples

PLACE = {"tier": "leaf", "su": "1", "rail": "1"}


def _series(metric: str, labels: dict[str, str], points: list[tuple[float, str]]) -> dict[str, Any]:
    return {"metric": {"__name__": metric, "device": "leaf-su1-r1", **PLACE, **labels},
            "values": [[t, v] for t, v in points]}


ANSWERS: dict[str, list[dict[str, Any]]] = {
    "target_up": [{"metric": {"device": "leaf-su1-r1"}, "value": [100.0, "1"]},
                  {"metric": {"device": "leaf-su1-r2"}, "value": [100.0, "0"]}],
    "range": [
        _series("roceops_pfc_pause_frames_total", {"port": "Ethernet0", "priority": "3", "direction": "rx"},
                [(95.0, "100"), (96.0, "150"), (98.0, "100100")]),
        _series("roceops_pfcwd_storms_total", {"port": "Ethernet0", "queue": "3"}, [(95.0, "1"), (98.0, "2")]),
        _series("roceops_pfcwd_storms_total", {"port": "Ethernet0", "queue": "4"}, [(95.0, "0"), (98.0, "1")]),
        _series("roceops_port_rx_errors_total", {"port": "Ethernet8"}, [(95.0, "0"), (98.0, "9")]),  # not asked
    ],
}


class _Prometheus(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)["query"][0]
        result = ANSWERS["target_up"] if query.startswith("roceops_target_up") else ANSWERS["range"]
        body = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def prometheus() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Prometheus)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_series_become_two_samples_over_their_window(prometheus: str) -> None:
    got = leaf_samples(prometheus, {"leaf-su1-r1": {"Ethernet0"}}, 3.0, 5.0)["leaf-su1-r1"]
    assert got.error is None and got.counters_only and got.window_s == 3.0
    assert got.first is not None and got.second is not None
    assert got.first.ports["Ethernet0"].counters == {"pfc_rx_3": 100, "pfcwd_storms": 1}
    assert got.second.ports["Ethernet0"].counters == {"pfc_rx_3": 100100, "pfcwd_storms": 3}  # queues add up
    assert "Ethernet8" not in got.second.ports


def test_a_leaf_the_collector_cannot_reach_is_unknown(prometheus: str) -> None:
    got = leaf_samples(prometheus, {"leaf-su1-r2": {"Ethernet0"}, "leaf-su9-r9": {"Ethernet0"}}, 3.0, 5.0)
    assert "roceops_target_up 0" in (got["leaf-su1-r2"].error or "")
    assert "roceops_target_up absent" in (got["leaf-su9-r9"].error or "")
    assert got["leaf-su1-r2"].second is None


def test_an_unreachable_prometheus_makes_every_leaf_unknown() -> None:
    got = leaf_samples("http://127.0.0.1:1", {"leaf-su1-r1": {"Ethernet0"}}, 3.0, 1.0)
    assert "Prometheus at http://127.0.0.1:1" in (got["leaf-su1-r1"].error or "")


def test_leaf_port_is_skipped_from_prometheus_and_the_report_says_why() -> None:
    """The store holds counters only (no port state, speed, MTU, PFC or ECN settings): leaf.port is not run from
    it, and the health table names the check, how many ports and why, under the verdicts (which never count a
    skipped check)."""
    import io

    from rich.console import Console

    from roceops.device.oper import OperState, PortOper
    from roceops.health.catalog import LeafPort, LinkContext, Sample
    from roceops.health.engine import HealthReport, verdicts
    from roceops.health.model import Thresholds
    from roceops.health.report import print_table
    from roceops.topology.fabric import Host

    host, leaf = intents()
    nic = next(iter(host.nics.values()))
    port = PortOper(name=nic.leaf_port, counters={"pfc_rx_3": 1})
    counters = OperState(device=leaf.name, ports={nic.leaf_port: port})
    ctx = LinkContext(node=host.name, nic=nic, host=Sample(), leaf=leaf, leaf_port=leaf.ports[nic.leaf_port],
                      switch=Sample(first=counters, second=counters, window_s=1.0, counters_only=True),
                      thresholds=Thresholds())
    [result] = LeafPort().test(ctx)
    assert result.status == "skipped" and "holds counters only" in result.message
    node = Host.model_construct(name=host.name, nics=[])
    report = HealthReport(nodes=[host.name], results=[result], verdicts=verdicts([node], [result]), seconds=0.1,
                          devices=2)
    assert report.verdicts[0].status == "ok"  # a skipped check never drains nor makes a node unknown
    out = io.StringIO()
    print_table(Console(file=out, width=400), report)
    assert f"not checked: leaf.port on 1 item: {result.message}" in out.getvalue()
