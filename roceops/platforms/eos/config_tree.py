"""EOS configuration text as a tree: hier_config (with roceops' rules for the lines it renders) and a light
reader that builds the same lines and nesting for read-only use (:func:`config_tree`)."""

from __future__ import annotations

import re
from typing import Any

from hier_config import HConfig, MatchRule, get_hconfig
from hier_config.models import IdempotentCommandsRule, NegationDefaultWithRule
from hier_config.platforms.arista_eos.driver import HConfigDriverAristaEOS
from hier_config.platforms.driver_base import HConfigDriverBase, HConfigDriverRules


class EosHConfigDriver(HConfigDriverAristaEOS):
    """hier_config's EOS driver plus the commands roceops renders: value-style lines replace each other
    (no negation needed), and ``no priority`` in a tx-queue is undone with ``priority strict``."""

    @staticmethod
    def _instantiate_rules() -> HConfigDriverRules:
        rules = HConfigDriverAristaEOS._instantiate_rules()
        intf, txq, bgp = MatchRule(startswith="interface "), MatchRule(startswith=("tx-queue ", "uc-tx-queue ")), \
            MatchRule(startswith="router bgp ")
        top_values = ("service routing protocols model", "spanning-tree mode", "priority-flow-control pause watchdog "
                      "default timeout", "priority-flow-control pause watchdog default recovery-time",
                      "priority-flow-control pause watchdog default polling-interval",
                      "priority-flow-control pause watchdog action")
        idempotent = [IdempotentCommandsRule(match_rules=(MatchRule(startswith=v),)) for v in top_values]
        idempotent += [
            IdempotentCommandsRule(match_rules=(MatchRule(re_search=r"^qos map traffic-class (\d+) "),)),
            *(IdempotentCommandsRule(match_rules=(intf, MatchRule(startswith=v)))
              for v in ("description", "speed", "qos trust", "load-interval", "vrf")),
            IdempotentCommandsRule(match_rules=(intf, MatchRule(re_search=r"^priority-flow-control priority (\d) "))),
            *(IdempotentCommandsRule(match_rules=(intf, txq, MatchRule(startswith=v)))
              for v in ("bandwidth percent", "bandwidth guaranteed percent", "shape rate",
                        "random-detect ecn minimum-threshold")),
            *(IdempotentCommandsRule(match_rules=(bgp, MatchRule(startswith=v)))
              for v in ("router-id", "maximum-paths")),
            IdempotentCommandsRule(match_rules=(bgp, MatchRule(re_search=r"^neighbor (\S+) remote-as "))),
        ]
        negate = NegationDefaultWithRule(match_rules=(intf, txq, MatchRule(equals="no priority")),
                                         use="priority strict")
        return rules.model_copy(update={"idempotent_commands": [*rules.idempotent_commands, *idempotent],
                                        "negate_with": [*rules.negate_with, negate]})


HC_DRIVER = EosHConfigDriver()


def hconfig(text: str) -> HConfig:
    """EOS config text (a running-config, a rendered file) as a hier_config tree (comments and ``end`` dropped)."""
    return get_hconfig(HC_DRIVER, text)


class ConfigLine:
    """A config line with lines indented under it: the part of a hier_config node :func:`observe_config` reads.

    ``children`` are the lines under it, in order: a line without lines under it is just its text (a
    ``str``), so the tree has one object per section, not per line.
    """

    __slots__ = ("children", "text")

    def __init__(self, text: str, children: list[ConfigLine | str]) -> None:
        self.text, self.children = text, children


Line = ConfigLine | str  # a node of a :func:`config_tree`


def line_text(node: Line) -> str:
    return node if isinstance(node, str) else node.text


def line_children(node: Line) -> list[Line] | tuple[()]:
    return () if isinstance(node, str) else node.children


class _NeedsHConfig(Exception):
    """A line the plain reader leaves to hier_config (banner, duplicate line, sectional exit)."""


_RULES = HC_DRIVER.rules
_LINE_SUBS = [(re.compile(r.search), r.replace) for r in _RULES.per_line_sub]
_ANY_LINE_SUB = re.compile("|".join(f"(?:{r.search})" for r in _RULES.per_line_sub) or "(?!)")
_EXITS = {"exit", *(r.exit_text for r in _RULES.sectional_exiting if r.exit_text)}
_PLAIN_READER = not (_RULES.full_text_sub or _RULES.indent_adjust or _RULES.post_load_callbacks
                     or _RULES.parent_allows_duplicate_child) \
    and type(HC_DRIVER).config_preprocessor is HConfigDriverBase.config_preprocessor


def config_tree(text: str) -> ConfigLine:
    """EOS config text as a tree of lines, the same lines and nesting as :func:`hconfig` (read-only use).

    Reads lines the way hier_config's loader does (whitespace collapsed, the driver's per-line
    substitutions, parents by indentation) without its per-line costs; text with a banner, a duplicate
    line in one section or an ``exit`` line goes through :func:`hconfig` itself (same result and errors
    as before), whose tree is then copied into the same shape.
    """
    if _PLAIN_READER:
        try:
            return _plain_tree(text)
        except _NeedsHConfig:
            pass
    return _copied("", hconfig(text))


def _copied(text: str, node: Any) -> ConfigLine:
    return ConfigLine(text, [_copied(c.text, c) if c.children else c.text for c in node.children])


def _plain_tree(text: str) -> ConfigLine:
    lines = text.splitlines()
    # a running-config repeats most of its lines: read each distinct line once
    read = {raw: _plain_line(raw) for raw in dict.fromkeys(lines)}
    root = ConfigLine("", [])
    sections = [root]
    children, parent = root.children, -1  # where lines go now, and the indentation of the line they are under
    enclosing: list[tuple[int, list[Line]]] = []  # (parent, children) of the sections around that one
    last = -1  # the indentation of the line read last
    for got in map(read.__getitem__, lines):
        if got is None:
            continue
        body, indent = got
        if indent > last and children:  # under the line read last, which becomes a section
            section = ConfigLine(children[-1], [])  # type: ignore[arg-type]  # that line is still a str here
            children[-1] = section
            sections.append(section)
            enclosing.append((parent, children))
            children, parent = section.children, last
        else:
            while indent <= parent:  # the root's indentation (-1) stops the walk
                parent, children = enclosing.pop()
        children.append(body)
        last = indent
    for section in sections:  # hier_config refuses a line twice in one section
        kids = section.children
        if len(kids) > 1 and len({c if c.__class__ is str else c.text for c in kids}) < len(kids):  # type: ignore[union-attr]
            raise _NeedsHConfig
    return root


def _plain_line(raw: str) -> tuple[str, int] | None:
    """(text, indentation) of one line as hier_config's loader reads it, None for a line it drops."""
    if raw.startswith("banner "):
        raise _NeedsHConfig
    words = raw.split()
    if not words:  # a blank line
        return None
    body = " ".join(words)  # whitespace collapsed: no space at either end
    indent = len(raw) - len(raw.lstrip())
    line = " " * indent + body
    if _ANY_LINE_SUB.search(line):  # else no substitution changes the line
        for pattern, replace in _LINE_SUBS:
            line = pattern.sub(replace, line)
        line = line.rstrip()
        if not line:
            return None
        body = line.lstrip()
        indent = len(line) - len(body)
    if body in _EXITS:
        raise _NeedsHConfig
    return body, indent
