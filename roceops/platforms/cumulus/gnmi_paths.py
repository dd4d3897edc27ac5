"""Cumulus Linux (5.14+, NVUE's gNMI server) counters over gNMI: OpenConfig leaves into neutral readings.

=========================================================================================  ===========================
leaf (wildcarded keys)                                                                      reading
=========================================================================================  ===========================
``qos/interfaces/interface[interface-id]/switch-priority[priority]/state/counters/``
``in-pause-pkts`` / ``out-pause-pkts``                                                      pfc_pause_frames_total
                                                                                            {port,priority,direction}
``qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/ecn-marked-pkts``  ecn_marked_packets_total
                                                                                            {port,queue}
``qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/``
``no-buffer-uc-dropped-pkts``                                                               queue_drops_total
                                                                                            {port,queue,lossless}
``interfaces/interface[name]/state/counters/in-errors``                                     port_rx_errors_total{port}
``interfaces/interface[name]/state/counters/carrier-transitions``                           link_flaps_total{port}
=========================================================================================  ===========================

Source: the metric tables of "gNMI Streaming", Cumulus Linux 5.14 and 5.16 user guides,
https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/Monitoring-and-Troubleshooting/gNMI-Streaming/
(CumulusNetworks/docs ``content/cumulus-linux-514/Monitoring-and-Troubleshooting/gNMI Streaming.md``
@0dc9a0b249a82300940a9bc853a67344b6bb48cb and ``content/cumulus-linux-516/...``
@1a0006d8ac1ad9cf025e24dcaba5a45d56a40013):
the QoS and Interface tabs list each leaf above; wildcard keys (``[interface-id=*]``) are supported, regexes are not;
STREAM with sample_interval; JSON and JSON_IETF encodings; dial-in port 9339 by default. The 5.14 page's note names
``.../state/switch-priority[priority]/counters/`` as the 5.14 form of the pause counters while its table (and 5.16's)
list ``.../switch-priority[priority]/state/counters/``: roceops subscribes to the table's form, **unconfirmed on a
switch**. Queue names are the traffic-class numbers in the page's example (``queue[name=1]``). ECN marks read 0
while the ECN counter is not enabled (the page says so). Queue drops are the no-buffer unicast drops (a lossless
queue's loss); WRED drops (``wred-dropped-pkts``) are not exported. Not streamed: PFC watchdog storms (no
watchdog leaf in the page's tables; the series stays absent, never 0).
"""

from __future__ import annotations

from roceops.platforms.gnmi_openconfig import Leaf, gnmi_paths

_QOS = "qos/interfaces/interface[interface-id=*]"
_PORT = (("port", "interface-id"),)
LEAVES = (
    Leaf(f"{_QOS}/switch-priority[priority=*]/state/counters/in-pause-pkts", "pfc_pause_frames_total",
         (*_PORT, ("priority", "priority")), (("direction", "rx"),)),
    Leaf(f"{_QOS}/switch-priority[priority=*]/state/counters/out-pause-pkts", "pfc_pause_frames_total",
         (*_PORT, ("priority", "priority")), (("direction", "tx"),)),
    Leaf(f"{_QOS}/output/queues/queue[name=*]/state/ecn-marked-pkts", "ecn_marked_packets_total",
         (*_PORT, ("queue", "name"))),
    Leaf(f"{_QOS}/output/queues/queue[name=*]/state/no-buffer-uc-dropped-pkts", "queue_drops_total",
         (*_PORT, ("queue", "name"))),
    Leaf("interfaces/interface[name=*]/state/counters/in-errors", "port_rx_errors_total", (("port", "name"),)),
    Leaf("interfaces/interface[name=*]/state/counters/carrier-transitions", "link_flaps_total", (("port", "name"),)),
)
GNMI = gnmi_paths(LEAVES, default_port=9339)
