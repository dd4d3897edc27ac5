"""Arista EOS counters over gNMI (OpenConfig plus Arista's augments) into neutral readings.

=====================================================================================  ================================
leaf (wildcarded keys)                                                                 reading
=====================================================================================  ================================
``interfaces/interface[name]/ethernet/pfc/priorities/priority[index]/state/in-frames``  pfc_pause_frames_total
/ ``out-frames`` (arista-intf-augments)                                                {port,priority,direction}
``qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/``
``ecn-marked-pkts``                                                                    ecn_marked_packets_total
                                                                                       {port,queue}
``.../queue[name]/state/dropped-pkts``                                                 queue_drops_total
                                                                                       {port,queue,lossless}
``interfaces/interface[name]/ethernet/pfc/watchdog/tx-queues/``
``tx-queue[index][queue-type]/state/stuck-count`` (UNICAST queues)                     pfcwd_storms_total{port,queue}
``interfaces/interface[name]/state/counters/in-errors``                                port_rx_errors_total{port}
``interfaces/interface[name]/state/counters/carrier-transitions``                      link_flaps_total{port}
=====================================================================================  ================================

Sources: Arista's path report of EOS 4.34.2F, aristanetworks/yang ``EOS-4.34.2F/pathreport.csv``
@63be023aa565c8943ff74e746dfefa215df1c8d5 (every leaf above listed readable; ``ecn-marked-pkts`` "The ECN packets
count for this queue"); the PFC leaves and their keys from ``EOS-4.34.2F/release/openconfig/models/interfaces/
arista-intf-augments.yang`` (same commit; PFC counters since revision 2019-12-04, the watchdog's tx-queue list keyed
``index queue-type``, queue-type UNICAST/MULTICAST); ``carrier-transitions`` supported since
``arista-intf-deviations.yang`` revision 2022-12-10; the queue leaves from openconfig/public
``release/models/qos/openconfig-qos-interfaces.yang``@94f589629e1e88d0a8dbd2b3024f829196801f2e (``ecn-marked-pkts``
since 0.11.0, 2023-09-15). Port 6030: the gNMI port of arista-netdevops-community/gnmi_demo_with_arista_eos README
(``management api gnmi`` / ``transport grpc def``; its example subscriptions stream single leaves with keyed
paths). **Unconfirmed:** the names of EOS's output queues (``queue[name=...]``): roceops reads a name that is a
queue number as that queue and labels any other name as it is (never lossless).
"""

from __future__ import annotations

from roceops.platforms.gnmi_openconfig import Leaf, gnmi_paths

_ETH = "interfaces/interface[name=*]/ethernet/pfc"
_QUEUE = "qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state"
_PORT = (("port", "name"),)
LEAVES = (
    Leaf(f"{_ETH}/priorities/priority[index=*]/state/in-frames", "pfc_pause_frames_total",
         (*_PORT, ("priority", "index")), (("direction", "rx"),)),
    Leaf(f"{_ETH}/priorities/priority[index=*]/state/out-frames", "pfc_pause_frames_total",
         (*_PORT, ("priority", "index")), (("direction", "tx"),)),
    Leaf(f"{_QUEUE}/ecn-marked-pkts", "ecn_marked_packets_total", (("port", "interface-id"), ("queue", "name"))),
    Leaf(f"{_QUEUE}/dropped-pkts", "queue_drops_total", (("port", "interface-id"), ("queue", "name"))),
    Leaf(f"{_ETH}/watchdog/tx-queues/tx-queue[index=*][queue-type=*]/state/stuck-count", "pfcwd_storms_total",
         (*_PORT, ("queue", "index")), only=(("queue-type", "UNICAST"),)),
    Leaf("interfaces/interface[name=*]/state/counters/in-errors", "port_rx_errors_total", _PORT),
    Leaf("interfaces/interface[name=*]/state/counters/carrier-transitions", "link_flaps_total", _PORT),
)
GNMI = gnmi_paths(LEAVES, default_port=6030)
