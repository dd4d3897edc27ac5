"""The roceops lab: a simulated RoCEv2 fabric served over real SSH on loopback.

* :mod:`roceops.lab.personality` -- the interface platform personalities implement
* :mod:`roceops.lab.spec`        -- device specs, loopback address allocation, state dir and keys
* :mod:`roceops.lab.sshserver`   -- the asyncssh transport (one process, many devices)
* :mod:`roceops.lab.control`     -- JSON-lines control channel over a Unix socket
* :mod:`roceops.lab.runtime`     -- start/stop/status of the lab process

Importing this package is cheap; import the submodules you need.
"""

from roceops.lab.personality import LabError

__all__ = ["LabError"]
