"""The exact text of a host's persistence files, rendered once per class of hosts and filled in per host.

Every host of a fabric renders the same persistence files except for a few values of its own: its name, and
per NIC its address, source address, leaf, leaf port and route gateways. The audit hashes these files on every
host, so rendering them in full per host is most of its planning cost. Here a host's files come from a cached
rendering of its class (the render context with those values replaced by markers) with the markers replaced by
the host's own values. That yields exactly the bytes the full rendering yields, because:

* the cache key is the whole render context the templates can see, except the marked values (NIC contexts are
  frozen dataclasses, compared field by field; of the host only ``name``, ``model`` and ``roce_mtu`` are given);
* :func:`slot_safe` proves from the templates' syntax trees (each persisted template and what it includes) that a
  marked value is only ever printed, as is or through ``tojson_compact``: never compared, tested, filtered
  otherwise, measured, concatenated or assigned; so no branch, loop or layout depends on it;
* a value is filled in only where its printed form is itself (no characters JSON would escape, no line breaks),
  so the plain and the ``tojson_compact`` printing of the marker both become the value's own printing;
* the filled-in text still goes through the room's ``postprocess`` of that file (the setup script's safety
  check).

Anything else (a template that uses a marked value otherwise, a value that needs escaping, a marker left over)
falls back to the full rendering of that host.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from operator import attrgetter
from typing import Any

import jinja2
from jinja2 import meta, nodes

from roceops.device.intent import HostIntent
from roceops.platforms.base import RenderOutput, get_platform
from roceops.platforms.linux_mlx5.nic_classes import ClassKey
from roceops.platforms.linux_mlx5.render import NetplanRoute, NicContext, _checked_script, _line_kind, _simple_script
from roceops.platforms.templating import environment, render_device

PLATFORM = "linux_mlx5"
# the values of a host's own: the host's name; per NIC its address, source address, leaf and leaf port; per route
# its gateway (anything else that differs between two hosts puts them in different classes)
SLOT_ATTRS = frozenset({"name", "address", "source_ip", "leaf", "leaf_port", "via"})
_MARKER = "zqroceopsslot{}qz"  # ASCII letters and digits: printed as is, and inside quotes by tojson_compact
_MARKERS = re.compile(r"zqroceopsslot(\d+)qz")
_CACHE_SIZE = 256  # classes of hosts kept (a fabric has a handful: one per node model and NIC layout)


@dataclass(frozen=True)
class HostView:
    """What the persisted templates may read of the host (:func:`slot_safe` refuses templates reading more)."""

    name: str
    model: str
    roce_mtu: int


HOST_ATTRS = frozenset(HostView.__dataclass_fields__)
# the template variables of a marked rendering: the render context without the firmware (only mlxconfig.sh, which
# is not persisted, reads it)
MARKED_CONTEXT = frozenset({"host", "nics", "sysctls", "setup_script", "sysctl_conf", "netplan_file", "nccl",
                            "nccl_conf", "nccl_env", "firmware_sets"})


def _includes(ast: nodes.Template) -> set[str]:
    names: set[str] = set()
    for node in ast.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        template = getattr(node, "template", None)
        if not isinstance(template, nodes.Const) or not isinstance(template.value, str):
            raise _Unsafe("a template names another by an expression")
        names.add(template.value)
    return names


class _Unsafe(Exception):
    pass


# blocks that capture or transform printed text (a filter block, a macro, a call block, a block assignment, an
# autoescape scope): a marker printed inside one could change length or form, so the templates must not have them
_CAPTURING = (nodes.FilterBlock, nodes.Macro, nodes.CallBlock, nodes.AssignBlock, nodes.EvalContextModifier)


def _check(node: nodes.Node, parent: nodes.Node | None, grandparent: nodes.Node | None) -> None:
    """Raise _Unsafe where a marked value (or the host) could be used other than printed."""
    if isinstance(node, _CAPTURING):
        raise _Unsafe(f"{type(node).__name__} at line {node.lineno}")
    if isinstance(node, nodes.Getattr) and node.attr in SLOT_ATTRS:
        printed = isinstance(parent, nodes.Output)
        json_printed = (isinstance(parent, nodes.Filter) and parent.name == "tojson_compact" and parent.node is node
                        and not parent.args and not parent.kwargs and parent.dyn_args is None
                        and parent.dyn_kwargs is None and isinstance(grandparent, nodes.Output))
        if not (printed or json_printed):
            raise _Unsafe(f"'.{node.attr}' is used other than printed (line {node.lineno})")
    if isinstance(node, nodes.Name) and node.name == "host" and node.ctx == "load" \
            and not (isinstance(parent, nodes.Getattr) and parent.attr in HOST_ATTRS):
        raise _Unsafe(f"the host is used other than by {sorted(HOST_ATTRS)} (line {node.lineno})")
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value in SLOT_ATTRS:
        raise _Unsafe(f"{node.value!r} named as a constant (line {node.lineno})")  # x['leaf'], attr('leaf'), ...
    for child in node.iter_child_nodes():
        _check(child, node, parent)


# An audit's worker threads plan their first hosts at the same moment: without a lock each of them parsed every
# template (slot_safe) and rendered the class (bench/RESULTS.md, "Ninth round: issue 32 audit"). One thread does
# that work while the others wait for its result.
_FIRST_USE = threading.Lock()


def slot_safe(outputs: tuple[str, ...]) -> bool:
    """Whether the templates of these outputs (and everything they include) only print the marked values."""
    with _FIRST_USE:
        return _slot_safe(outputs)


@lru_cache(maxsize=8)
def _slot_safe(outputs: tuple[str, ...]) -> bool:
    env = environment(PLATFORM)
    assert env.loader is not None
    seen: set[str] = set()
    todo = [o.template for o in get_platform(PLATFORM).outputs if o.filename in outputs]
    try:
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            source, _, _ = env.loader.get_source(env, name)
            ast = env.parse(source)
            if unknown := meta.find_undeclared_variables(ast) - MARKED_CONTEXT:
                raise _Unsafe(f"{name} reads {sorted(unknown)}, which the marked context does not give")
            _check(ast, None, None)
            todo += sorted(_includes(ast) - seen)
    except (_Unsafe, jinja2.TemplateError):
        return False
    return True


_NIC_FIELDS = tuple(f.name for f in fields(NicContext) if f.name not in SLOT_ATTRS and f.name != "routes")
_ROUTE_FIELDS = tuple(f.name for f in fields(NetplanRoute) if f.name not in SLOT_ATTRS)
# the marked fields are exactly the ones _nic_values and _marked_nic fill in (a new field named like a slot would
# otherwise be left out of the class key without being marked)
if {f.name for f in fields(NicContext)} & SLOT_ATTRS != {"address", "source_ip", "leaf", "leaf_port"} \
        or {f.name for f in fields(NetplanRoute)} & SLOT_ATTRS != {"via"}:
    raise RuntimeError("NicContext/NetplanRoute fields named like a host's own values: update persisted.py")


# each a tuple of the fields' values (attrgetter of one name would return the value itself)
_NIC_GET, _ROUTE_GET = attrgetter(*_NIC_FIELDS), attrgetter(*_ROUTE_FIELDS)
if min(len(_NIC_FIELDS), len(_ROUTE_FIELDS)) < 2:
    raise RuntimeError("persisted._nic_key reads fewer than two fields of NicContext or NetplanRoute: update it")


def _nic_key(nic: NicContext) -> tuple[object, ...]:
    """Everything of a NIC's context the templates can see but its marked values."""
    return (*_NIC_GET(nic), tuple(map(_ROUTE_GET, nic.routes)))


