"""Simulated devices (platform personalities) for the SSH lab.

Each package or module here is named after the platform it serves (``sonic``, ``cumulus``, ``eos``,
``linux_mlx5``, ...) and calls :func:`roceops.lab.personality.register_personality` at import
time; :func:`roceops.lab.personality.get_personality` imports it on first use. ``echo`` is a
tiny Linux-like personality used by the lab's own tests and benchmarks.
"""
