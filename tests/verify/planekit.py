"""Whether this machine can run verify's routing plane (root, ``ip netns``, FRR): checked once, by the tests that
start FRR daemons in network namespaces (it creates and removes a probe namespace)."""

from __future__ import annotations

import pytest

from roceops.verify.engine import VerifyUnavailable, preflight


def _unavailable() -> str:
    try:
        preflight()
    except VerifyUnavailable as exc:
        return str(exc)
    return ""


UNAVAILABLE = _unavailable()
needs_plane = pytest.mark.skipif(bool(UNAVAILABLE), reason=UNAVAILABLE)
