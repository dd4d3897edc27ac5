"""The simulated host's lldpd client: ``lldpcli show neighbors [details] -f json`` (also ``-f json`` first).

What each NIC hears is the peer at the other end of its cable (the physical layer's neighbour, which the lab's
``rail_swap`` fault moves), while the link is up. The JSON follows lldpd's own writer
(lldpd/lldpd ``src/client/json_writer.c`` @ 06987a24: a tag seen once is an object, repeated tags an array; an
object holding ``name`` is re-keyed by it, so one neighbour gives ``"interface": {"eth0": {...}}`` and several
``"interface": [{"eth0": {...}}, {"eth1": {...}}]``; field names as in lldpd's ``tests/integration/
test_lldpcli.py`` @ 4c8e6e37). A switch announces its port as PortID subtype ifname (the lab's choice; SONiC,
EOS and Cumulus each pick their own subtype).
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any

from roceops.lab.devices.linux_mlx5.shell import Result, fail

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.shell import Shell


def _chassis_mac(device: str) -> str:
    seed = zlib.crc32(device.encode())
    return "0c:42:a1:{:02x}:{:02x}:{:02x}".format(*seed.to_bytes(4, "big")[1:])


def _neighbor(local: str, device: str, port: str) -> dict[str, Any]:
    return {local: {"via": "LLDP", "rid": "1", "age": "0 day, 01:00:00",
                    "chassis": {device: {"id": {"type": "mac", "value": _chassis_mac(device)},
                                         "descr": "roceops lab switch", "capability": [
                                             {"type": "Bridge", "enabled": True},
                                             {"type": "Router", "enabled": True}]}},
                    "port": {"id": {"type": "ifname", "value": port}, "descr": port, "ttl": "120"}}}


def lldpcli(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    fmt = "plain"
    if "-f" in args:
        i = args.index("-f")
        if i + 1 >= len(args):
            return fail("lldpcli: option requires an argument -- 'f'")
        fmt = args[i + 1]
        del args[i:i + 2]
    if args[:2] != ["show", "neighbors"] or len(args) > 3 or args[2:] not in ([], ["details"]):
        return fail(f"lldpcli: unknown command: {' '.join(args) or '(none)'}")
    if fmt != "json":
        return fail(f"lldpcli: the lab answers -f json only (asked: {fmt})")
    st = sh.state
    found = [_neighbor(nic.name, *st.physical.ports[nic.name].neighbor)  # type: ignore[misc]
             for nic in sorted(st.host.nics.values(), key=lambda n: n.name)
             if st.physical.ports[nic.name].neighbor is not None and st.nic_up(nic)]
    interface: Any = found[0] if len(found) == 1 else found
    body: dict[str, Any] = {"lldp": {"interface": interface} if found else {}}
    return Result(out=json.dumps(body, indent=2) + "\n")


PROGRAMS = {"lldpcli": lldpcli}
