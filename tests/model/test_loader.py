"""load(): YAML with positions, human errors at file:line:col, locate() for later errors."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import pytest
from conftest import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceops.model.intent import FabricIntent
from roceops.model.loader import (
    IntentError,
    LoadedIntent,
    Problem,
    allowed_keys,
    load,
    load_intent,
    load_model,
    loads,
)
from roceops.model.types import StrictModel
from roceops.topology.addressing import PoolExhausted
from roceops.topology.expand import expand

MINI = EXAMPLES["lab-mini"].read_text()


def _write(tmp_path: Path, text: str, name: str = "fabric.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _errors(tmp_path: Path, text: str) -> list[Problem]:
    path = _write(tmp_path, text)
    with pytest.raises(IntentError) as info:
        load(path)
    for p in info.value.problems:
        assert p.file == str(path)
    assert "Traceback" not in str(info.value)
    return info.value.problems


def _line_of(text: str, needle: str, occurrence: int = 1) -> int:
    lines = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return lines[occurrence - 1]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_load(name: str) -> None:
    loaded = load(EXAMPLES[name])
    assert isinstance(loaded, LoadedIntent)
    assert isinstance(loaded.intent, FabricIntent)
    assert loaded.file == EXAMPLES[name]
    assert loaded.source_hash == hashlib.sha256(EXAMPLES[name].read_bytes()).hexdigest()
    assert load_intent(EXAMPLES[name]) == loaded.intent


def test_locate_points_at_keys_and_values() -> None:
    text = EXAMPLES["fabric"].read_text()
    loaded = load(EXAMPLES["fabric"])
    line = _line_of(text, "ecn: {min: 150KB")
    assert loaded.locate("qos.traffic_classes[0].ecn.min") == (line, text.splitlines()[line - 1].index("150KB") + 1)
    assert loaded.locate("qos.traffic_classes[1]")[0] == _line_of(text, "name: cnp")
    # absent field: deepest ancestor present in the file
    assert loaded.locate("qos.dcqcn.rp.rpg_min_rate") == (_line_of(text, "  dcqcn:"), 3)
    assert loaded.locate(("qos", "traffic_classes", 2)) == loaded.locate("qos.traffic_classes[2]")
    assert loaded.locate("") == (1, 1)
    assert loaded.locate("no.such.path") == (1, 1)


def test_locate_keys_with_dots(tmp_path: Path) -> None:
    text = MINI + "  devices:\n    leaf.a:\n      mtu: 9100\n"
    loaded = load(_write(tmp_path, text))
    assert loaded.locate("overrides.devices.leaf.a.mtu") == (_line_of(text, "mtu: 9100"), 12)


def test_expansion_errors_are_locatable(tmp_path: Path) -> None:
    text = MINI.replace("p2p: 10.1.0.0/24", "p2p: 10.1.0.0/30")
    loaded = load(_write(tmp_path, text))
    with pytest.raises(PoolExhausted) as info:
        expand(loaded.intent)
    problem = loaded.problem(info.value.path, str(info.value))
    assert (problem.line, problem.path) == (_line_of(text, "p2p: 10.1.0.0/30"), "addressing.p2p")
    assert str(problem).startswith(f"{tmp_path / 'fabric.yaml'}:{problem.line}:{problem.column}: addressing.p2p: ")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IntentError) as info:
        load(tmp_path / "nope.yaml")
    assert str(info.value) == f"{tmp_path / 'nope.yaml'}: cannot read file: No such file or directory"


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(IntentError, match="cannot read file"):
        load(tmp_path)


def test_yaml_syntax_error_has_marker_position(tmp_path: Path) -> None:
    text = MINI.replace("  count: 2\n", "  count: [2\n", 1)
    (p,) = _errors(tmp_path, text)
    assert p.message.startswith("YAML syntax: ")
    assert "flow sequence" in p.message
    assert p.line == _line_of(text, "nodes_per_su: 4")  # where the parser noticed the unclosed [
    assert str(p).startswith(f"{tmp_path / 'fabric.yaml'}:{p.line}:{p.column}: YAML syntax:")


def test_tab_indentation(tmp_path: Path) -> None:
    (p,) = _errors(tmp_path, "name: x\nnode:\n\tgpus: 8\n")
    assert (p.line, p.column) == (3, 1)


@pytest.mark.parametrize(("text", "got"), [("- a\n- b\n", "a list"), ("", "an empty file"),
                                           ("# only a comment\n", "an empty file"), ("just text\n", "str")])
def test_top_level_not_a_mapping(tmp_path: Path, text: str, got: str) -> None:
    (p,) = _errors(tmp_path, text)
    assert "top level must be a mapping" in p.message
    assert got in p.message


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "fabric.yaml"
    path.write_bytes(b"name: x\nnode: {model: \xff}\n")
    with pytest.raises(IntentError) as info:
        load(path)
    (p,) = info.value.problems
    assert (p.line, p.column) == (2, 15)
    assert "UTF-8" in p.message


def test_wrong_type_deep_in_a_list(tmp_path: Path) -> None:
    text = MINI.replace("ecn: {min: 150KB, max: 1500KB", "ecn: {min: 15OKB, max: 1500KB")
    (p,) = _errors(tmp_path, text)
    line = _line_of(text, "15OKB")
    assert (p.line, p.column) == (line, text.splitlines()[line - 1].index("15OKB") + 1)
    assert p.path == "qos.traffic_classes[0].ecn.min"
    assert str(p) == (f"{tmp_path / 'fabric.yaml'}:{p.line}:{p.column}: qos.traffic_classes[0].ecn.min: "
                      "threshold '15OKB' is not like 150KB, 1.5MB or 10us")


def test_wrong_type_in_block_list_item(tmp_path: Path) -> None:
    text = MINI.replace("      dscp: [48]\n      priority: 6", "      dscp: [48]\n      priority: six")
    (p,) = _errors(tmp_path, text)
    assert p.path == "qos.traffic_classes[1].priority"
    assert p.line == _line_of(text, "priority: six")
    assert p.column == 17
    assert p.message == "must be a valid integer, got 'six'"  # strict numbers: no parsing of text


def test_several_problems_sorted_by_line(tmp_path: Path) -> None:
    text = MINI.replace("planes: 1", "planes: 3").replace("dscp: [26]", "dscp: [26, 99]")
    first, second = _errors(tmp_path, text)
    assert (first.path, second.path) == ("planes", "qos.traffic_classes[0].dscp[1]")
    assert first.message == "must be 1, 2 or 4, got 3"
    assert second.line > first.line


def test_unknown_key_did_you_mean(tmp_path: Path) -> None:
    text = MINI.replace("      lossless: true", "      losless: true")
    (p,) = _errors(tmp_path, text)
    assert p.path == "qos.traffic_classes[0].losless"
    assert (p.line, p.column) == (_line_of(text, "losless: true"), 7)
    assert p.message == "unknown key 'losless'; did you mean 'lossless'?"


def test_unknown_key_in_dict_of_models(tmp_path: Path) -> None:
    text = MINI.replace("    su2:\n      platform: cumulus", "    su2:\n      platfrom: cumulus")
    (p,) = _errors(tmp_path, text)
    assert p.path == "overrides.groups.su2.platfrom"
    assert p.message.endswith("did you mean 'platform'?")


def test_unknown_top_level_key_without_close_match(tmp_path: Path) -> None:
    (p,) = _errors(tmp_path, MINI + "zzz: 1\n")
    assert p.path == "zzz"
    assert p.message.startswith("unknown key 'zzz'; expected one of: addressing, asn, cable_lengths")


def test_allowed_keys_walks_models() -> None:
    assert "probability" in allowed_keys(("qos", "traffic_classes", 0, "ecn"))
    assert "rpg_min_rate" in allowed_keys(("overrides", "devices", "x", "dcqcn", "rp"))
    assert "radix" in allowed_keys(("switch_models", "any"))
    assert allowed_keys(("name",)) == set()


def test_missing_required_field_points_at_parent(tmp_path: Path) -> None:
    text = MINI.replace("  nodes_per_su: 4\n", "")
    (p,) = _errors(tmp_path, text)
    assert p.path == "scalable_units.nodes_per_su"
    assert (p.line, p.column) == (_line_of(text, "scalable_units:"), 1)
    assert p.message == "required field 'nodes_per_su' is missing"


def test_missing_field_in_flow_mapping(tmp_path: Path) -> None:
    text = MINI.replace("ecn: {min: 150KB, max: 1500KB, probability: 100}", "ecn: {min: 150KB}")
    (p,) = _errors(tmp_path, text)
    assert p.path == "qos.traffic_classes[0].ecn.max"
    assert (p.line, p.column) == (_line_of(text, "ecn: {min: 150KB}"), 7)


def test_model_check_is_reported_at_the_named_field(tmp_path: Path) -> None:
    text = MINI.replace("    model: lab-8x400g\n    platform: eos", "    model: lab-8x400\n    platform: eos")
    (p,) = _errors(tmp_path, text)
    assert p.path == "tiers.spine.model"
    assert p.line == _line_of(text, "lab-8x400", 3)  # the switch_models key, the leaf model, then this one
    assert p.message.startswith("'lab-8x400' is not in switch_models")


def test_union_of_literals_is_one_problem(tmp_path: Path) -> None:
    text = MINI.replace("platform: cumulus", "platform: junos")
    (p,) = _errors(tmp_path, text)
    assert p.path == "overrides.groups.su2.platform"
    assert p.message == "must be 'sonic', 'cumulus', 'eos' or 'linux_mlx5', got 'junos'"


def test_empty_value(tmp_path: Path) -> None:
    (p,) = _errors(tmp_path, MINI.replace("name: lab-mini", "name:"))
    assert p.path == "name"
    assert p.message == "must be a valid string, got an empty value (null)"


def test_duplicate_key(tmp_path: Path) -> None:
    text = MINI.replace("  nodes_per_su: 4\n", "  nodes_per_su: 4\n  count: 3\n")
    (p,) = _errors(tmp_path, text)
    assert p.line == _line_of(text, "count: 3")
    assert p.column == 3
    assert p.message == f"duplicate key 'count' (first defined at line {_line_of(text, 'count: 2')})"


def test_every_duplicate_key_is_reported(tmp_path: Path) -> None:
    text = MINI + "name: again\nplanes: 2\n"
    problems = _errors(tmp_path, text)
    assert [p.message.split(" (")[0] for p in problems] == ["duplicate key 'name'", "duplicate key 'planes'"]


def test_loads_from_text() -> None:
    loaded = loads(MINI, file="inline.yaml")
    assert loaded.intent.name == "lab-mini"
    with pytest.raises(IntentError, match=r"(?m)^inline\.yaml:1:7: name: must match pattern"):
        loads("name: 'bad name'\n", file="inline.yaml")


def test_scalar_types_are_plain(tmp_path: Path) -> None:
    text = MINI.replace("  leaf:\n    model: lab-8x400g\n    platform: sonic",
                        "  leaf:\n    model: lab-8x400g\n    platform: sonic\n    oversubscription: 1.5")
    loaded = load(_write(tmp_path, text))
    assert loaded.intent.tiers.leaf.oversubscription == 1.5
    assert type(loaded.intent.tiers.leaf.oversubscription) is float


class _Step(StrictModel):
    name: str
    run: Literal["validate", "render"]


class _Book(StrictModel):
    name: str
    steps: list[_Step]


def test_load_model_gives_the_same_problems_for_any_model(tmp_path: Path) -> None:
    path = _write(tmp_path, "name: b\nsteps:\n  - name: one\n    run: validate\n  - name: two\n    rnu: render\n",
                  "book.yaml")
    with pytest.raises(IntentError) as info:
        load_model(path, _Book)
    problems = [(p.line, p.column, p.path, p.message) for p in info.value.problems]
    assert problems == [(5, 5, "steps[1].run", "required field 'run' is missing"),
                        (6, 5, "steps[1].rnu", "unknown key 'rnu'; did you mean 'run'?")]
    ok = _write(tmp_path, "name: b\nsteps: [{name: one, run: render}]\n", "ok.yaml")
    assert load_model(ok, _Book) == _Book(name="b", steps=[_Step(name="one", run="render")])


@pytest.mark.parametrize(("old", "new", "path", "message"), [
    ("  lab-8x400g:\n", "  64:\n", "switch_models.64", "key 64 must be text: quote it ('64')"),
    ("name: lab-mini", "name: !foo lab", "name", "YAML tag !foo is not supported here"),
    ("name: lab-mini", "name: 2024-01-01", "name",
     "must be a valid string, got the date 2024-01-01 (quote it to make it text)"),
])
def test_odd_yaml_values(tmp_path: Path, old: str, new: str, path: str, message: str) -> None:
    (p,) = _errors(tmp_path, MINI.replace(old, new, 1))
    assert (p.path, p.message) == (path, message)


FABRIC = EXAMPLES["fabric"].read_text()
_JUNK = st.sampled_from([*":-[]{},'\"&*!|>#%@`\t\n ab1_.<", "<<: *x", "&x ", "!!binary ", "\x00", "é", "~",
                         "2024-01-01"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=st.integers(0, len(FABRIC)), cut=st.integers(0, 8), junk=st.lists(_JUNK, max_size=4))
def test_any_edit_loads_or_gives_problems(pos: int, cut: int, junk: list[str]) -> None:
    """Never a traceback: any edit of a real fabric file loads, or fails with IntentError problems."""
    text = FABRIC[:pos] + "".join(junk) + FABRIC[pos + cut:]
    try:
        loaded = loads(text, "f.yaml")
    except IntentError as exc:
        assert exc.problems
        assert all(p.line >= 0 and p.column >= 0 and p.message for p in exc.problems)
    else:
        assert loaded.locate("qos.traffic_classes[0].ecn.min")[0] >= 1
