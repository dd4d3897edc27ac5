"""Validate a SONiC CONFIG_DB dict against SONiC's own YANG models with libyang.

The CONFIG_DB -> YANG instance translation is derived from the loaded schema (see
``shared/sonic-yang/README.md``, rules 1-7): every child container of a module's top-level
container is a table; a table holds lists (``|``-separated keys split over the list keys),
"map" lists with an inner list (one inner entry per CONFIG_DB field) or containers addressed
by the CONFIG_DB key.  Values are typed per RFC 7951 from the leaf's (leafref/union-resolved)
base types.  Tables without a model are skipped and reported.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import libyang

__all__ = [
    "SonicYangValidator",
    "Translation",
    "YangUnavailable",
    "get_validator",
    "yang_dir",
]

ENV_VAR = "ROCEOPS_SONIC_YANG_DIR"
_INSTALL_HINT = (
    "install libyang: `apt-get install libyang2-dev` then `pip install libyang==2.8.0` "
    f"(or `pip install roceops[yang]`); set {ENV_VAR} to the directory holding the SONiC *.yang files"
)
_INT_RE = re.compile(r"[+-]?[0-9]+")
_LOCATION_RE = re.compile(r'^(?:Data|Schema) location "(?P<path>[^"]*)"')
# libyang's python callbacks and error store are process-global: serialise parsing.
_PARSE_LOCK = threading.Lock()
_log = logging.getLogger(__name__)

JsonValue = Any


class YangUnavailable(Exception):
    """libyang (python binding or C library) or the SONiC YANG model directory is missing."""


def yang_dir() -> Path:
    """SONiC YANG model directory: ``$ROCEOPS_SONIC_YANG_DIR``, else ``<repo>/../shared/sonic-yang``."""
    env = os.environ.get(ENV_VAR)
    if env:
        path = Path(env).expanduser().resolve()
    else:
        repo_root = Path(__file__).resolve().parents[3]
        path = (repo_root / ".." / "shared" / "sonic-yang").resolve()
    if not path.is_dir() or not any(path.glob("*.yang")):
        raise YangUnavailable(f"no SONiC YANG models (*.yang) in {path}; {_INSTALL_HINT}")
    return path


# --------------------------------------------------------------------------- schema digest


@dataclass(frozen=True)
class _Leaf:
    """A leaf / leaf-list and how to encode a CONFIG_DB string for it (RFC 7951)."""

    name: str
    is_list: bool
    int_bounds: tuple[tuple[int, int], ...]  # one (min, max) per int8..uint32 base type
    has_bool: bool
    has_empty: bool
    has_text: bool  # some base type is string-encoded (string, enum, 64-bit, decimal64, ...)

    def encode(self, raw: str) -> JsonValue:
        # Out of every int range: still a number unless a string-encoded alternative exists,
        # so that libyang reports the range error.
        if (
            _INT_RE.fullmatch(raw)
            and self.int_bounds
            and (not self.has_text or any(lo <= int(raw) <= hi for lo, hi in self.int_bounds))
        ):
            return int(raw)
        if self.has_bool and raw in ("true", "false"):
            return raw == "true"
        if self.has_empty and raw == "":
            return [None]
        return raw  # strings, enums, 64-bit integers, decimal64, ...

    def value(self, raw: Any) -> JsonValue:
        if not self.is_list:
            return self.encode(str(raw))
        items = raw if isinstance(raw, list) else [p for p in str(raw).split(",") if p != ""]
        return [self.encode(str(item).strip()) for item in items]


@dataclass(frozen=True)
class _List:
    name: str
    keys: tuple[_Leaf, ...]
    leaves: Mapping[str, _Leaf]
    inner: _List | None  # "map" table: one inner entry per CONFIG_DB field
    inner_value: _Leaf | None


@dataclass(frozen=True)
class _Table:
    module: str
    top: str
    name: str
    lists: tuple[_List, ...]
    containers: Mapping[str, Mapping[str, _Leaf]]


@dataclass
class Translation:
    """Result of translating CONFIG_DB into YANG instance JSON."""

    instance: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # tables with no YANG model
    errors: list[str] = field(default_factory=list)  # entries that fit no list/container


def _leaf(node: libyang.SNode) -> _Leaf:
    from libyang.schema import Type

    bounds = {
        Type.INT8: (-(2**7), 2**7 - 1),
        Type.INT16: (-(2**15), 2**15 - 1),
        Type.INT32: (-(2**31), 2**31 - 1),
        Type.UINT8: (0, 2**8 - 1),
        Type.UINT16: (0, 2**16 - 1),
        Type.UINT32: (0, 2**32 - 1),
    }
    bases = [t.base() for t in node.type().get_bases()]  # type: ignore[attr-defined]
    return _Leaf(
        name=node.name(),
        is_list=node.keyword() == "leaf-list",
        int_bounds=tuple(bounds[b] for b in bases if b in bounds),
        has_bool=Type.BOOL in bases,
        has_empty=Type.EMPTY in bases,
        has_text=any(b not in bounds and b not in (Type.BOOL, Type.EMPTY) for b in bases),
    )


def _leaves(node: libyang.SNode) -> dict[str, _Leaf]:
    # libyang types the children of a container or list as SNode, which declares no __iter__; they are iterable
    return {c.name(): _leaf(c) for c in node if c.keyword() in ("leaf", "leaf-list")}  # type: ignore[attr-defined]


def _digest_list(node: libyang.SList) -> _List:
    # libyang compiles the key leaves first, in `key` statement order
    keys = tuple(_leaf(c) for c in node if c.keyword() == "leaf" and c.is_key())  # type: ignore[attr-defined]
    key_names = {k.name for k in keys}
    leaves = {n: leaf for n, leaf in _leaves(node).items() if n not in key_names}
    inner_nodes = [c for c in node if c.keyword() == "list"]
    inner = _digest_list(inner_nodes[0]) if len(inner_nodes) == 1 else None  # type: ignore[arg-type]
    inner_value = None
    if inner is not None and len(inner.keys) == 1 and len(inner.leaves) == 1:
        inner_value = next(iter(inner.leaves.values()))
    return _List(node.name(), keys, leaves, inner if inner_value else None, inner_value)


def _digest_module(module: libyang.Module) -> Iterator[_Table]:
    for top in module:
        if top.keyword() != "container":
            continue
        for table in top:  # type: ignore[attr-defined]  # a container: iterable, though typed as a bare SNode
            if table.keyword() != "container":
                continue
            yield _Table(
                module=module.name(),
                top=top.name(),
                name=table.name(),
                lists=tuple(_digest_list(c) for c in table if c.keyword() == "list"),  # type: ignore[arg-type]
                containers={c.name(): _leaves(c) for c in table if c.keyword() == "container"},
            )


# --------------------------------------------------------------------------- libyang logging


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        message = str(args[0]) if args else record.getMessage()
        location = _LOCATION_RE.match(str(args[1])) if len(args) > 1 else None
        self.errors.append(f"{location['path']}: {message}" if location else message)


@contextlib.contextmanager
def _captured_libyang_errors() -> Iterator[_Capture]:
    """Route libyang errors through the python callback while parsing.

    libyang 2.1.30 only records the data path of an error when logging to a callback
    (LY_LOLOG) is on; with the binding's default (store only) the path is lost.  The
    records go to a private handler, not to the application's logging tree.
    """
    import libyang

    logger = logging.getLogger("libyang")
    capture = _Capture()
    propagate = logger.propagate
    logger.addHandler(capture)
    logger.propagate = False
    libyang.configure_logging(True, logging.ERROR)
    try:
        yield capture
    finally:
        libyang.configure_logging(False, logging.ERROR)  # the binding's import-time default
        logger.removeHandler(capture)
        logger.propagate = propagate


# --------------------------------------------------------------------------- validator


class SonicYangValidator:
    """Loads every ``*.yang`` in ``directory`` into one libyang context (do it once: see
    :func:`get_validator`) and validates CONFIG_DB dicts against it."""

    def __init__(self, directory: Path | None = None) -> None:
        try:
            import libyang
        except ImportError as exc:  # binding missing, or C libyang missing/mismatched
            raise YangUnavailable(f"cannot import libyang ({exc}); {_INSTALL_HINT}") from exc
        self.directory = Path(directory) if directory is not None else yang_dir()
        names = sorted(p.stem for p in self.directory.glob("*.yang"))
        if not names:
            raise YangUnavailable(f"no *.yang files in {self.directory}; {_INSTALL_HINT}")
        self._libyang = libyang
        self.ctx = libyang.Context(str(self.directory))
        try:
            modules = [self.ctx.load_module(name) for name in names]
        except libyang.LibyangError as exc:
            raise YangUnavailable(f"cannot load SONiC YANG models from {self.directory}: {exc}") from exc
        self.tables: dict[str, _Table] = {}
        for module in modules:
            for table in _digest_module(module):
                self.tables.setdefault(table.name, table)
        self._accepts_cache: dict[tuple[str, str, tuple[str, ...]], bool] = {}

    # ---------------------------------------------------------------- translation

    def translate(self, config_db: Mapping[str, Any]) -> Translation:
        """Translate CONFIG_DB into RFC 7951 instance JSON, collecting skipped tables."""
        out = Translation()
        for table_name, entries in config_db.items():
            table = self.tables.get(table_name)
            if table is None:
                out.skipped.append(table_name)
                continue
            if not isinstance(entries, Mapping):
                out.errors.append(f"{table_name}: table must be an object, got {type(entries).__name__}")
                continue
            body = self._table_body(table, entries, out.errors)
            top = out.instance.setdefault(f"{table.module}:{table.top}", {})
            top[f"{table.module}:{table.name}"] = body
        if out.skipped:
            _log.info("tables without a SONiC YANG model, skipped: %s", ", ".join(out.skipped))
        return out

    def to_instance(self, config_db: Mapping[str, Any]) -> dict[str, Any]:
        """The YANG instance JSON (RFC 7951 typed) for ``config_db``."""
        return self.translate(config_db).instance

    def skipped_tables(self, config_db: Mapping[str, Any]) -> list[str]:
        """CONFIG_DB tables that no loaded YANG module models (ignored by :meth:`validate`)."""
        return [name for name in config_db if name not in self.tables]

    def _table_body(self, table: _Table, entries: Mapping[str, Any], errors: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        rows: dict[str, list[dict[str, Any]]] = {lst.name: [] for lst in table.lists}
        for key, fields in entries.items():
            where = f"{table.name}|{key}"
            if not isinstance(fields, Mapping):
                errors.append(f"{where}: entry must be an object, got {type(fields).__name__}")
            elif key in table.containers:
                body[key] = _fields(table.containers[key], fields)
            elif (lst := self._pick_list(table, key)) is not None:
                rows[lst.name].append(_list_entry(lst, key.split("|"), fields))
            else:
                errors.append(f"{where}: no list or container of YANG table {table.name} takes this key")
        body.update({name: items for name, items in rows.items() if items})
        return body

    def _pick_list(self, table: _Table, key: str) -> _List | None:
        parts = key.split("|")
        candidates = [lst for lst in table.lists if len(lst.keys) == len(parts)]
        if len(candidates) > 1:
            for lst in candidates:
                if self._accepts_keys(table, lst, parts):
                    return lst
        return candidates[0] if candidates else None

    def _accepts_keys(self, table: _Table, lst: _List, parts: list[str]) -> bool:
        """Whether ``parts`` type-check as the keys of ``lst`` (parse only: no leafref/must)."""
        cache_key = (table.name, lst.name, tuple(parts))
        if cache_key not in self._accepts_cache:
            entry = {k.name: k.encode(p) for k, p in zip(lst.keys, parts, strict=True)}
            doc = {f"{table.module}:{table.top}": {f"{table.module}:{table.name}": {lst.name: [entry]}}}
            try:
                with _PARSE_LOCK:
                    node = self.ctx.parse_data_mem(json.dumps(doc), "json", parse_only=True, strict=True)
                if node is not None:
                    node.free()
                ok = True
            except self._libyang.LibyangError:
                ok = False
            self._accepts_cache[cache_key] = ok
        return self._accepts_cache[cache_key]

    # ---------------------------------------------------------------- validation

    def validate(self, config_db: Mapping[str, Any]) -> list[str]:
        """Human-readable errors (``<data path>: <libyang message>``); empty list = valid.

        libyang 2.1 stops at the first data error, so at most one libyang error is reported
        (plus any translation errors).
        """
        translation = self.translate(config_db)
        errors = list(translation.errors)
        text = json.dumps(translation.instance)
        with _PARSE_LOCK, _captured_libyang_errors() as capture:
            try:
                node = self.ctx.parse_data_mem(text, "json", strict=True, no_state=True)
                if node is not None:
                    node.free()
            except self._libyang.LibyangError as exc:
                errors.extend(capture.errors or [str(exc)])
        return errors


def _fields(leaves: Mapping[str, _Leaf], fields: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, raw in fields.items():
        leaf = leaves.get(name) or leaves.get(name.rstrip("@"))  # old-style "members@" leaf-lists
        if leaf is None:
            out[name] = raw  # unknown field: let libyang (strict) name it
        else:
            out[leaf.name] = leaf.value(raw)
    return out


def _list_entry(lst: _List, parts: list[str], fields: Mapping[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {k.name: k.encode(p) for k, p in zip(lst.keys, parts, strict=True)}
    if lst.inner is None or lst.inner_value is None:
        entry.update(_fields(lst.leaves, fields))
        return entry
    inner_key, inner_value = lst.inner.keys[0], lst.inner_value
    own = {n: v for n, v in fields.items() if n in lst.leaves}
    entry.update(_fields(lst.leaves, own))
    pairs = [(n, v) for n, v in fields.items() if n not in lst.leaves]
    if pairs:
        entry[lst.inner.name] = [
            {inner_key.name: inner_key.encode(n), inner_value.name: inner_value.value(v)} for n, v in pairs
        ]
    return entry


@lru_cache(maxsize=4)
def _validator_for(directory: Path) -> SonicYangValidator:
    return SonicYangValidator(directory)


def get_validator(directory: Path | None = None) -> SonicYangValidator:
    """Shared validator for ``directory`` (default :func:`yang_dir`); the context is loaded once."""
    return _validator_for(Path(directory).resolve() if directory is not None else yang_dir())
