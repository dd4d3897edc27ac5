"""The render's fast paths (issue 32) give exactly what the plain code they replace gives.

Each fast path is compared with its reference on generated input that aims at its edge cases: Jinja's
attribute lookup on dicts, the SONiC marker-line blanking and table-at-once CONFIG_DB dump, and the host
scripts' remembered line kinds. The byte-for-byte equality of whole rendered fabrics is the golden tests'.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roceops.platforms.linux_mlx5 import render as mlx5_render
from roceops.platforms.sonic import config_db_text as sonic_render
from roceops.platforms.templating import environment

# ------------------------------------------------------------------ Jinja: x.name on a dict


def _plain_env() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)


NAMES = ["name", "items", "keys", "get", "__class__", "__len__", "missing", "copy", "values", "x"]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), st.integers(0, 9)), st.sampled_from(NAMES))
def test_dict_attribute_lookup_is_jinjas(data: dict[str, int], attribute: str) -> None:
    """``d.attr`` on a plain dict: the key when it is no dict attribute, else the attribute, else undefined."""
    ours = environment("sonic").getattr(data, attribute)
    theirs = _plain_env().getattr(data, attribute)
    if isinstance(theirs, jinja2.Undefined):
        assert isinstance(ours, jinja2.StrictUndefined)
        with pytest.raises(jinja2.UndefinedError):
            str(ours)
    else:
        assert ours == theirs


def test_dict_subclasses_and_objects_keep_jinjas_lookup() -> None:
    class Tagged(dict[str, Any]):
        name = "class attribute"

    env = environment("sonic")
    assert env.getattr(Tagged(name="key"), "name") == "class attribute"  # attribute first, as Jinja does
    assert env.getattr({"items": 1}, "items")() == dict_items_of({"items": 1})
    template = env.from_string("{{ d.a }} {{ d.items() | list }} {{ o.real }}")
    assert template.render(d={"a": 1}, o=3) == "1 [('a', 1)] 3"
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ d.b }}").render(d={"a": 1})


def dict_items_of(d: dict[str, Any]) -> Any:
    return d.items()


# ------------------------------------------------------------------ SONiC: marker lines

MARKER_LINE = re.compile(r"^[ \t]*" + re.escape(sonic_render.MARKER) + r"[^\n]*$", re.MULTILINE)
PIECES = [sonic_render.MARKER + "ports.j2 leaf1", "  " + sonic_render.MARKER + "x.j2 d", "\t" + sonic_render.MARKER,
          "x " + sonic_render.MARKER + "no", '"A": {', "}", "", " ", "\n", sonic_render.MARKER + "a " +
          sonic_render.MARKER + "b", "//@sectio", "\r" + sonic_render.MARKER]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8), st.sampled_from(["", "\n", "x"]))
def test_marker_blanking_is_the_regex(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end
    body, first = sonic_render._blank_markers(text)
    assert body == MARKER_LINE.sub("", text)
    found = MARKER_LINE.search(text)
    assert first == (found.group(0) if found else None)


# ------------------------------------------------------------------ SONiC: CONFIG_DB dump

TRICKY = st.sampled_from(['}, "', '"}, "', "\\", '\\"', "}", "{", ", ", ": ", "é", "\u2028", "\x00", "x", "1", ""])
STRINGS = st.lists(TRICKY, max_size=4).map("".join)
FIELDS = st.dictionaries(STRINGS, st.one_of(STRINGS, st.lists(STRINGS, max_size=3)), max_size=4)
DOCS = st.dictionaries(STRINGS, st.dictionaries(STRINGS, FIELDS, min_size=1, max_size=4), max_size=4)


@settings(max_examples=100, deadline=None)
@given(DOCS)
def test_table_at_once_dump_is_the_entry_by_entry_dump(doc: dict[str, dict[str, dict[str, Any]]]) -> None:
    text = sonic_render._dump_plain(doc)
    assert text == sonic_render.dump_config_db(doc)
    assert json.loads(text) == doc


@settings(max_examples=50, deadline=None)
@given(DOCS)
def test_canonical_config_db_dumps_any_valid_document_as_before(doc: dict[str, dict[str, dict[str, Any]]]) -> None:
    text = json.dumps(doc, indent=1)
    assert sonic_render.canonical_config_db(text) == sonic_render.dump_config_db({t: e for t, e in doc.items() if e})


KEYS = st.sampled_from(["a", "b", ":", 'x": "y', "\\u003a", "é", ""])
VALUES = st.one_of(KEYS, st.lists(KEYS, max_size=2))


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


def _json_key(key: str, escaped: bool) -> str:
    text = json.dumps(key, ensure_ascii=False)
    return text.replace(":", "\\u003a") if escaped else text  # a colon written as an escape, as a text may


PAIRS = st.lists(st.tuples(KEYS, st.booleans()), max_size=3)
TEXTS = st.lists(st.tuples(KEYS, st.lists(st.tuples(KEYS, st.lists(st.tuples(KEYS, st.booleans(), VALUES),
                                                                    max_size=3)), max_size=3)), max_size=3).map(
    lambda tables: _object([(_json_key(t, False), _object([(_json_key(k, False), _object(
        [(_json_key(f, esc), json.dumps(v, ensure_ascii=False)) for f, esc, v in fields])) for k, fields in entries]))
        for t, entries in tables]))


def _checked_only(text: str, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as m:
        m.setattr(sonic_render, "_dumped_without_duplicates", lambda body: None)
        m.setattr(sonic_render, "_dumped_by_section", lambda pieces: None)
        return _outcome(text)


def _outcome(text: str) -> str:
    try:
        return sonic_render.canonical_config_db(text)
    except sonic_render.SonicRenderError as exc:
        return f"error: {exc}"


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_duplicate_keys_are_found_without_the_per_object_hook(text: str) -> None:
    """Repeated keys at any depth, colons in keys and values, colons written as \\u003a: the fast path (plain
    parse, colon count) gives what the checking parse gives, dump or error."""
    patch = pytest.MonkeyPatch()
    try:
        assert _outcome(text) == _checked_only(text, patch)
    finally:
        patch.undo()


SECTION_PIECES = st.sampled_from([
    '"A": {"k": {"f": "v"}}', '"B": {"k": {"f": "v", "g": ["x", "y"]}}', '"A": {}', '"C": {"k": {"f": "1:2"}}',
    '"D": {"k": {"f": "v"}, "k": {"f": "w"}}', '"E": {"k": {"f": 1}}', '"F": {"k": {"f": "\\u003a"}}', "",
    '"G": {"k": {"f": "v"}', '"H": {"k": {"f": "v"}}, "I": {"j": {"f": "v"}}', '"J": {"k": {"f": "é"}}'])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(SECTION_PIECES, st.sampled_from([",", "", ",,", " ,"])), max_size=5),
       st.sampled_from(["{", "", "{,"]), st.sampled_from(["}", "", "},"]))
def test_sections_dumped_one_by_one_give_what_the_whole_text_gives(
        sections: list[tuple[str, str]], start: str, end: str) -> None:
    """Marker-separated sections: valid, empty, missing or doubled commas, a table in two sections, repeated
    keys, non-strings, escapes, broken JSON: the by-section path gives what the whole text's checked parse gives."""
    lines = [start]
    for i, (members, comma) in enumerate(sections):
        lines += [f"  {sonic_render.MARKER}s{i}.j2 leaf1", members + (comma if i < len(sections) - 1 else "")]
    text = "\n".join([*lines, end]) + "\n"
    patch = pytest.MonkeyPatch()
    try:
        assert _outcome(text) == _checked_only(text, patch)
    finally:
        patch.undo()


