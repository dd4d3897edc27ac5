"""CONFIG_DB as text: the rendered sections' marker lines, the check that the render is CONFIG_DB, and the
canonical dump (sorted tables and keys, one table per line group) that deploy diffs and the goldens compare."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import chain
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

MARKER = "//@section "


class SonicRenderError(ValueError):
    """The intent cannot be expressed as CONFIG_DB, or a template produced something that is not CONFIG_DB."""


# --------------------------------------------------------------------------- canonicalisation


def _blank_markers(text: str) -> tuple[str, str | None]:
    """``(text with every marker line blanked, the first marker line or None)``. A marker line is blanks, then
    :data:`MARKER`, then anything up to the newline (the regex ``^[ \t]*MARKER[^\n]*$``, multi-line), found with
    ``str.find``: such a regex tries every position of ~100 KB of text."""
    pieces, first = _marker_split(text)
    return "".join(pieces), first


def _marker_split(text: str) -> tuple[list[str], str | None]:
    """``(the text before, between and after the marker lines, the first marker line or None)``: joined, the pieces
    are the text with every marker line blanked (see :func:`_blank_markers`)."""
    pieces: list[str] = []
    first: str | None = None
    done = 0  # text[:done] is in pieces
    at = text.find(MARKER)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if start >= done and not text[start:at].strip(" \t"):  # only blanks before the marker on its line
            first = text[start:end] if first is None else first
            pieces.append(text[done:start])
            done = end
        at = text.find(MARKER, end)
    pieces.append(text[done:])
    return pieces, first


def _split_markers(text: str) -> tuple[str, list[tuple[int, str, str]]]:
    """Blank out marker lines (keeping line numbers); return ``(json_text, [(line, template, device)])``."""
    if MARKER not in text:
        return text, []
    lines = text.split("\n")
    marks: list[tuple[int, str, str]] = []
    for i, line in enumerate(lines, start=1):
        if line.lstrip().startswith(MARKER):
            template, _, device = line.strip()[len(MARKER):].partition(" ")
            marks.append((i, template, device))
            lines[i - 1] = ""
    return "\n".join(lines), marks


def _where(marks: list[tuple[int, str, str]], line: int) -> tuple[str, str, int]:
    """(device, template, line within that template's output) for a line of the rendered text."""
    before = [m for m in marks if m[0] <= line]
    if not before:
        device = marks[0][2] if marks else "<unknown device>"
        return device, "main.j2", line
    start, template, device = before[-1]
    return device, template, line - start


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


class _DuplicateKey(Exception):
    pass


def canonical_config_db(text: str) -> str:
    """Parse the rendered sections as one CONFIG_DB document and re-dump it canonically.

    Checks the CONFIG_DB shape (``{TABLE: {key: {field: "string"}}}``), rejects duplicate keys (JSON
    parsers keep the last one silently) and drops empty tables (CONFIG_DB has no empty tables).
    Errors name the device and the template section that produced the offending text.
    """
    pieces, first = _marker_split(text)
    if (fast := _dumped_by_section(pieces)) is not None:
        return fast
    body = "".join(pieces)  # marker lines blanked, keeping line numbers for error messages
    device = first.strip()[len(MARKER):].partition(" ")[2] if first is not None else "<unknown device>"
    if (fast := _dumped_without_duplicates(body)) is not None:
        return fast
    try:
        doc = json.loads(body, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        dev, template, line = _where(_split_markers(text)[1], exc.lineno)
        raise SonicRenderError(f"{dev}: config_db.json is not valid JSON in section {template} "
                               f"(line {line} of that section, column {exc.colno}): {exc.msg}") from exc
    except _DuplicateKey as exc:
        key = str(exc)
        marks = _split_markers(text)[1]
        sections = sorted({_where(marks, body[: m.start()].count("\n") + 1)[1]
                           for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", body)})
        raise SonicRenderError(f"{device}: config_db.json has the key {key!r} twice in one object "
                               f"(sections: {', '.join(sections)})") from None
    if not _plain_config_db(doc):
        _check_shape(device, doc)  # names the first value that is not CONFIG_DB (or passes: lists of strings)
    doc = {table: entries for table, entries in doc.items() if entries}
    return _dump_plain(doc) if _C_ENCODE is not None else dump_config_db(doc)


def _plain_loads(text: str) -> dict[str, Any] | None:
    """``text`` parsed (C parser, no hook) when it has no ``\\u`` escape and is a plain CONFIG_DB document (the
    colon count of the callers needs both); None otherwise."""
    if "\\u" in text:
        return None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return None
    return doc if _plain_config_db(doc) else None


def _dumped_without_duplicates(body: str) -> str | None:
    """The canonical dump of ``body`` when it parses (C parser, no per-object hook) as a plain CONFIG_DB document
    with no key twice in one object; None leaves every other case to the checking parse.

    A key repeated in an object is dropped by ``json.loads`` (the last one wins), and with it its ``:``. Outside
    strings every ``:`` of the text follows a key, and a string's own ``:`` reaches the dump unescaped unless the
    text wrote it as ``\\u003a``; so, for a text without ``\\u`` escapes, the text has no repeated key exactly
    when it holds as many ``:`` as the dump plus one per dropped empty table (``"TABLE": {}``)."""
    doc = _plain_loads(body) if _C_ENCODE is not None else None
    if doc is None:
        return None
    tables = {table: entries for table, entries in doc.items() if entries}
    out = _dump_plain(tables)
    return out if out.count(":") + len(doc) - len(tables) == body.count(":") else None


def _dumped_by_section(pieces: list[str]) -> str | None:
    """The canonical dump of the document the pieces between marker lines make, from each section's own dump
    (:func:`_section`, kept for the next switch: most sections of a fabric's leaves are the same text); None leaves
    every other case to the whole text's parse.

    The whole text is ``{``, then the sections' members separated by commas, then ``}``: it is that document
    exactly when the first piece is the ``{``, every section but the last ends with its comma, the last with the
    ``}``, and each holds members of its own (an object once braced). It has no repeated key when no section has
    one (:func:`_section`) and no two sections name the same table; the dump is every section's tables in order."""
    if _C_ENCODE is None or len(pieces) < 2 or pieces[0].strip() != "{":
        return None
    blocks: dict[str, str] = {}
    names: set[str] = set()
    last = len(pieces) - 1
    for i in range(1, last + 1):
        part = pieces[i].strip()
        if not part.endswith("," if i < last else "}"):
            return None
        done = _section(part[:-1])
        if done is None or not names.isdisjoint(done[1]):
            return None
        blocks.update(done[0])
        names.update(done[1])
    return "{\n" + ",\n".join(blocks[t] for t in sorted(blocks)) + "\n}\n" if blocks else "{\n}\n"


@lru_cache(maxsize=64)
def _section(members: str) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """One section's members (``"TABLE": {...}, ...``): (each non-empty table's dumped block, every table it
    names), or None unless they brace into a plain CONFIG_DB object without a repeated key (see
    :func:`_dumped_without_duplicates`)."""
    text = "{" + members + "}"
    doc = _plain_loads(text) if members.strip() else None
    if doc is None:
        return None
    blocks = {table: _table_block(table, entries) for table, entries in doc.items() if entries}
    if sum(b.count(":") for b in blocks.values()) + len(doc) - len(blocks) != text.count(":"):
        return None
    return blocks, tuple(doc)


def _check_shape(device: str, doc: Any) -> None:
    """Raise SonicRenderError at the first part of ``doc`` that is not ``{TABLE: {key: {field: str | [str]}}}``."""
    if not isinstance(doc, dict):
        raise SonicRenderError(f"{device}: config_db.json must be a JSON object, got {type(doc).__name__}")
    for table, entries in doc.items():
        if not isinstance(entries, dict):
            raise SonicRenderError(f"{device}: CONFIG_DB table {table} must be an object")
        for key, fields in entries.items():
            if not isinstance(fields, dict):
                raise SonicRenderError(f"{device}: CONFIG_DB entry {table}|{key} must be an object")
            for name, value in fields.items():
                # a leaf-list is a JSON list of strings in config_db.json ("field@" "a,b" in redis)
                is_list = isinstance(value, list) and all(isinstance(v, str) for v in value)
                if not (isinstance(value, str) or is_list):
                    raise SonicRenderError(f"{device}: CONFIG_DB values are strings or lists of strings: "
                                           f"{table}|{key} {name} = {value!r} ({type(value).__name__})")


def _plain_config_db(doc: Any) -> bool:
    """True when every value of ``doc`` is a string, or a list of strings (a leaf-list), in an object in an object
    in an object (what the templates write), checked with C-level iteration; False leaves it to
    :func:`_check_shape`. ``json.loads`` makes exact types, so ``type(v) is str`` is ``isinstance(v, str)``."""
    if type(doc) is not dict:
        return False
    for entries in doc.values():
        if type(entries) is not dict:
            return False
        try:  # dict.values of something that is not a dict raises TypeError
            kinds = set(map(type, chain.from_iterable(map(dict.values, entries.values()))))
        except TypeError:
            return False
        if kinds <= {str}:
            continue
        if not kinds <= {str, list}:
            return False
        values = chain.from_iterable(map(dict.values, entries.values()))
        if not set(map(type, chain.from_iterable(v for v in values if type(v) is list))) <= {str}:
            return False
    return True


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(", ", ": "))  # no indent: the C encoder
# The C encoder behind _ENCODER, made once: JSONEncoder.encode builds a new one on every call, which cost more
# than encoding a small CONFIG_DB entry. Same arguments as JSONEncoder.iterencode passes (markers: no cycles here).
_C_ENCODE = c_make_encoder(None, _ENCODER.default, encode_basestring_ascii, None, ": ", ", ", True, False, True) \
    if c_make_encoder is not None else None


def _encode(value: Any) -> str:
    """``_ENCODER.encode(value)``."""
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    return "".join(_C_ENCODE(value, 0))


def _dump_plain(doc: dict[str, dict[str, dict[str, Any]]]) -> str:
    """:func:`dump_config_db` of a document whose tables are non-empty objects of objects of strings or lists of
    strings, with one C encoder call per table (:func:`_table_block`)."""
    assert _C_ENCODE is not None
    if not doc:
        return "{\n}\n"
    return "{\n" + ",\n".join(_table_block(table, doc[table]) for table in sorted(doc)) + "\n}\n"


def _table_block(table: str, entries: dict[str, dict[str, Any]]) -> str:
    """One table of :func:`dump_config_db`'s text, without the comma after it. Between two entries of the encoded
    table ``{"k1": {...}, "k2": {...}}`` stands ``}, "``; when the table holds no other ``}, "`` (a string may end
    in ``}, ``), one ``replace`` puts each entry on its own line; otherwise the table is encoded entry by entry."""
    assert _C_ENCODE is not None
    encoded = "".join(_C_ENCODE(entries, 0))
    if encoded.count('}, "') == len(entries) - 1:
        lines = "    " + encoded[1:-1].replace('}, "', '},\n    "')
    else:
        keys = sorted(entries)
        lines = "\n".join(f"    {_encode(k)}: {_encode(entries[k])}{',' if k != keys[-1] else ''}" for k in keys)
    return f"  {encode_basestring_ascii(table)}: {{\n{lines}\n  }}"


def dump_config_db(doc: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Canonical CONFIG_DB text: one table per block, one entry per line, keys sorted.

    Valid JSON that diffs line by line like ``indent=2`` output, at a fraction of the cost (json's
    indenting encoder is pure Python; a 64-port leaf would spend most of its render time there).
    """
    enc = _encode
    out = ["{"]
    tables = sorted(doc)
    for ti, table in enumerate(tables):
        out.append(f"  {enc(table)}: {{")
        keys = sorted(doc[table])
        last = len(keys) - 1
        out.extend(f"    {enc(k)}: {enc(doc[table][k])}{',' if i < last else ''}" for i, k in enumerate(keys))
        out.append("  }," if ti < len(tables) - 1 else "  }")
    out.append("}")
    return "\n".join(out) + "\n"
