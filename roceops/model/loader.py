"""Load fabric.yaml into a FabricIntent, with errors a human can act on.

Every failure is an :class:`IntentError` holding one :class:`Problem` per
mistake, each pointing at ``file:line:column`` and the intent path::

    inventory/fabric.yaml:42:7: qos.traffic_classes[0].ecn.min: threshold '15OKB' is not like 150KB, 1.5MB or 10us

The YAML is read with ruamel.yaml's round-trip loader so that every key and
value keeps its position; :meth:`LoadedIntent.locate` maps any intent path
(pydantic ``loc``, ``TopologyError.path``, a lint finding's path) back to it.
Lines and columns are 1-based.
"""

from __future__ import annotations

import datetime
import difflib
import hashlib
import re
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, Union

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, Event, ScalarEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.scalarbool import ScalarBoolean
from ruamel.yaml.scalarfloat import ScalarFloat
from ruamel.yaml.scalarint import ScalarInt

from roceops.model.intent import FabricIntent
from roceops.util.bounded_read import ReadRefused, read_regular
from roceops.util.picklable import PicklableError

M = TypeVar("M", bound=BaseModel)
Key = str | int
Loc = tuple[Key, ...]
Pos = tuple[int, int]  # (line, column), 1-based


@dataclass(frozen=True)
class Problem:
    """One mistake in an intent file. ``line == 0`` means the file as a whole (e.g. it cannot be read)."""

    file: str
    line: int
    column: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class IntentError(PicklableError):
    """The intent file cannot be loaded; ``str()`` prints one ``file:line:col: path: message`` line per problem."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line, p.column, p.path))
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


@dataclass(frozen=True)
class _Node:
    key: Pos | None  # position of the mapping key (None for list items and the root)
    value: Pos
    collection: bool


@dataclass(frozen=True)
class LoadedIntent:
    """A validated intent plus what is needed to point back into its file."""

    intent: FabricIntent
    file: Path
    source_hash: str  # sha256 of the file's bytes
    _nodes: dict[Loc, _Node] = field(repr=False, compare=False)

    def locate(self, path: str | Sequence[Key]) -> Pos:
        """(line, column) of ``path`` (``qos.traffic_classes[0].ecn``), or of its deepest ancestor in the file."""
        return _display(self._nodes, _resolve(self._nodes, path))

    def problem(self, path: str, message: str) -> Problem:
        """A Problem at ``path``, e.g. for a TopologyError or PoolExhausted raised later by expand()."""
        line, col = self.locate(path)
        return Problem(str(self.file), line, col, path, message)


def load(path: Path | str) -> LoadedIntent:
    """Read, parse and validate ``path``. Raises IntentError (never a traceback) on any problem."""
    return loads(_read(Path(path)), file=Path(path))


def load_intent(path: Path | str) -> FabricIntent:
    return load(path).intent


def loads(source: str | bytes, file: Path | str = "<string>") -> LoadedIntent:
    """Like :func:`load`, from text already in memory (``file`` is only used in messages)."""
    raw = source.encode() if isinstance(source, str) else source
    intent, nodes = _validate(raw, str(file), FabricIntent)
    return LoadedIntent(intent=intent, file=Path(file), source_hash=hashlib.sha256(raw).hexdigest(), _nodes=nodes)


def load_model(path: Path | str, model: type[M]) -> M:
    """Any pydantic model from a YAML file (e.g. a playbook), with the same IntentError problems as :func:`load`."""
    return _validate(_read(Path(path)), str(path), model)[0]


def _validate(raw: bytes, name: str, model: type[M]) -> tuple[M, dict[Loc, _Node]]:
    doc = _parse(_decode(raw, name), name)
    if not isinstance(doc, CommentedMap):
        kind = "an empty file" if doc is None else _kind(doc)
        required = [f for f, info in model.model_fields.items() if info.is_required()]
        raise IntentError([Problem(name, 1, 1, "", f"the top level must be a mapping ({', '.join(required)}, ...), "
                                                    f"got {kind}")])
    nodes: dict[Loc, _Node] = {}
    data = _plain(doc, (), nodes)
    nodes[()] = _Node(None, (1, 1), True)
    tagged = [Problem(name, *_display(nodes, loc), format_loc(loc), f"YAML tag {tag} is not supported here")
              for loc, tag in _tags(data, ())]
    if tagged:
        raise IntentError(tagged)
    try:
        return model.model_validate(data), nodes
    except ValidationError as exc:
        raise IntentError(_problems(exc, data, nodes, name, model)) from None


# --- reading and parsing -------------------------------------------------------------------------------------------


def _read(path: Path) -> bytes:
    """A regular file under 16 MiB (bounded_read): a FIFO, device or folder is refused at once, not read."""
    try:
        return read_regular(path)
    except ReadRefused as exc:
        raise IntentError([Problem(str(path), 0, 0, "", f"cannot read file: {exc}")]) from None


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise IntentError([Problem(name, line, col, "", f"not UTF-8 text: byte 0x{raw[exc.start]:02x}")]) from None


# Bounds on a document's shape, checked on the parser's event stream before anything is built. A fabric or playbook
# is a few thousand nodes and under ten levels deep; an alias bomb ("billion laughs") is small on disk but expands
# exponentially when walked, and a 5,000-deep list overflows Python's recursion.
MAX_DEPTH = 32
MAX_EXPANDED_NODES = 200_000
_FLOW_RUN = re.compile(rf"[\[{{](?:\s*[\[{{]){{{MAX_DEPTH}}}")


def _check_shape(text: str, name: str) -> None:
    """Refuse a document nested deeper than MAX_DEPTH or larger than MAX_EXPANDED_NODES once its aliases are
    expanded. One pass over the parse events, no recursion; syntax errors are left to the loader to report."""
    run = _FLOW_RUN.search(text)  # the parser looks ahead over such runs before its first event (~0.4 s)
    if run:
        line = text.count("\n", 0, run.start()) + 1
        col = run.start() - (text.rfind("\n", 0, run.start()) + 1) + 1
        raise IntentError([Problem(name, line, col, "", f"YAML document nested deeper than {MAX_DEPTH} levels")])
    frames: list[list[Any]] = [[0, None]]  # per open collection: [expanded nodes so far, anchor]
    sizes: dict[str, int] = {}  # anchor -> expanded node count of what it names
    try:
        for event in YAML(typ="rt").parse(text):
            if isinstance(event, CollectionStartEvent):
                frames.append([1, event.anchor])
                if len(frames) - 1 > MAX_DEPTH:
                    raise IntentError([_shape_problem(name, event, f"nested deeper than {MAX_DEPTH} levels")])
                continue
            if isinstance(event, CollectionEndEvent):
                size, anchor = frames.pop()
            elif isinstance(event, ScalarEvent):
                size, anchor = 1, event.anchor
            elif isinstance(event, AliasEvent):
                size, anchor = sizes.get(str(event.anchor), 1), None
            else:
                continue
            if anchor is not None:
                sizes[str(anchor)] = size
            frames[-1][0] += size
            if frames[-1][0] > MAX_EXPANDED_NODES:
                raise IntentError([_shape_problem(name, event, f"more than {MAX_EXPANDED_NODES:,} values once "
                                                               "its aliases are expanded (an alias bomb?)")])
    except YAMLError:
        return


# ruamel's scanner slows down more than quadratically on one very long line (a 2 MB comment line: ~2 minutes), and no
# fabric or playbook line comes near this; refused before the parser sees the text.
MAX_LINE_CHARS = 100_000
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _check_line_lengths(text: str, name: str) -> None:
    start = 0
    for match in _LINE_BREAK.finditer(text + "\n"):
        if match.start() - start > MAX_LINE_CHARS:
            line = len(_LINE_BREAK.findall(text, 0, start)) + 1
            raise IntentError([Problem(name, line, 1, "", f"line {line} is {match.start() - start:,} characters long, "
                                                          f"more than the {MAX_LINE_CHARS:,} a line may be")])
        start = match.end()


def _shape_problem(name: str, event: Event, what: str) -> Problem:
    mark = event.start_mark
    return Problem(name, mark.line + 1, mark.column + 1, "", f"YAML document {what}")


def _parse(text: str, name: str) -> Any:
    _check_line_lengths(text, name)
    _check_shape(text, name)
    yaml = YAML(typ="rt")
    try:
        return yaml.load(text)
    except DuplicateKeyError as exc:
        raise IntentError(_duplicates(text, name) or [_marked(exc, name)]) from None
    except MarkedYAMLError as exc:
        raise IntentError([_marked(exc, name)]) from None
    except ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise IntentError([Problem(name, line, col, "", f"YAML: {exc.reason} (character #x{exc.character:04x})")]) \
            from None
    except YAMLError as exc:
        raise IntentError([Problem(name, 0, 0, "", f"YAML: {exc}")]) from None


def _marked(exc: MarkedYAMLError, name: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    message = str(exc.problem or exc.context or "invalid YAML")
    if exc.context and exc.problem and exc.context_mark is not None:
        message += f" ({exc.context} started at line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1})"
    return Problem(name, line, col, "", f"YAML syntax: {message}")


def _duplicates(text: str, name: str) -> list[Problem]:
    """Every duplicated key in the document (the loader stops at the first; composing does not check)."""
    try:
        root = YAML(typ="rt").compose(text)
    except YAMLError:
        return []
    out: list[Problem] = []
    for node in _walk_nodes(root, set()):
        seen: dict[str, int] = {}
        for key, _value in node.value:
            if not isinstance(key, ScalarNode) or key.value == "<<":
                continue
            line = key.start_mark.line + 1
            if key.value in seen:
                out.append(Problem(name, line, key.start_mark.column + 1, "",
                                   f"duplicate key '{key.value}' (first defined at line {seen[key.value]})"))
            else:
                seen[key.value] = line
    return out


def _walk_nodes(node: Node | None, seen: set[int]) -> Iterator[MappingNode]:
    if node is None or id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, MappingNode):
        yield node
        for k, v in node.value:
            yield from _walk_nodes(k, seen)
            yield from _walk_nodes(v, seen)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _walk_nodes(item, seen)


def _plain(value: Any, loc: Loc, nodes: dict[Loc, _Node]) -> Any:
    """Round-trip YAML -> plain dict/list/scalars, recording every node's position under its loc."""
    if isinstance(value, CommentedMap):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key = _scalar(k)
            sub = (*loc, key)
            kpos = _lc(value.lc.key, k)
            vpos = _lc(value.lc.value, k) or kpos
            base = kpos or vpos or _own(value)
            nodes[sub] = _Node(kpos, vpos or base, isinstance(v, CommentedMap | CommentedSeq))
            out[key] = _plain(v, sub, nodes)
        return out
    if isinstance(value, CommentedSeq):
        items: list[Any] = []
        for i, v in enumerate(value):
            sub = (*loc, i)
            nodes[sub] = _Node(None, _lc(value.lc.item, i) or _own(value), isinstance(v, CommentedMap | CommentedSeq))
            items.append(_plain(v, sub, nodes))
        return items
    return _scalar(value)