def test_a_section_seen_before_is_not_parsed_again() -> None:
    section = '"PORT": {"Ethernet0": {"mtu": "9100"}}'
    texts = [f'{{\n{sonic_render.MARKER}ports.j2 leaf{n}\n{section},\n{sonic_render.MARKER}meta.j2 leaf{n}\n'
             f'"DEVICE_METADATA": {{"localhost": {{"hostname": "leaf{n}"}}}}\n}}\n' for n in (1, 2)]
    sonic_render._section.cache_clear()
    outs = [sonic_render.canonical_config_db(t) for t in texts]
    assert sonic_render._section.cache_info().hits == 1  # leaf2's PORT section: leaf1's dump
    assert outs[1] == sonic_render.dump_config_db({"DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}},
                                                   "PORT": {"Ethernet0": {"mtu": "9100"}}})


def test_a_repeated_key_is_still_named() -> None:
    text = '{"PORT": {"Ethernet0": {"mtu": "9100", "mtu": "9216"}}, "A": {}}'
    with pytest.raises(sonic_render.SonicRenderError, match="key 'mtu' twice"):
        sonic_render.canonical_config_db(text)
    assert sonic_render._dumped_without_duplicates(text) is None
    assert sonic_render._dumped_without_duplicates(text.replace('"mtu": "9100", ', "")) == (
        '{\n  "PORT": {\n    "Ethernet0": {"mtu": "9216"}\n  }\n}\n')


@pytest.mark.parametrize(("text", "error"), [
    ('{"PORT": {"Ethernet0": {"mtu": 9216}}}', "strings or lists of strings"),
    ('{"PORT": {"Ethernet0": {"lanes": ["1", 2]}}}', "strings or lists of strings"),
    ('{"PORT": {"Ethernet0": "x"}}', "entry PORT|Ethernet0 must be an object"),
    ('{"PORT": []}', "table PORT must be an object"),
    ("[]", "must be a JSON object"),
])
def test_shape_errors_are_named_as_before(text: str, error: str) -> None:
    with pytest.raises(sonic_render.SonicRenderError, match=error):
        sonic_render.canonical_config_db(text)


# ------------------------------------------------------------------ hosts: script lines