def _nic_values(nic: NicContext) -> list[str]:
    """A NIC's own values, in the order :func:`_marked_nic` numbers their markers."""
    return [*(r.via for r in nic.routes), nic.address, nic.source_ip, nic.leaf, nic.leaf_port]


def _marked_nic(nic: NicContext, first: int) -> NicContext:
    n = iter(range(first, first + len(nic.routes) + 4))
    routes = tuple(replace(r, via=_MARKER.format(next(n))) for r in nic.routes)
    return replace(nic, routes=routes, address=_MARKER.format(next(n)), source_ip=_MARKER.format(next(n)),
                   leaf=_MARKER.format(next(n)), leaf_port=_MARKER.format(next(n)))


class _ClassCache:
    """Rendered marked files per class of hosts (a bounded dict). A class missing is rendered by one thread while
    the others asking for it wait (:data:`_FIRST_USE`)."""

    def __init__(self) -> None:
        self._items: dict[Any, dict[str, str]] = {}

    def get(self, key: Any, make: Callable[[], dict[str, str] | None]) -> dict[str, str] | None:
        """The class's files; on a miss ``make()``'s, kept unless None."""
        found = self._items.get(key)
        if found is not None:
            return found
        with _FIRST_USE:
            found = self._items.get(key)  # made by the thread this one waited for
            if found is None and (found := make()) is not None:
                if len(self._items) >= _CACHE_SIZE:
                    self._items.pop(next(iter(self._items)))
                self._items[key] = found
            return found


