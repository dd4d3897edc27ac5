"""A platform room's Jinja environment (StrictUndefined) and the rendering of one device through its templates."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from functools import lru_cache
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

import jinja2

from roceops.device.change import RenderedDevice
from roceops.device.intent import Intent
from roceops.platforms.base import get_platform
from roceops.resources import templates_dir


def _tojson_compact(value: Any) -> str:
    """Compact, ASCII-only JSON literal of ``value`` (strings straight through the C encoder, as json.dumps would)."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _tojson(value: Any) -> str:
    """JSON literal of ``value`` without Jinja's HTML escaping (templates render config, not HTML).

    Strings go through the C string encoder directly (templates may call this once per field).
    """
    if isinstance(value, str):
        return encode_basestring(value)
    return json.dumps(value, sort_keys=True)


_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja's environment, with ``x.name`` on a plain dict looked up as the key straight away.

    Jinja tries ``getattr(x, name)`` first and falls back to ``x[name]``; on a dict that attribute lookup
    raises (and catches) an AttributeError for every field a template reads, which was the largest single
    cost of rendering. A plain dict has no attributes but ``dir(dict)``'s, so the result is the same.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        # jinja2 3.1.6's Environment.getattr, inlined (a super() call per lookup costs ~10 % of rendering):
        # https://github.com/pallets/jinja/blob/3.1.6/src/jinja2/environment.py (Environment.getattr)
        try:
            return getattr(obj, attribute)
        except AttributeError:
            pass
        try:
            return obj[attribute]
        except (TypeError, LookupError, AttributeError):
            return self.undefined(obj=obj, name=attribute)


@lru_cache(maxsize=16)
def environment(platform: str, root: str | None = None) -> jinja2.Environment:
    """The platform's templates: ``root/<platform>``, else its room's own folder (``Platform.templates``), else
    ``templates/<platform>`` shipped with roceops."""
    own = None if root else get_platform(platform).templates
    folder = own if own is not None else (Path(root) if root else templates_dir()) / platform
    env = _Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,  # templates do not change during a run; skip a stat() per include
        cache_size=-1,
    )
    env.filters["tojson_compact"] = _tojson_compact
    env.filters["tojson"] = _tojson
    env.filters["sha256"] = lambda s: hashlib.sha256(str(s).encode()).hexdigest()
    return env


def render_device(intent: Intent, only: Collection[str] | None = None,
                  context: dict[str, Any] | None = None) -> RenderedDevice:
    """Render every output file of one device (or the ones named in ``only``), through the room's ``render_all``
    where it has one and every file is wanted; ``context``: the device's render context, if made already.
    Raises jinja2 errors on template bugs."""
    platform = get_platform(intent.platform)
    if only is None and context is None and platform.code.render_all is not None:
        return RenderedDevice(name=intent.name, platform=intent.platform, files=platform.code.render_all(intent))
    env = environment(intent.platform)
    context = platform.render_context(intent) if context is None else context
    files: dict[str, str] = {}
    finish = platform.code.postprocess
    for out in platform.outputs:
        if only is not None and out.filename not in only:
            continue
        text = env.get_template(out.template).render(**context)
        files[out.filename] = finish[out.filename](text) if out.filename in finish else text
    return RenderedDevice(name=intent.name, platform=intent.platform, files=files)
