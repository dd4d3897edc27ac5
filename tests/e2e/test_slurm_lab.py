"""roceops inside a real Slurm (Debian's 22.05 slurmctld + one slurmd per lab node, munged, all on loopback):
topology.conf from the plan, the HealthCheckProgram draining through scontrol, the Prolog failing a job start,
and an audit sharded as a job array and merged."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import hostlist
import pytest
from conftest import EXAMPLES, REPO
from labkit import Lab, start_lab
from slurmkit import Cluster, missing_prerequisite, new_cluster, wait

from roceops.topology.scheduler import leaf_nodes

pytestmark = [pytest.mark.slurm, pytest.mark.lab]

why_not = missing_prerequisite()
if why_not:
    pytest.skip(why_not, allow_module_level=True)

ROCEOPS = str(Path(sys.executable).with_name("roceops"))
MINI = str(EXAMPLES["lab-mini"])
NODES = [f"gpu{n:03d}" for n in range(1, 9)]


@dataclass
class Site:
    lab: Lab
    cluster: Cluster

    @property
    def root(self) -> Path:
        return self.cluster.root

    @property
    def env(self) -> dict[str, str]:
        """What a user's shell holds to reach the lab (sbatch hands it to the job)."""
        return {"ROCEOPS_LAB_DIR": str(self.lab.state_dir), "PYTHONWARNINGS": "ignore"}

    def roceops(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([ROCEOPS, *args], env={**self.cluster.env, **self.env}, capture_output=True,
                              text=True, timeout=120, cwd=self.root)


def install_hooks(root: Path, lab: Lab) -> None:
    """The shipped wrappers as a site installs them: beside slurm.conf, with their settings file."""
    for name in ("roceops-healthcheck.sh", "roceops-prolog.sh"):
        shutil.copy(REPO / "playbooks" / "slurm" / name, root / name)
    (root / "roceops-slurm.env").write_text(
        f"ROCEOPS={ROCEOPS}\nROCEOPS_FABRIC={MINI}\nROCEOPS_LAB=1\nROCEOPS_LAB_DIR={lab.state_dir}\n"
        f"SLURM_CONF={root / 'slurm.conf'}\nROCEOPS_HEALTHCHECK_DEADLINE=15\nROCEOPS_PROLOG_DEADLINE=10\n"
        "PYTHONWARNINGS=ignore\n")
    # test-only: record that each node's health check finished, and how
    (root / "hc-probe.sh").write_text(
        '#!/bin/sh\nhere=$(dirname -- "$0")\n"$here/roceops-healthcheck.sh" >>"$here/hc.out" 2>&1\n'
        'echo "$SLURMD_NODENAME $?" >>"$here/hc.log"\n')
    (root / "hc-probe.sh").chmod(0o755)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    lab = start_lab(tmp_path_factory.mktemp("slurm-lab"))
    cluster = new_cluster(NODES)
    try:
        assert lab.deploy().exit_code == 0
        topo = subprocess.run([ROCEOPS, "topology", "-f", MINI, "--format", "slurm"], capture_output=True,
                              text=True, timeout=60)
        assert topo.returncode == 0, topo.stderr
        install_hooks(cluster.root, lab)
        cluster.start(topo.stdout)
        config = cluster.scontrol("show", "config").stdout
        if "MULTIPLE_SLURMD         = Yes" not in config:
            pytest.skip("this Slurm build runs one slurmd per host (no --enable-multiple-slurmd)")
        yield Site(lab=lab, cluster=cluster)
    finally:
        cluster.stop()
        lab.thread.stop()
        lab.journal.close()
    assert not cluster.root.exists()


def test_slurmctld_runs_roceops_topology(site: Site) -> None:
    shown = site.cluster.scontrol("show", "topology")
    assert shown.returncode == 0, shown.stderr
    leaves: dict[str, list[str]] = {}
    parents: dict[str, list[str]] = {}
    for line in shown.stdout.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if fields.get("Level") == "0":
            leaves[fields["SwitchName"]] = sorted(hostlist.expand_hostlist(fields["Nodes"]))
        elif "Switches" in fields:
            parents[fields["SwitchName"]] = sorted(hostlist.expand_hostlist(fields["Switches"]))
    planned = {leaf: sorted(nodes) for leaf, nodes in leaf_nodes(site.lab.fabric).items()}
    assert leaves == planned
    assert parents["spine01"] == parents["spine02"] == sorted(planned)
    assert parents["lab-mini-plane1"] == ["spine01", "spine02"]


def test_job_array_shards_merge_to_the_unsharded_audit(site: Site) -> None:
    lab = site.lab
    lab.thread.inject("leaf-su1-r1", "pfc_off", port="Ethernet0")
    lab.thread.inject("gpu006", "nic_reset", port="eth1")
    try:
        out = site.root / "shards"
        out.mkdir()
        script = (f"{ROCEOPS} audit -f {MINI} --lab --shard $SLURM_ARRAY_TASK_ID/3 --format json "
                  f"--timeout 15 --journal {out}/journal-$SLURM_ARRAY_TASK_ID.sqlite "
                  f"-o {out}/shard-$SLURM_ARRAY_TASK_ID.json")
        job = site.cluster.cmd("sbatch", "--parsable", "--array=1-3", "-D", str(site.root),
                               "-o", f"{out}/task-%a.out", "--wrap", script, env=site.env).strip()
        wait(lambda: not site.cluster.cmd("squeue", "-h", "-j", job).strip(), 60, f"array job {job} to end",
             lambda: "\n".join(p.read_text() for p in out.glob("task-*.out")))
        whole = site.roceops("audit", "-f", MINI, "--lab", "--format", "json", "--timeout", "15",
                             "--journal", str(out / "whole.sqlite"))
    finally:
        lab.thread.clear(None)
        assert lab.deploy(["leaf-su1-r1", "gpu006"]).exit_code == 0
    files = sorted(out.glob("shard-*.json"))
    assert len(files) == 3, "\n".join(p.read_text() for p in out.glob("task-*.out"))
    docs = [json.loads(f.read_text()) for f in files]
    assert {d["run"]["id"] for d in docs} == {job}  # $SLURM_ARRAY_JOB_ID: one run
    merged = site.roceops("merge", *map(str, files), "--format", "json")
    assert merged.returncode == whole.returncode == 1, (merged.stderr, whole.stderr)
    got, expected = json.loads(merged.stdout), json.loads(whole.stdout)
    assert got["findings"] == expected["findings"]
    assert {f["device"] for f in got["findings"]} >= {"leaf-su1-r1", "gpu006"}
    for key in ("devices", "exit_code", "unreachable", "audited", "fabric", "fabric_sha256"):
        assert got[key] == expected[key], key


def probes_running(root: Path) -> bool:
    """A health check started by a slurmd of this cluster is still running (read from /proc, nothing signalled)."""
    probe = str(root / "hc-probe.sh").encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if probe in cmdline.read_bytes():
                return True
        except OSError:
            continue
    return False


def health_round(site: Site) -> dict[str, int]:
    """Have every slurmd run the HealthCheckProgram (slurmctld asks each node every HealthCheckInterval; the
    test turns it on for one round, then off again); node -> exit status of its first run."""
    log = site.root / "hc.log"
    seen = len(log.read_text().splitlines()) if log.exists() else 0

    def results() -> dict[str, int]:
        out: dict[str, int] = {}
        for line in (log.read_text().splitlines() if log.exists() else [])[seen:]:
            node, code = line.split()
            out.setdefault(node, int(code))
        return out

    site.cluster.reconfigure([f"HealthCheckProgram={site.root / 'hc-probe.sh'}", "HealthCheckInterval=10",
                              "HealthCheckNodeState=ANY"])
    try:
        wait(lambda: set(results()) == set(NODES), 60, "every node's health check",
             lambda: (site.root / "hc.out").read_text() if (site.root / "hc.out").exists() else "no output")
    finally:
        site.cluster.reconfigure([])
        wait(lambda: not probes_running(site.root), 30, "the health checks to end")
    return results()


def test_healthcheck_drains_only_the_faulty_node_and_resumes_it(site: Site) -> None:
    lab = site.lab
    lab.thread.inject("gpu003", "nic_reset", port="eth0")
    try:
        codes = health_round(site)
    finally:
        lab.thread.clear(None)
        assert lab.deploy(["gpu003"]).exit_code == 0
    assert codes == {n: (1 if n == "gpu003" else 0) for n in NODES}, (site.root / "hc.out").read_text()
    wait(lambda: "gpu003" in site.cluster.reasons(), 10, "gpu003 drained")
    reasons = site.cluster.reasons()
    assert set(reasons) == {"gpu003"}
    assert reasons["gpu003"].startswith("roceops: nic.roce gpu003:eth0: NIC lost RoCE settings"), reasons
    assert "drain" in site.cluster.states()["gpu003"]
    codes = health_round(site)  # fault cleared: roceops resumes the node it drained
    assert set(codes.values()) == {0}, (site.root / "hc.out").read_text()
    wait(lambda: site.cluster.states()["gpu003"] == "idle", 10, "gpu003 resumed")
    assert site.cluster.reasons() == {}


def test_prolog_failure_keeps_the_job_off_the_node_and_drains_it(site: Site) -> None:
    lab, cluster = site.lab, site.cluster
    cluster.reconfigure([f"Prolog={site.root / 'roceops-prolog.sh'}"])
    marker = site.root / "job-ran-on-gpu004"
    lab.thread.inject("gpu004", "nic_reset", port="eth0")
    job = ""
    try:
        job = cluster.cmd("sbatch", "--parsable", "-w", "gpu004", "-D", str(site.root), "-o", "/dev/null",
                          "--wrap", f"touch {marker}").strip()
        wait(lambda: "gpu004" in cluster.reasons(), 45, "gpu004 drained by the Prolog",
             lambda: cluster.log("slurmd-gpu004")[-3000:])
        shown = cluster.scontrol("show", "job", job).stdout
        assert "JobState=PENDING" in shown and "Restarts=1" in shown, shown  # requeued, not run
        assert not marker.exists()
        assert cluster.reasons() == {"gpu004": "Prolog error"}
        assert "roceops: nic.roce gpu004:eth0" in cluster.log("slurmd-gpu004")  # the Prolog's stderr, in slurmd's log
    finally:
        if job:
            cluster.cmd("scancel", job)
        lab.thread.clear(None)
        assert lab.deploy(["gpu004"]).exit_code == 0
        cluster.scontrol("update", "NodeName=gpu004", "State=RESUME")
    try:  # healthy again: the Prolog passes and the job runs there
        ok = cluster.cmd("sbatch", "--parsable", "-w", "gpu004", "-D", str(site.root), "-o", "/dev/null",
                         "--wrap", f"touch {marker}").strip()
        wait(lambda: marker.exists(), 30, f"job {ok} to run on the resumed gpu004")
    finally:
        cluster.reconfigure([])
