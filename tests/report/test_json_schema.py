"""The JSON documents of audit, health and verify routing keep the keys README's "Report formats" lists: a renamed
or dropped key fails here (and must bump ``json_doc.SCHEMA`` and the README together)."""

from __future__ import annotations

import json

from roceops.audit.engine import AuditResult
from roceops.audit.report import as_dict as audit_doc
from roceops.audit.report import run_of as audit_run
from roceops.health.engine import HealthReport
from roceops.health.model import Verdict
from roceops.health.report import as_dict as health_doc
from roceops.report import json_doc
from roceops.report.result import Result
from roceops.report.shards import identity, with_identity
from roceops.topology.sharding import parse_shard
from roceops.verify.engine import VerifyResult
from roceops.verify.report import as_dict as verify_doc

FINDING = Result(check="config.drift", device="leaf1", path="ports[Ethernet0].mtu", expected=9216, observed=1500,
                 hint="roceops deploy --limit leaf1 --commit")
RESULT_KEYS = ["check", "device", "path", "status", "expected", "observed", "message", "hint", "seen", "context"]
COMMON = ["schema", "command", "fabric", "devices", "seconds", "exit_code"]


def test_every_document_starts_with_its_schema_and_command() -> None:
    audit = audit_doc(AuditResult(fabric="f", devices=["leaf1"], audits=[], findings=[FINDING], seconds=1.5), [])
    health = health_doc(HealthReport(nodes=["gpu1"], results=[FINDING.model_copy(update={"device": "gpu1"})],
                                     verdicts=[Verdict(node="gpu1", status="drain")], seconds=2.0, devices=3))
    verify = verify_doc(VerifyResult(fabric="f", run_id="rv1", devices=["leaf1"], findings=[FINDING], seconds=7.0))
    assert list(audit) == [*COMMON, "unreachable", "resolved", "findings"]
    assert list(health) == [*COMMON, "nodes", "verdicts", "checked", "results"]
    assert list(verify)[:len(COMMON) + 3] == [*COMMON, "run_id", "phases", "counts"] and list(verify)[-1] == "findings"
    for doc, command, key in ((audit, "audit", "findings"), (health, "health", "results"),
                              (verify, "verify routing", "findings")):
        assert (doc["schema"], doc["command"]) == ("roceops.report/1", command) == (json_doc.SCHEMA, command)
        assert [list(r) for r in doc[key]] == [RESULT_KEYS]  # one Result shape for every command
        json.dumps(doc)  # plain JSON
    assert list(health["verdicts"][0]) == ["node", "status", "reasons"]


def test_a_shard_also_carries_its_identity() -> None:
    result = AuditResult(fabric="f", devices=["leaf1", "leaf2"], audits=[], findings=[FINDING], seconds=1.5)
    run = with_identity(audit_run(result), identity("ab" * 32, "r1", parse_shard("1/2"), ["leaf1", "leaf2"],
                                                    ["leaf1", "leaf2"]))
    doc = json_doc.as_dict(result.findings, run)
    assert list(doc)[-4:] == ["audited", "fabric_sha256", "run", "findings"]
    assert list(doc["run"]) == ["id", "shard", "selected", "positions"] and doc["audited"] == [
        ["leaf1", "unknown"], ["leaf2", "unknown"]]
