"""roceops.util.json_text.loads: the same value (type and all) or the same error as json.loads, on every input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roceops.util.json_text import LastParsed, loads

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"

EDGE_CASES = [
    '{"a": 1, "b": 2, "a": 3}',  # a repeated key: its last value, at its first place
    "18446744073709551615",  # the largest uint64 (orjson reads it as an int)
    "18446744073709551616",  # beyond 64 bits: orjson would make it a float
    "-9223372036854775809",
    '{"serial": "1234567890123456789012", "n": 5}',  # a long digit run in a string: json decides, same value
    "[NaN, Infinity, -Infinity]",  # orjson refuses these
    "1e999",
    '"\\ud800"',  # a lone surrogate
    "[1.7976931348623157e308, 5e-324, 0.1, -0, 1E2]",
    ' {"x": [true, false, null]} \n',
]
BAD = ["", "{", '{"a": 1,}', "[1 2]", "\ufeff{}", "nope"]


def same(a: object, b: object) -> bool:
    """Equal with the same types and key order all the way down (NaN equal to NaN)."""
    return json.dumps(a) == json.dumps(b) and repr(a) == repr(b)


@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases_read_as_json_loads(text: str) -> None:
    assert same(loads(text), json.loads(text))


@pytest.mark.parametrize("text", BAD)
def test_errors_are_json_loads_errors(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as got:
        loads(text)
    assert (got.value.msg, got.value.pos) == (expected.value.msg, expected.value.pos)
    assert type(got.value) is json.JSONDecodeError  # not orjson's subclass


def test_captured_json_outputs_read_as_json_loads() -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"{FIXTURES} is absent (the shared captures)")
    read = 0
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        try:
            expected = json.loads(text)
        except ValueError:
            continue
        assert same(loads(text), expected), path
        read += 1
    assert read > 0


# --------------------------------------------------------------------------- LastParsed


def test_last_parsed_reads_a_text_object_once_and_anything_else_anew() -> None:
    reads: list[str] = []

    def read(text: str) -> object:
        reads.append(text)
        return loads(text)

    once = LastParsed(read)
    text = "".join(['{"a": ', "[1, 2]}"])  # built at run time: a str object of its own
    first = once(text)
    assert once(text) is first and reads == [text]  # the same object: the kept value, not parsed again
    equal = "".join(['{"a": ', "[1, 2]}"])
    assert equal == text and equal is not text
    assert once(equal) == first and once(equal) is not first and len(reads) == 2  # equal text, other object: anew
    assert once(text) == first and len(reads) == 3  # only the last text is kept


def test_last_parsed_keeps_no_error() -> None:
    once = LastParsed(loads)
    bad = "".join(["{", "nope"])
    for _ in range(2):  # the same error each time, nothing kept
        with pytest.raises(json.JSONDecodeError):
            once(bad)
