"""roceops' public API for scripts: the functions the CLI itself runs, from a fabric file to config text and back.

``load`` a fabric file, ``expand`` it into every device, port and link, ``plan`` one device's vendor-neutral
intent, ``render`` its configuration files, and ``compare`` what a platform ``expected`` with what a device
shows. None of them does device I/O.

>>> from roceops import api
>>> from roceops.resources import example_fabric
>>> fabric = api.expand(api.load(example_fabric()))
>>> leaf = api.plan(fabric, "leaf-su1-r1")
>>> sorted(api.render(leaf))
['config_db.json']
>>> api.compare(api.expected(leaf), api.expected(leaf))  # a device exactly as planned: no drift
[]
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from roceops.device.compare import Drift
from roceops.device.compare import compare as _compare
from roceops.device.intent import Intent
from roceops.device.observed import Observed
from roceops.model.intent import FabricIntent
from roceops.model.loader import load as _load
from roceops.plan import plan as _plan
from roceops.platforms.base import get_driver
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand as _expand
from roceops.topology.fabric import Fabric

__all__ = ["compare", "expand", "expected", "load", "plan", "render"]


def load(path: Path | str) -> FabricIntent:
    """Read and validate a fabric file (``fabric.yaml``). A bad file raises
    :class:`roceops.model.loader.IntentError`, whose message names the file, line and field.

    >>> from roceops.resources import example_fabric
    >>> intent = load(example_fabric())
    >>> intent.name, intent.scalable_units.count, intent.tiers.leaf.platform
    ('lab-mini', 2, 'sonic')
    """
    return _load(path).intent


def expand(intent: FabricIntent) -> Fabric:
    """Every switch, host, NIC, port, cable and address of the fabric (pure and deterministic). A fabric that
    cannot be built raises :class:`roceops.topology.sizing.TopologyError` (or ``PoolExhausted``) naming its path.

    >>> from roceops.resources import example_fabric
    >>> fabric = expand(load(example_fabric()))
    >>> len(fabric.switches), len(fabric.hosts), fabric.device("gpu001").nics[0].leaf
    (6, 8, 'leaf-su1-r1')
    """
    return _expand(intent)


def plan(fabric: Fabric, device: str) -> Intent:
    """One device's DeviceIntent: a switch's or a host's vendor-neutral configuration. An unknown name raises
    ``KeyError``.

    >>> from roceops.resources import example_fabric
    >>> fabric = expand(load(example_fabric()))
    >>> host = plan(fabric, "gpu001")
    >>> host.kind, sorted(host.nics), host.nics["eth0"].pfc_priorities
    ('host', ['eth0', 'eth1'], [3])
    """
    return _plan(fabric, device)


def render(device: Intent) -> dict[str, str]:
    """The device's configuration files through its platform's templates: file name -> text.

    >>> from roceops.resources import example_fabric
    >>> fabric = expand(load(example_fabric()))
    >>> files = render(plan(fabric, "spine01"))
    >>> sorted(files)
    ['config.eos']
    >>> "hostname spine01" in files["config.eos"]
    True
    """
    return render_device(device).files


def expected(device: Intent) -> Observed:
    """The intent as the device's platform shows it (its driver's ``expected``): the Observed model a read-back
    of a correctly configured device gives, to :func:`compare` with what the device shows.

    >>> from roceops.resources import example_fabric
    >>> leaf = plan(expand(load(example_fabric())), "leaf-su1-r1")
    >>> expected(leaf).ports["Ethernet0"].mtu
    9216
    """
    return get_driver(device.platform).expected(device)


def compare(expected: Observed, observed: Observed, skip: Collection[str] = ()) -> list[Drift]:
    """Every departure of ``observed`` from ``expected``, one per path; a field the device does not show (unset
    in ``observed``) is not compared. ``skip``: top-level parts left out.

    >>> from roceops.resources import example_fabric
    >>> leaf = plan(expand(load(example_fabric())), "leaf-su1-r1")
    >>> want = expected(leaf)
    >>> port = want.ports["Ethernet0"].model_copy(update={"mtu": 1500})
    >>> seen = want.model_copy(update={"ports": {**want.ports, "Ethernet0": port}})
    >>> [(d.path, d.expected, d.observed) for d in compare(want, seen)]
    [('ports[Ethernet0].mtu', 9216, 1500)]
    """
    return _compare(expected, observed, skip=skip)