_CACHE = _ClassCache()


def _printable_as_is(value: str) -> bool:
    return "\n" not in value and "\r" not in value and encode_basestring_ascii(value) == f'"{value}"'


def all_files(intent: HostIntent) -> dict[str, str]:
    """Every output file of this host exactly as the templates render them (``PlatformCode.render_all``): the
    files whose templates only print the host's own values from its class's rendering (:func:`persisted_files`),
    the others (the firmware script reads the NICs' firmware settings) from their templates, with one context."""
    platform = get_platform(PLATFORM)
    context = platform.render_context(intent)
    by_class = _by_class(platform.outputs)
    files = persisted_files(intent, by_class, context=context) if by_class else {}
    rest = [o.filename for o in platform.outputs if o.filename not in files]
    if rest:
        files |= render_device(intent, only=rest, context=context).files
    return {o.filename: files[o.filename] for o in platform.outputs}


@lru_cache(maxsize=4)
def _by_class(outputs: tuple[RenderOutput, ...]) -> tuple[str, ...]:
    """The outputs whose templates only print the host's own values (:func:`slot_safe`), in order."""
    return tuple(o.filename for o in outputs if slot_safe((o.filename,)))


def persisted_files(intent: HostIntent, only: Sequence[str], *,
                    context: dict[str, Any] | None = None) -> dict[str, str]:
    """The files ``only`` of this host exactly as :func:`render_device` renders them (see the module doc);
    ``context``: the host's render context, if made already."""
    wanted = tuple(only)
    if not slot_safe(wanted):
        return render_device(intent, only=wanted).files
    platform = get_platform(PLATFORM)
    if context is None:
        context = platform.render_context(intent)  # the real context: validates the intent as a full render does
    values = [intent.name]  # marker 0: the host's name, then each NIC's values (see _nic_values)
    for nic in context["nics"]:
        values += _nic_values(nic)
    if not all(_printable_as_is(v) for v in values):
        return render_device(intent, only=wanted).files
    rest = tuple((k, v) for k, v in sorted(context.items()) if k in MARKED_CONTEXT - {"host", "nics"})
    nics = context["nics"]  # the key hashed by the files, host model, MTU and netdevs (ClassKey)
    key = ClassKey((wanted, intent.model, intent.roce_mtu, tuple(n.netdev for n in nics),
                    tuple(_nic_key(n) for n in nics), rest), 4)
    marked = _CACHE.get(key, lambda: _render_marked(
        platform.outputs, wanted, {**dict(rest), **_marked_context(intent, context)}, len(values)))
    if marked is None:
        return render_device(intent, only=wanted).files
    return _filled(platform.outputs, platform.code.postprocess, marked, values)


