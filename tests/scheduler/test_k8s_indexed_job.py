"""The shipped Kubernetes Indexed Job: valid for the official client's models, and its shell line audits shard
JOB_COMPLETION_INDEX+1 of N with the Job's uid as the run identity."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import REPO

kubernetes = pytest.importorskip("kubernetes", reason="the dev extra installs the kubernetes client")

MANIFEST = REPO / "playbooks" / "k8s" / "roceops-audit-indexed-job.yaml"


class _Response:  # what older clients' ApiClient.deserialize reads: an HTTP response with its body in .data
    def __init__(self, doc: dict) -> None:
        self.data = json.dumps(doc)


def load_job():
    doc = yaml.safe_load(MANIFEST.read_text())
    api = kubernetes.client.ApiClient()
    try:  # recent clients: deserialize(body text, type, content type)
        job = api.deserialize(json.dumps(doc), "V1Job", "application/json")
    except TypeError:  # older clients: deserialize(response, type)
        job = api.deserialize(_Response(doc), "V1Job")
    return doc, api, job


def test_manifest_is_a_v1_job_every_key_known() -> None:
    doc, api, job = load_job()
    assert isinstance(job, kubernetes.client.V1Job)
    # the models drop keys they do not know: a round trip that changes nothing means every key was understood
    assert api.sanitize_for_serialization(job) == doc
    spec = job.spec
    assert spec.completion_mode == "Indexed"
    assert spec.completions == spec.parallelism == 16
    assert spec.template.spec.restart_policy == "Never"
    container = spec.template.spec.containers[0]
    run_id = next(e for e in container.env if e.name == "ROCEOPS_RUN_ID")
    assert run_id.value_from.field_ref.field_path == "metadata.labels['batch.kubernetes.io/controller-uid']"


@pytest.mark.parametrize(("index", "rc", "pod_exit"), [(0, 0, 0), (15, 1, 0), (3, 2, 0), (7, 3, 3)])
def test_pod_command_audits_its_shard(tmp_path: Path, index: int, rc: int, pod_exit: int) -> None:
    _, _, job = load_job()
    container = job.spec.template.spec.containers[0]
    fake = tmp_path / "roceops"
    fake.write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/args"\nexit {rc}\n')
    fake.chmod(0o755)
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}", "JOB_COMPLETION_INDEX": str(index),
           "ROCEOPS_RUN_ID": "uid-1"}
    done = subprocess.run([*container.command, *container.args], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == pod_exit, done.stderr
    args = (tmp_path / "args").read_text().split()
    assert args[:2] == ["audit", "-f"]
    assert args[args.index("--shard") + 1] == f"{index + 1}/{job.spec.completions}"
    assert args[args.index("--run-id") + 1] == "uid-1"
    assert args[args.index("-o") + 1] == f"/results/shard-{index + 1}.json"
