"""canonical_mac's fast path for MACs already written aa:bb:cc:dd:ee:ff gives what the general path gives."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from roceops.device.oper import canonical_mac


def _general(text: str) -> str | None:
    """canonical_mac as it was before the fast path (the reference)."""
    digits = re.sub(r"[.:-]", "", text.strip().lower())
    if not re.fullmatch(r"[0-9a-f]{12}", digits) or digits == "0" * 12:
        return None
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2))


_HEXDIGIT = st.sampled_from("0123456789abcdefABCDEF")
_MACS = st.lists(st.text(_HEXDIGIT, min_size=2, max_size=2), min_size=6, max_size=6).flatmap(
    lambda parts: st.sampled_from([":".join(parts), "-".join(parts), ".".join(parts), "".join(parts),
                                   f" {':'.join(parts)}\n", ":".join(parts).upper()]))


@settings(max_examples=500, deadline=None)
@given(st.one_of(_MACS, st.text(st.sampled_from("0123456789abcdefABCDEF:.- \n\tx"), max_size=20), st.text(max_size=20)))
def test_canonical_mac_equals_the_general_path(text: str) -> None:
    assert canonical_mac(text) == _general(text)


def test_canonical_mac_edge_cases() -> None:
    for text in ("00:00:00:00:00:00", "52:54:00:87:8f:2c", "52:54:00:87:8F:2C", "52:54:00:87:8f:2c\n",
                 "\u0660\u0660:00:00:00:00:01", "0005.8671.5B01", "", "failed", "52:54:00:87:8f:2",
                 "52:54:00:87:8f:2c:00"):
        assert canonical_mac(text) == _general(text), text
