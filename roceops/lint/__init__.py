"""Intent validation beyond the schema: ``lint(intent) -> LintReport``.

Rules live in ``rules_*.py`` and register themselves with ``roceops.lint.model.rule``;
``docs/lint-rules.md`` lists them. Expansion errors become findings (TOPO000,
TOPO001, ADDR001); rules that need the expanded fabric are skipped then.

>>> from roceops.model.loader import load
>>> report = lint(load("inventory/lab-mini.yaml").intent)
>>> report.ok
True
"""

from __future__ import annotations

from roceops.hardware import UnknownSwitchProfile
from roceops.hardware.nics import UnknownNic
from roceops.lint import (
    rules_addressing,
    rules_congestion,
    rules_hardware,
    rules_headroom,
    rules_host,
    rules_load_balancing,
    rules_model_profiles,
    rules_nccl,
    rules_overrides,
    rules_pfc,
    rules_qos,
    rules_topology,
    rules_validity,
)
from roceops.lint.model import RULES, Finding, Hit, LintContext, LintReport, Rule, RuleRegistry, Severity, rule
from roceops.model.intent import FabricIntent
from roceops.plan.hardware import NoVendorHeadroom
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

_RULE_MODULES = (rules_addressing, rules_congestion, rules_hardware, rules_headroom, rules_host, rules_load_balancing,
                 rules_model_profiles, rules_nccl, rules_overrides, rules_pfc, rules_qos, rules_topology,
                 rules_validity)
_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1}


def lint(intent: FabricIntent, fabric: Fabric | None = None, *, registry: RuleRegistry = RULES) -> LintReport:
    """Run every rule. Pass ``fabric`` when the caller has already expanded ``intent`` (saves an expansion)."""
    ctx = LintContext(intent=intent, fabric=fabric)
    if fabric is None:
        try:
            ctx.fabric = expand(intent)
        except Exception as exc:  # every expansion failure is reported as a finding, never a traceback
            ctx.expansion_error = exc
    findings: list[Finding] = []
    for r in registry:
        if r.needs_fabric and ctx.fabric is None:
            continue
        findings.extend(_run(r, ctx))
    findings.sort(key=lambda f: (_SEVERITY_ORDER[f.severity], f.id, f.path))
    return LintReport(findings=findings, fabric=ctx.fabric)


def _run(r: Rule, ctx: LintContext) -> list[Finding]:
    try:
        return r.run(ctx)
    except (UnknownNic, UnknownSwitchProfile, NoVendorHeadroom):  # a device that cannot be planned: HW008, HW001
        return []  # and HDRM003 report each once
    except Exception as exc:  # a broken rule must not hide the others' findings
        return [Finding(id="LINT000", severity=Severity.ERROR, path="", hint="report this lint bug",
                        message=f"rule {r.id} failed: {type(exc).__name__}: {exc}")]


__all__ = ["RULES", "Finding", "Hit", "LintContext", "LintReport", "Rule", "RuleRegistry", "Severity", "lint", "rule"]