def _marked_context(intent: HostIntent, context: dict[str, Any]) -> dict[str, Any]:
    """The host and its NICs with every value of their own replaced by its numbered marker."""
    nics, first = [], 1
    for nic in context["nics"]:
        nics.append(_marked_nic(nic, first))
        first += len(nic.routes) + 4
    return {"host": HostView(_MARKER.format(0), intent.model, intent.roce_mtu), "nics": nics}


def _render_marked(outputs: Sequence[RenderOutput], wanted: tuple[str, ...], context: dict[str, Any],
                   count: int) -> dict[str, str] | None:
    """The class's files with markers, or None if a template reads something the marked context does not give
    or a marker came out other than whole."""
    env = environment(PLATFORM)
    files: dict[str, str] = {}
    try:
        for out in outputs:
            if out.filename in wanted:
                files[out.filename] = env.get_template(out.template).render(**context)
    except jinja2.UndefinedError:
        return None
    text = "".join(files.values())
    whole = len(_MARKERS.findall(text)) == text.count("zqroceopsslot")
    return files if whole and all(int(i) < count for i in _MARKERS.findall(text)) else None


def _filled(outputs: Sequence[RenderOutput], finish: Mapping[str, Callable[[str], str]], marked: dict[str, str],
            values: list[str]) -> dict[str, str]:
    """The class's marked files with this host's values, each finished as :func:`render_device` finishes it. The
    setup scripts' check returns its text, or raises: it is left out where it accepts every filling of the class's
    file with values of word characters (:func:`fills_stay_simple`), as this host's are."""
    files: dict[str, str] = {}
    words = all(SAFE_WORD.fullmatch(v) for v in values)
    for out in outputs:
        if out.filename not in marked:
            continue
        text = _fill(marked[out.filename], values)
        step = finish.get(out.filename)
        if step is not None and not (words and checked_script(step) and _stays_simple(marked[out.filename])):
            text = step(text)
        files[out.filename] = text
    return files


@lru_cache(maxsize=_CACHE_SIZE * 8)  # the files of the classes kept (the same text objects: hashed once)
def _pieces(marked: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A class's marked file as its text around the markers and the markers' numbers, in order."""
    parts = _MARKERS.split(marked)
    return tuple(parts[0::2]), tuple(int(n) for n in parts[1::2])


def _fill(marked: str, values: list[str]) -> str:
    """``_MARKERS.sub(lambda m: values[int(m.group(1))], marked)``, from the file's :func:`_pieces`."""
    texts, numbers = _pieces(marked)
    out = [texts[0]]
    for number, text in zip(numbers, texts[1:], strict=True):
        out += (values[number], text)
    return "".join(out)


@lru_cache(maxsize=_CACHE_SIZE * 8)
def _stays_simple(marked: str) -> bool:
    return fills_stay_simple(marked, _MARKER.format("").removesuffix("qz"))


SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")  # a word of the characters a command line's words may hold


def checked_script(postprocess: Callable[[str], str]) -> bool:
    """Whether ``postprocess`` is the setup scripts' check (render's ``_checked_script``, which returns its text)."""
    return postprocess is _checked_script


def fills_stay_simple(text: str, slot: str) -> bool:
    """Whether render's ``_checked_script`` accepts ``text`` with every occurrence of ``slot`` (a word of ASCII letters
    and digits) replaced by any :data:`SAFE_WORD`: the text is accepted as it is, and every line with a slot is a
    comment or a command line whose first word has none. In a command line, ``_SIMPLE_SCRIPT``'s keyword and assignment
    look-aheads read only the first word and the blank after it, and every other slot sits in a run of word
    characters (or the redirection's target), which a safe word keeps one: each line stays of its kind."""
    if not _simple_script(text):
        return False
    for line in text.split("\n"):
        if slot not in line:
            continue
        kind = _line_kind(line)
        if kind == "neutral":  # a comment: any text but a newline keeps it one
            continue
        if kind != "command" or slot in line.lstrip(" \t").split(" ", 1)[0]:
            return False
    return True


__all__ = ["HOST_ATTRS", "MARKED_CONTEXT", "SLOT_ATTRS", "HostView", "all_files", "persisted_files", "slot_safe"]
