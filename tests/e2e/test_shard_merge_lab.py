"""audit --shard I/N against the lab, and `roceops merge` of the shards: exactly the unsharded audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES
from labkit import deployed_lab  # noqa: F401  (fixture)
from typer.testing import CliRunner

from roceops.cli.main import app

pytestmark = pytest.mark.lab
runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def in_lab(deployed_lab, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ROCEOPS_LAB_DIR", str(deployed_lab.state_dir))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ROCEOPS_RUN_ID", raising=False)
    monkeypatch.delenv("SLURM_ARRAY_JOB_ID", raising=False)
    return deployed_lab


def audit_json(tmp: Path, name: str, *extra: str) -> tuple[Path, int]:
    out = tmp / f"{name}.json"
    result = cli("audit", "-f", str(EXAMPLES["lab-mini"]), "--lab", "--format", "json", "-o", str(out),
                 "--journal", str(tmp / f"{name}.sqlite"), "--timeout", "10", *extra)
    assert result.exit_code in (0, 1, 2), result.output
    return out, result.exit_code


def comparable(doc: dict) -> dict:
    return {k: doc[k] for k in ("fabric", "devices", "exit_code", "unreachable", "findings", "resolved", "audited",
                                "fabric_sha256")}


def test_three_shards_merge_to_the_unsharded_audit(in_lab, tmp_path: Path) -> None:
    # drift on both ends of SU1's cables and on a spine: findings in every shard, some across a host-leaf link
    in_lab.thread.inject("leaf-su1-r1", "pfc_off", port="Ethernet0")
    in_lab.thread.inject("gpu005", "nic_reset", port="eth0")
    in_lab.thread.inject("spine02", "pfc_off", port="Ethernet1/1")
    try:
        whole, whole_code = audit_json(tmp_path, "whole")
        shards = [audit_json(tmp_path, f"s{i}", "--shard", f"{i}/3", "--run-id", "r1") for i in (1, 2, 3)]
    finally:
        in_lab.thread.clear(None)
        assert in_lab.deploy(["leaf-su1-r1", "gpu005", "spine02"]).exit_code == 0
    docs = [json.loads(p.read_text()) for p, _ in shards]
    assert [d["run"]["shard"] for d in docs] == ["1/3", "2/3", "3/3"]
    assert sum(d["devices"] for d in docs) == len(in_lab.names)
    merged = cli("merge", *(str(p) for p, _ in shards), "--format", "json")
    assert merged.exit_code == whole_code == 1, merged.output
    expected = json.loads(whole.read_text())
    got = json.loads(merged.stdout)
    assert comparable(got) == comparable(expected)
    assert {f["device"] for f in got["findings"]} >= {"leaf-su1-r1", "gpu005", "spine02"}
    assert got["run"] == {"id": "r1", "shard": None, "selected": 14, "merged_shards": 3, "missing_shards": []}
    for fmt in ("junit", "markdown", "prometheus"):
        assert cli("merge", *(str(p) for p, _ in shards), "--format", fmt).exit_code == 1
    page = cli("merge", *(str(p) for p, _ in shards), "--format", "html", "-f", str(EXAMPLES["lab-mini"]))
    assert page.exit_code == 1 and page.stdout.lstrip().lower().startswith("<!doctype html")
    assert all(d in page.stdout for d in ("leaf-su1-r1", "gpu005", "spine02"))
    no_map = cli("merge", *(str(p) for p, _ in shards), "--format", "html")
    assert no_map.exit_code == 3 and "-f" in no_map.stderr
    other = cli("merge", *(str(p) for p, _ in shards), "--format", "html", "-f", str(EXAMPLES["fabric"]))
    assert other.exit_code == 3 and "is not the fabric file the shards ran on" in other.stderr


def test_merge_reports_missing_and_foreign_shards(in_lab, tmp_path: Path) -> None:
    shards = [audit_json(tmp_path, f"s{i}", "--shard", f"{i}/3", "--run-id", "r2")[0] for i in (1, 2, 3)]
    missing = cli("merge", str(shards[0]), str(shards[2]))
    assert missing.exit_code == 2
    assert "1 of 3 shards missing from run r2: 2/3" in missing.stderr
    other, _ = audit_json(tmp_path, "other", "--shard", "2/3", "--run-id", "another")
    foreign = cli("merge", str(shards[0]), str(other), str(shards[2]))
    assert foreign.exit_code == 3 and "from another run" in foreign.stderr
    twice = cli("merge", str(shards[0]), str(shards[0]))
    assert twice.exit_code == 3 and "both shard 1/3" in twice.stderr
    doc = json.loads(shards[1].read_text())
    doc["fabric_sha256"] = "0" * 64
    (tmp_path / "edited.json").write_text(json.dumps(doc))
    edited = cli("merge", str(shards[0]), str(tmp_path / "edited.json"), str(shards[2]))
    assert edited.exit_code == 3 and "from another fabric" in edited.stderr


def test_a_shard_needs_a_run_identity(in_lab, tmp_path: Path) -> None:
    result = cli("audit", "-f", str(EXAMPLES["lab-mini"]), "--lab", "--shard", "1/2", "--format", "json")
    assert result.exit_code == 3 and "needs a run identity" in result.stderr


def test_audit_topology_conf_reports_a_node_under_another_leaf(in_lab, tmp_path: Path) -> None:
    conf = tmp_path / "topology.conf"
    good = cli("topology", "-f", str(EXAMPLES["lab-mini"]), "--format", "slurm", "-o", str(conf))
    assert good.exit_code == 0
    clean, code = audit_json(tmp_path, "clean", "--topology-conf", str(conf), "--limit", "host")
    assert code == 0, clean.read_text()
    conf.write_text(conf.read_text().replace("SwitchName=leaf-su2-r1 Nodes=gpu[005-008]",
                                             "SwitchName=leaf-su2-r1 Nodes=gpu[005-007]"))
    moved, code = audit_json(tmp_path, "moved", "--topology-conf", str(conf), "--limit", "host")
    findings = json.loads(moved.read_text())["findings"]
    assert code == 1
    assert [(f["check"], f["device"], f["expected"], f["observed"]) for f in findings] == [
        ("schedule.topology", "gpu008", ["leaf-su2-r1", "leaf-su2-r2"], ["leaf-su2-r2"])]


def test_health_sweep_shards_merge_to_the_unsharded_verdicts(in_lab, tmp_path: Path) -> None:
    def sweep(name: str, *extra: str, code: int = 1) -> Path:
        out = tmp_path / f"{name}.json"
        result = cli("health", "-f", str(EXAMPLES["lab-mini"]), "--lab", "--all", "--window", "1s",
                     "--deadline", "20s", "--format", "json", *extra)
        assert result.exit_code == code, result.output
        out.write_text(result.stdout)
        return out

    in_lab.thread.inject("gpu003", "pause_storm", port="eth0")  # a counter fault: nothing to redeploy
    try:
        whole = json.loads(sweep("whole").read_text())
        shards = [sweep(f"h{i}", "--shard", f"{i}/2", "--run-id", "h1", code=code) for i, code in ((1, 1), (2, 0))]
    finally:
        in_lab.thread.clear(None)
    assert [json.loads(p.read_text())["nodes"] for p in shards] == [4, 4]
    merged = cli("merge", *(str(p) for p in shards))
    assert merged.exit_code == 1, merged.output
    got = json.loads(merged.stdout)
    def verdicts(doc: dict) -> list[tuple[str, str, list[str]]]:  # a measured rate differs run to run: check names
        return [(v["node"], v["status"], [r.split(":")[0] for r in v["reasons"]]) for v in doc["verdicts"]]

    assert verdicts(got) == verdicts(whole)
    assert [v["node"] for v in got["verdicts"] if v["status"] == "drain"] == ["gpu003"]
    assert got["run"]["id"] == "h1" and got["run"]["missing_shards"] == []


def test_empty_shards_merge_too(in_lab, tmp_path: Path) -> None:
    whole, code = audit_json(tmp_path, "spines", "--limit", "spine")
    shards = [audit_json(tmp_path, f"e{i}", "--limit", "spine", "--shard", f"{i}/4", "--run-id", "e")
              for i in range(1, 5)]
    assert [json.loads(p.read_text())["devices"] for p, _ in shards] == [1, 1, 0, 0]
    assert {c for _, c in shards} == {code} == {0}
    merged = cli("merge", *(str(p) for p, _ in shards))
    assert merged.exit_code == 0
    assert comparable(json.loads(merged.stdout)) == comparable(json.loads(whole.read_text()))
