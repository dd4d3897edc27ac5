"""asyncssh for the lab's SSH server, imported in this one place with its one import-time warning filtered.

asyncssh 2.24 names ``dsa.DSAPrivateKey`` and friends while its modules load, and cryptography >= 51 answers each
such access with a ``CryptographyDeprecationWarning`` ("DSA is deprecated ..."): ten lines on stderr for every
process that imports asyncssh. Only that category, raised from asyncssh's own modules during this import, is
ignored; every other warning still shows. Only the lab's server side (spec keys, sshserver, runtime) imports this.
"""

from __future__ import annotations

import warnings

from cryptography.utils import CryptographyDeprecationWarning

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", category=CryptographyDeprecationWarning, module=r"asyncssh\.")
    import asyncssh

__all__ = ["asyncssh"]
