"""Lint building blocks: Finding, Severity, the rule registry and the context a rule receives.

A rule is a small function registered with :func:`rule`; it receives a
:class:`LintContext` and yields :class:`Hit` objects (path, message, optional
hint). The registry turns hits into :class:`Finding` objects carrying the
rule's stable id and severity. Rules that need the expanded fabric declare
``needs_fabric=True`` and are skipped when expansion failed (the expansion
error is itself a finding).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from pydantic import BaseModel, ConfigDict

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.model.intent import FabricIntent, SwitchModel
from roceops.plan import plan
from roceops.topology.fabric import Fabric, Host, Switch


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Finding(BaseModel):
    """One lint result: which rule, how bad, where in the intent, what and how to fix it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    severity: Severity
    path: str
    message: str
    hint: str

    def __str__(self) -> str:
        return f"{self.severity} {self.id} {self.path}: {self.message} (fix: {self.hint})"


@dataclass(frozen=True)
class Hit:
    """What a rule yields; ``hint`` overrides the rule's default hint when the fix depends on the case."""

    path: str
    message: str
    hint: str | None = None


CheckFn = Callable[["LintContext"], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str  # what it checks, one line (docs/lint-rules.md)
    hint: str  # default fix, one line
    needs_fabric: bool
    check: CheckFn

    def run(self, ctx: LintContext) -> list[Finding]:
        return [Finding(id=self.id, severity=self.severity, path=h.path, message=h.message, hint=h.hint or self.hint)
                for h in self.check(ctx)]


class RuleRegistry:
    """Lint rules by id. Ids are stable: never reuse one for a different check."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def rule(self, rule_id: str, severity: Severity | str, summary: str, hint: str, *,
             needs_fabric: bool = False) -> Callable[[CheckFn], CheckFn]:
        def register(fn: CheckFn) -> CheckFn:
            self.add(Rule(rule_id, Severity(severity), summary, hint, needs_fabric, fn))
            return fn
        return register

    def add(self, r: Rule) -> None:
        if r.id in self._rules:
            raise ValueError(f"lint rule id {r.id} is registered twice")
        self._rules[r.id] = r

    def __iter__(self) -> Iterator[Rule]:
        return iter(sorted(self._rules.values(), key=lambda r: r.id))

    def __len__(self) -> int:
        return len(self._rules)

    def __getitem__(self, rule_id: str) -> Rule:
        return self._rules[rule_id]


RULES = RuleRegistry()
rule = RULES.rule


@dataclass
class LintContext:
    """What rules look at: the intent, and when expansion succeeded the fabric and lazily planned devices."""

    intent: FabricIntent
    fabric: Fabric | None = None
    expansion_error: Exception | None = None
    _plans: dict[str, SwitchIntent | HostIntent] = field(default_factory=dict, repr=False)

    def plan(self, device: str) -> SwitchIntent | HostIntent:
        if device not in self._plans:
            assert self.fabric is not None, "plan() needs an expanded fabric"
            self._plans[device] = plan(self.fabric, device)
        return self._plans[device]

    def switch_plan(self, device: str) -> SwitchIntent:
        p = self.plan(device)
        assert isinstance(p, SwitchIntent)
        return p

    def host_plan(self, device: str) -> HostIntent:
        p = self.plan(device)
        assert isinstance(p, HostIntent)
        return p

    @cached_property
    def tier_models(self) -> dict[str, tuple[str, SwitchModel]]:
        """Tier name -> (model name, SwitchModel) for the tiers that will be built."""
        tiers = self.intent.tiers
        out = {"leaf": (tiers.leaf.model, self.intent.switch_models[tiers.leaf.model])}
        if not self.intent.rail_only:
            out["spine"] = (tiers.spine.model, self.intent.switch_models[tiers.spine.model])
            if tiers.core is not None:
                out["core"] = (tiers.core.model, self.intent.switch_models[tiers.core.model])
        return out

    @cached_property
    def port_speeds(self) -> list[int]:
        return sorted({m.port_speed for _, m in self.tier_models.values()})

    @cached_property
    def host_groups(self) -> list[list[Host]]:
        """Hosts with identical resolved settings (they differ only in addresses); plan one of each."""
        assert self.fabric is not None
        groups: dict[str, list[Host]] = defaultdict(list)
        by_id: dict[int, str] = {}
        for h in self.fabric.hosts:
            key = by_id.get(id(h.settings))
            if key is None:
                key = by_id[id(h.settings)] = h.settings.model_dump_json()
            groups[key].append(h)
        return list(groups.values())

    @cached_property
    def switch_groups(self) -> list[list[Switch]]:
        """Switches whose buffer plan is identical: same model, settings and (speed, cable) mix of ports."""
        assert self.fabric is not None
        groups: dict[tuple[object, ...], list[Switch]] = defaultdict(list)
        for sw in self.fabric.switches:
            mix: dict[tuple[int, int], int] = defaultdict(int)
            for link in self.fabric.links_of(sw.name):
                mix[(link.speed, link.cable_length)] += 1
            key = (sw.model, sw.role, json.dumps(sw.settings.model_dump(mode="json"), sort_keys=True),
                   tuple(sorted(mix.items())))
            groups[key].append(sw)
        return list(groups.values())


@dataclass(frozen=True)
class LintReport:
    findings: list[Finding]
    fabric: Fabric | None = field(default=None, repr=False, compare=False)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def ids(self) -> set[str]:
        return {f.id for f in self.findings}

    def __str__(self) -> str:
        return "\n".join(str(f) for f in self.findings)
