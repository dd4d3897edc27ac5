"""One host's NIC counters over the existing SSH/sysfs path: a kept-open session (the room's read-only
``collect_counters`` commands, parsed by the room's ``operational``), one sample per interval. The alternative
without SSH, node_exporter's textfile collector, is described in docs/monitoring.md."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from nornir.core.configuration import Config
from nornir.core.inventory import Host as NornirHost

from roceops.device.intent import HostIntent
from roceops.device.oper import OperState, for_intent
from roceops.platforms.base import get_driver
from roceops.platforms.gnmi_paths import Reading
from roceops.telemetry.gnmi_worker import Backoff, describe
from roceops.telemetry.store import Store
from roceops.telemetry.targets import Target

log = logging.getLogger("roceops.telemetry")

CONNECT_TIMEOUT_S = 5.0
# neutral OperState counter -> exported metric (names of the NIC's hw_counters: the room's operational())
NIC_COUNTERS = {"cnp_sent": "nic_cnp_sent_total", "cnp_handled": "nic_cnp_handled_total",
                "ecn_marked": "nic_ecn_marked_packets_total", "carrier_changes": "link_flaps_total"}
# RoCE transport error counters, exported as nic_transport_errors_total{counter}: the names the host room's
# operational() reads from the NIC's hw_counters (domain.md §7.2; the room's hw_counters.py has their sources)
TRANSPORT_COUNTERS = ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
                      "out_of_buffer")


def host_readings(target: Target, state: OperState) -> Iterator[Reading]:
    """Readings of one host sample: per NIC (``port`` = netdev, ``rail`` = its rail)."""
    for netdev, port in sorted(state.ports.items()):
        where = (("port", netdev), ("rail", target.nic_rails.get(netdev, "")))
        counters = port.counters
        for neutral, metric in NIC_COUNTERS.items():
            if neutral in counters:
                yield Reading(metric, where, float(counters[neutral]))
        for name in TRANSPORT_COUNTERS:
            if name in counters:
                yield Reading("nic_transport_errors_total", (*where, ("counter", name)), float(counters[name]))
        for key, value in counters.items():
            if key.startswith(("pfc_rx_", "pfc_tx_")) and key[-1].isdigit():
                prio, direction = int(key[-1]), key[4:6]
                if value or prio in target.lossless_priorities:
                    yield Reading("pfc_pause_frames_total",
                                  (*where, ("priority", str(prio)), ("direction", direction)), float(value))


class HostWorker(threading.Thread):
    def __init__(self, target: Target, intent: HostIntent, host: NornirHost, store: Store, interval_s: float,
                 stop: threading.Event, retry_s: tuple[float, float] = (1.0, 60.0)) -> None:
        super().__init__(name=f"ssh-{target.name}", daemon=True)
        self.target, self.intent, self.host, self.store = target, intent, host, store
        self.interval_s, self.stop, self.retry_s = interval_s, stop, retry_s
        self.last_error = ""
        self._conn: Any = None

    def run(self) -> None:
        backoff = Backoff(*self.retry_s)
        while not self.stop.is_set():
            got = False
            try:
                got = self._session()
            except Exception as exc:  # one host's failure is that host's: log, back off, reconnect
                self.last_error = describe(exc)
                if not self.stop.is_set():
                    log.warning("%s: SSH sampling ended: %s", self.target.name, self.last_error)
            finally:
                self.close()
            self.store.down(self.target.name)
            if got:
                backoff.reset()
            self.stop.wait(backoff.next())

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.disconnect()
            except Exception as exc:  # a session that died under us
                log.debug("%s: disconnect: %s", self.target.name, exc)
            self.host.connections.pop("netmiko", None)

    def _session(self) -> bool:
        from roceops.nornir_glue.runner import connect_host

        extras = self.host.connection_options["netmiko"].extras
        assert extras is not None
        extras.update(conn_timeout=CONNECT_TIMEOUT_S, auth_timeout=CONNECT_TIMEOUT_S,
                      banner_timeout=CONNECT_TIMEOUT_S, read_timeout_override=max(2.0, self.interval_s))
        self._conn = connect_host(self.host, Config())
        driver = get_driver(self.intent.platform)
        got = False
        while not self.stop.is_set():
            t0 = time.monotonic()
            outputs = driver.collect_counters(self._conn, self.intent)
            state = for_intent(driver.operational(outputs), self.intent)
            self.store.put(self.target.name, host_readings(self.target, state))
            got = True
            self.stop.wait(max(0.0, self.interval_s - (time.monotonic() - t0)))
        return got
