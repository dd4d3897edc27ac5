"""Simulated devices (platform personalities) for the SSH lab.

Each package here is one platform's simulated device and exposes ``DEVICE`` (a
:class:`roceops.lab.personality.Personality`); the platform registry names the package
(``Platform.lab_device``) and :func:`roceops.lab.personality.get_personality` imports it on first
use. ``echo`` is a tiny Linux-like device for the lab's own tests and benchmarks (not a platform).
"""