def _tags(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    if isinstance(value, TaggedScalar):
        yield loc, str(value.tag.value if hasattr(value.tag, "value") else value.tag)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _tags(v, (*loc, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _tags(v, (*loc, i))


def _lc(getter: Any, key: Any) -> Pos | None:
    try:
        line, col = getter(key)
    except (KeyError, IndexError, TypeError):  # merged (<<) keys have no position of their own
        return None
    return line + 1, col + 1


def _own(value: CommentedMap | CommentedSeq) -> Pos:
    return (value.lc.line or 0) + 1, (value.lc.col or 0) + 1


def _scalar(value: Any) -> Any:
    if isinstance(value, ScalarBoolean):
        return bool(value)
    if isinstance(value, ScalarInt):
        return int(value)
    if isinstance(value, ScalarFloat):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value


# --- paths and positions -------------------------------------------------------------------------------------------


def format_loc(loc: Sequence[Key]) -> str:
    """('qos', 'traffic_classes', 0, 'ecn') -> 'qos.traffic_classes[0].ecn'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _resolve(nodes: dict[Loc, _Node], path: str | Sequence[Key]) -> Loc:
    """The deepest loc present in the file along ``path``. Keys may contain dots (device names)."""
    if not isinstance(path, str):
        loc: Loc = ()
        for part in path:
            if (*loc, part) not in nodes:
                break
            loc = (*loc, part)
        return loc
    loc, rest = (), path
    while rest:
        nxt = _step(nodes, loc, rest)
        if nxt is None:
            break
        loc, rest = nxt
    return loc


def _step(nodes: dict[Loc, _Node], loc: Loc, rest: str) -> tuple[Loc, str] | None:
    m = re.match(r"\[(\d+)\]\.?", rest)
    if m:
        sub = (*loc, int(m.group(1)))
        return (sub, rest[m.end():]) if sub in nodes else None
    cuts = [i for i, ch in enumerate(rest) if ch in ".["] + [len(rest)]
    for cut in reversed(cuts):  # longest key first: 'leaf.1.x' may be key 'leaf.1'
        sub = (*loc, rest[:cut])
        if sub in nodes:
            return sub, rest[cut:].removeprefix(".")
    return None


def _display(nodes: dict[Loc, _Node], loc: Loc, *, key: bool = False) -> Pos:
    node = nodes.get(loc)
    if node is None:
        return 1, 1
    if node.key is not None and (key or node.collection):
        return node.key
    return node.value


# --- pydantic errors -> problems -----------------------------------------------------------------------------------


def _problems(exc: ValidationError, data: Any, nodes: dict[Loc, _Node], name: str,
              model: type[BaseModel]) -> list[Problem]:
    merged: dict[tuple[Loc, str], dict[str, Any]] = {}
    for err in exc.errors(include_url=False):
        loc = _clean_loc(err["loc"], data, err["type"])
        entry = merged.get((loc, err["type"]))
        if entry is None:
            merged[(loc, err["type"])] = {**err, "loc": loc, "raw_loc": err["loc"]}
        elif err["type"] == "literal_error":  # one field, several Literal branches of a union
            entry["ctx"] = {"expected": _join_expected(entry, err)}
    out: list[Problem] = []
    for details in merged.values():
        loc, message = _relocate(details, nodes, model)
        line, col = _error_pos(nodes, loc, details["type"])
        out.append(Problem(name, line, col, _path_in(data, loc), message))
    unique = {(p.line, p.column, p.path, p.message): p for p in out}
    return list(unique.values())


def _clean_loc(loc: Sequence[Key], data: Any, kind: str) -> Loc:
    """Drop pydantic's union-branch tags (``literal['a','b']``, ``function-after[...]``) from a loc."""
    out: list[Key] = []
    cur = data
    for i, part in enumerate(loc):
        if _has(cur, part):
            cur = cur[part]
        elif i == len(loc) - 1 and kind == "missing" and isinstance(cur, dict):
            cur = None
        else:
            continue  # a tag naming a union member, not a place in the document
        out.append(part)
    return tuple(out)


def _path_in(data: Any, loc: Loc) -> str:
    """Like format_loc, but a mapping key that is a number prints as '.64', not '[64]'."""
    out, cur = "", data
    for part in loc:
        if isinstance(part, int) and isinstance(cur, list):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
        cur = cur[part] if _has(cur, part) else None
    return out


def _has(container: Any, part: Key) -> bool:
    if isinstance(container, dict):
        return part in container
    return isinstance(container, list) and isinstance(part, int) and 0 <= part < len(container)


def _join_expected(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    values: list[str] = []
    for err in (a, b):
        expected = str((err.get("ctx") or {}).get("expected", ""))
        values += [v.strip() for v in re.split(r",| or ", expected) if v.strip()]
    values = list(dict.fromkeys(values))
    return ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else "".join(values)


_PATH_PREFIX = re.compile(r"^([A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\])+) ")


def _relocate(err: dict[str, Any], nodes: dict[Loc, _Node], model: type[BaseModel]) -> tuple[Loc, str]:
    """A model-level check may name its field in the message ('tiers.leaf.model ...'): point at that field."""
    loc: Loc = err["loc"]
    message = _friendly(err, model)
    m = _PATH_PREFIX.match(message)
    if m:
        deeper = _resolve(nodes, m.group(1))
        if format_loc(deeper) == m.group(1) and len(deeper) > len(loc) and deeper[: len(loc)] == loc:
            return deeper, message[m.end():]
    return loc, message


def _error_pos(nodes: dict[Loc, _Node], loc: Loc, kind: str) -> Pos:
    if kind == "missing":
        return _display(nodes, _resolve(nodes, loc[:-1]))
    return _display(nodes, _resolve(nodes, loc), key=kind == "extra_forbidden")


def _friendly(err: dict[str, Any], model: type[BaseModel]) -> str:
    kind, msg, value = err["type"], str(err["msg"]), err.get("input")
    loc: Loc = err["loc"]
    if tuple(err.get("raw_loc", ()))[-1:] == ("[key]",):
        return f"key {_show(value)} must be text: quote it ('{value}')"
    if kind == "missing":
        return f"required field '{loc[-1]}' is missing" if loc else "a required field is missing"
    if kind == "extra_forbidden":
        return _unknown_key(loc, model)
    if kind in ("value_error", "assertion_error"):
        return re.sub(r"^(Value error|Assertion failed), ", "", msg)
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"must be a mapping (key: value), got {_kind(value)}"
    if kind == "list_type":
        return f"must be a list, got {_kind(value)}"
    if kind == "literal_error":
        msg = f"Input should be {err['ctx']['expected']}" if err.get("ctx") else msg
    msg = re.sub(r"^Input should be ", "must be ", msg)
    msg = re.sub(r"^String should ", "must ", msg)
    return msg + f", got {_show(value)}{_type_hint(kind, value)}"


def _type_hint(kind: str, value: Any) -> str:
    """Numbers are strict: say why '2' or true is not taken as a count."""
    if kind == "string_type" and not isinstance(value, dict | list | None):
        return " (quote it to make it text)"
    if kind in ("int_type", "float_type") and isinstance(value, bool):
        return " (true/false is not a number)"
    if kind in ("int_type", "float_type") and isinstance(value, str):
        return " (a number is written without quotes)" if re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", value) else ""
    return ""


def _show(value: Any) -> str:
    if value is None:
        return "an empty value (null)"
    if isinstance(value, datetime.date):
        return f"the date {value.isoformat()}"
    return _kind(value) if isinstance(value, dict | list) else repr(value)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return f"{type(value).__name__} {value!r}"


def _unknown_key(loc: Loc, model: type[BaseModel]) -> str:
    key = str(loc[-1]) if loc else "?"
    names = sorted(allowed_keys(loc[:-1], model))
    message = f"unknown key '{key}'"
    if not names:
        return message
    match = difflib.get_close_matches(key.lower(), [n.lower() for n in names], n=1, cutoff=0.6)
    if match:
        return message + f"; did you mean '{next(n for n in names if n.lower() == match[0])}'?"
    return message + f"; expected one of: {', '.join(names)}"


# --- walking the model classes along a loc -------------------------------------------------------------------------


def allowed_keys(loc: Sequence[Key], root: type[BaseModel] = FabricIntent) -> set[str]:
    """Field names and aliases of the model(s) found at ``loc`` (through nested models, lists and dicts)."""
    current: list[Any] = [root]
    for part in loc:
        current = [nxt for t in current for u in _members(t) for nxt in _child(u, part)]
    out: set[str] = set()
    for t in current:
        for u in _members(t):
            if isinstance(u, type) and issubclass(u, BaseModel):
                for fname, finfo in u.model_fields.items():
                    out.add(fname)
                    out.update(a for a in (finfo.alias, finfo.validation_alias) if isinstance(a, str))
    return out


def _members(t: Any) -> list[Any]:
    """Flatten Annotated[...] and unions (X | Y | None) into their member types."""
    origin = typing.get_origin(t)
    if origin is typing.Annotated:
        return _members(typing.get_args(t)[0])
    if origin in (Union, types.UnionType):
        return [m for a in typing.get_args(t) if a is not type(None) for m in _members(a)]
    return [t]


def _child(t: Any, part: Key) -> list[Any]:
    if isinstance(t, type) and issubclass(t, BaseModel):
        for fname, finfo in t.model_fields.items():
            if part in (fname, finfo.alias, finfo.validation_alias):
                return [finfo.annotation]
        return []
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin in (list, tuple, set, frozenset) and args and isinstance(part, int):
        return [args[0]]
    if origin is dict and len(args) == 2:
        return [args[1]]
    return []
