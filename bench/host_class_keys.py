"""Bench: a ConnectX host's render context and persisted-files class key, in one process, old way and new way side by
side (``timeit.repeat`` min): ``render.render_context`` (a ``nic_context`` per NIC) against the platform's
(``nic_classes``: once per class of NICs), and the host class key built, looked up and stored as a tuple against as a
``ClassKey``, over the hosts of ``lab_fabric(SUS)``.

Run: python bench/host_class_keys.py [SUS] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import lab_fabric

    from roceops.device.intent import HostIntent
    from roceops.plan import plan
    from roceops.platforms.linux_mlx5 import nic_classes, persisted, render
    from roceops.topology.expand import expand

    fabric = expand(lab_fabric(args.sus))
    intents = [i for h in fabric.hosts if isinstance(i := plan(fabric, h.name), HostIntent)]
    contexts = [(i, nic_classes.render_context(i)) for i in intents]
    wanted = tuple(render.PERSISTED)

    def rest(context: dict[str, Any]) -> tuple[Any, ...]:
        return tuple((k, v) for k, v in sorted(context.items()) if k in persisted.MARKED_CONTEXT - {"host", "nics"})

    def tuple_keys() -> None:
        found: dict[Any, int] = {}
        for intent, context in contexts:
            key = (wanted, intent.model, intent.roce_mtu, tuple(persisted._nic_key(n) for n in context["nics"]),
                   rest(context))
            found.get(key)
            found[key] = 1

    def class_keys() -> None:
        found: dict[Any, int] = {}
        for intent, context in contexts:
            nics = context["nics"]
            key = nic_classes.ClassKey((wanted, intent.model, intent.roce_mtu, tuple(n.netdev for n in nics),
                                        tuple(persisted._nic_key(n) for n in nics), rest(context)), 4)
            found.get(key)
            found[key] = 1

    def per_host(run: Any) -> float:
        return min(timeit.repeat(run, number=1, repeat=args.repeat)) / len(intents) * 1e6

    for _ in range(2):
        old = per_host(lambda: [render.render_context(i) for i in intents])
        new = per_host(lambda: [nic_classes.render_context(i) for i in intents])
        print(f"render context: nic_context a NIC {old:6.1f}  nic_classes {new:6.1f} us a host, {len(intents)} hosts")
        print(f"host class key: tuple {per_host(tuple_keys):6.1f}  ClassKey {per_host(class_keys):6.1f} us a host")


if __name__ == "__main__":
    main()
