"""How SONiC reads CONFIG_DB keys and references: the lab's own implementation (the simulator shares no code
with the product's parsers, so a parser bug cannot be mirrored here)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from roceops.util.sorting import id_set


def unref(value: str | None) -> str | None:
    """The object name inside a ``[TABLE|name]`` (or ``[TABLE:name]``) reference; a plain name as it is.

    >>> unref("[WRED_PROFILE|AZURE_LOSSLESS]"), unref("AZURE"), unref(None)
    ('AZURE_LOSSLESS', 'AZURE', None)
    """
    if value is None:
        return None
    text = value.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return text
    inner = text[1:-1]
    cut = min((i for i in (inner.find("|"), inner.find(":")) if i >= 0), default=-1)
    return inner[cut + 1:] if cut >= 0 else inner


def priorities(value: str | None) -> list[int]:
    """A ``pfc_enable``-style list ``"3,4"`` as sorted priorities; absent or empty is [].

    >>> priorities("4,3"), priorities(""), priorities(None)
    ([3, 4], [], [])
    """
    return sorted({int(word) for word in (value or "").split(",") if word.strip().isdigit()})


@lru_cache(maxsize=1024)  # every port repeats the same few id specs
def _ids(spec: str) -> tuple[int, ...]:
    return tuple(id_set(spec))


def port_keyed(table: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """Entries keyed by a port or a comma list of ports, one entry per port (a later key's fields win).

    >>> port_keyed({"Ethernet0,Ethernet8": {"a": "1"}, "Ethernet8": {"b": "2"}})
    {'Ethernet0': {'a': '1'}, 'Ethernet8': {'a': '1', 'b': '2'}}
    """
    out: dict[str, dict[str, str]] = {}
    for key, fields in table.items():
        for port in key.split(","):
            out.setdefault(port.strip(), {}).update(fields)
    return out


def port_id_keyed(table: Mapping[str, Mapping[str, str]], copy: bool = True) -> dict[tuple[str, int], dict[str, str]]:
    """``<ports>|<ids>`` entries (QUEUE, BUFFER_PG, ...) per (port, id); ``copy=False`` shares the fields.

    >>> port_id_keyed({"Ethernet0|3-4": {"x": "1"}})
    {('Ethernet0', 3): {'x': '1'}, ('Ethernet0', 4): {'x': '1'}}
    """
    out: dict[tuple[str, int], dict[str, str]] = {}
    for key, fields in table.items():
        ports, sep, spec = key.rpartition("|")
        if not sep:
            continue
        try:
            ids = _ids(spec)
        except ValueError:
            continue
        for port in ports.split(","):
            for number in ids:
                out[(port.strip(), number)] = dict(fields) if copy else fields  # type: ignore[assignment]
    return out