LINES = ["#!/usr/bin/env bash", mlx5_render.PREAMBLE, " " + mlx5_render.PREAMBLE + "\t", "# c", "", " ", "\t",
         "echo 1 > /x", "ip link set dev eth0 mtu 9000", "set -e", "fi", "x=1", "a >b", "echo \\", "a\rb", "do\t",
         "cd /", "echo 'q'", "echo $x", "mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=7), st.sampled_from(["\n", "", "\n\n", " "]))
def test_remembered_line_kinds_give_the_whole_script_regex(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end
    assert mlx5_render._simple_script(text) == (mlx5_render._SIMPLE_SCRIPT.fullmatch(text) is not None)


def test_line_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond its bound it remembers nothing more and answers with the whole-text regex."""
    monkeypatch.setattr(mlx5_render, "_KNOWN_MAX", 0)
    script = f"{mlx5_render.PREAMBLE}\nnever seen before 1\n"
    before = sum(map(len, mlx5_render._LINES.values()))
    assert mlx5_render._simple_script(script)
    assert not mlx5_render._simple_script(f"never seen before 2\n{mlx5_render.PREAMBLE}\n")
    assert sum(map(len, mlx5_render._LINES.values())) == before


_LEAVES = st.one_of(st.text(max_size=3), st.integers(), st.none(), st.booleans(),
                    st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=3))
_DOCS = st.one_of(
    st.dictionaries(st.text(max_size=3), st.one_of(
        st.dictionaries(st.text(max_size=3), st.one_of(st.dictionaries(st.text(max_size=3), _LEAVES, max_size=3),
                                                       _LEAVES), max_size=3), _LEAVES), max_size=3),
    _LEAVES)


@settings(max_examples=300, deadline=None)
@given(doc=_DOCS)
def test_plain_config_db_passes_exactly_what_the_shape_check_passes(doc: Any) -> None:
    """The C-level shape check (strings and leaf-lists of strings) agrees with the per-field loop it skips."""
    try:
        sonic_render._check_shape("dev", doc)
        shaped = True
    except sonic_render.SonicRenderError:
        shaped = False
    assert sonic_render._plain_config_db(doc) == shaped


# ------------------------------------------------------------------ SONiC: PG/queue ranges per port shape


def _reference_ranges(device: Any, ports: list[Any], model: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """BUFFER_PG and BUFFER_QUEUE entries worked out port by port (the code before the per-shape memo)."""
    from roceops.platforms.sonic import render as sonic

    pgs: list[dict[str, str]] = []
    queues: list[dict[str, str]] = []
    used_pgs = set(device.qos.tc_to_pg.values()) | {0}
    for p in ports:
        by_pg = {pg: sonic.INGRESS_LOSSY_PROFILE for pg in used_pgs - set(p.headroom)}
        by_pg.update({pg: "NULL" if model == "dynamic" else h.profile for pg, h in p.headroom.items()})
        pgs += [{"key": f"{p.name}|{r}", "profile": prof} for r, prof in sonic.grouped_ranges(by_pg)]
        lossless = {device.qos.pfc_priority_to_queue[x] for x in p.pfc_priorities}
        by_queue = {q: sonic.EGRESS_LOSSLESS_PROFILE if q in lossless else device.qos.lossy_queue_profile
                    for q in range(sonic.UNICAST_QUEUES)}
        queues += [{"key": f"{p.name}|{r}", "profile": prof} for r, prof in sonic.grouped_ranges(by_queue)]
    return pgs, queues


@pytest.mark.parametrize("model", ["traditional", "dynamic"])
def test_pg_and_queue_ranges_per_port_shape_are_the_per_port_ones(model: str) -> None:
    """Ports that differ in PFC priorities or headroom PGs, mixed: every port gets its own ranges."""
    from conftest import example_dict

    from roceops.model.intent import FabricIntent
    from roceops.plan import plan
    from roceops.platforms.sonic import render as sonic
    from roceops.topology.expand import expand

    fabric = expand(FabricIntent.model_validate(example_dict("fabric")))
    leaf = plan(fabric, next(d.name for d in fabric.devices() if d.platform == "sonic" and d.role == "leaf"))
    ports = sorted(leaf.ports.values(), key=lambda p: sonic.port_key(p.name))
    lossless = [p for p in ports if p.pfc_priorities and p.headroom]
    assert len(lossless) >= 4
    first_pg = next(iter(lossless[1].headroom))
    varied = {p.name: p for p in ports}
    varied[lossless[1].name] = lossless[1].model_copy(update={"pfc_priorities": lossless[1].pfc_priorities[:1]})
    varied[lossless[2].name] = lossless[2].model_copy(update={"headroom": {}})
    varied[lossless[3].name] = lossless[3].model_copy(
        update={"headroom": {first_pg: lossless[3].headroom[first_pg]}, "pfc_priorities": []})
    mixed = [varied[p.name] for p in ports]
    got = sonic._buffers(leaf, mixed, model)  # type: ignore[arg-type]
    assert (got["pgs"], got["queues"]) == _reference_ranges(leaf, mixed, model)
    assert len({e["profile"] for e in got["queues"]}) == 2 and len(got["queues"]) > len(ports)
