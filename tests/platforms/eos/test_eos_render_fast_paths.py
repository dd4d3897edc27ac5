"""The EOS render's fast paths give the answers of the code they stand in for: the postprocess (text already
finished is returned as is) and the BGP neighbours' sort key (:func:`roceops.util.sorting.ip_key`'s order)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roceops.platforms.eos import _finish
from roceops.platforms.eos.render import _neighbor_key
from roceops.util.sorting import ip_key

# every character str.splitlines breaks at or str.rstrip strips, ASCII and not, and plain text
ALPHABET = ["a", "b", " ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028",
            "\u2029", "\xa0"]


def whole_text(text: str) -> str:
    """The pass the fast path stands in for: blank lines dropped, lines right-stripped, one final newline."""
    return "\n".join(filter(None, map(str.rstrip, text.splitlines()))) + "\n"


def test_every_short_text_is_finished_as_the_whole_text_pass_does() -> None:
    for n in range(4):
        for chars in itertools.product(ALPHABET, repeat=n):
            text = "".join(chars)
            assert _finish(text) == whole_text(text), repr(text)


@given(st.lists(st.sampled_from([*ALPHABET, "interface Ethernet1/1", "   mtu 9214", "!"]), max_size=40))
def test_config_like_text_is_finished_as_the_whole_text_pass_does(parts: list[str]) -> None:
    text = "".join(parts)
    assert _finish(text) == whole_text(text)


def test_finished_text_is_returned_as_is() -> None:
    text = "hostname a\n!\ninterface Ethernet1/1\n   mtu 9214\n!\n"
    assert _finish(text) is text
    assert _finish("hostname a\n\n!  \n") == "hostname a\n!\n"


@given(st.lists(st.one_of(st.ip_addresses(v=4).map(str), st.ip_addresses(v=6).map(str)), max_size=30))
def test_neighbours_sort_as_ip_key_sorts_them(ips: list[str]) -> None:
    assert sorted(ips, key=_neighbor_key) == sorted(ips, key=ip_key)


def test_a_neighbour_that_is_no_address_is_refused_as_ip_key_refuses_it() -> None:
    for bad in ("10.0.0.256", "10.1", "01.2.3.4", "spine01"):
        with pytest.raises(ValueError):
            _neighbor_key(bad)
