"""Sharded runs: the identity each shard's JSON carries, and merging the shards' JSON back into one result.

Each ``audit --format json`` (and ``health --format json``) carries, beside what it always held:

- ``fabric_sha256``: the fabric file's sha256 (``fabric`` already names it);
- ``run``: ``{"id", "shard" ("I/N" or null), "selected" (devices or nodes selected before sharding), "positions"
  (each of this shard's devices' place in that selection)}``;
- ``audited``: ``[[device, group], ...]`` in the run's order (an audit's group is the device's platform: JUnit
  and Prometheus name it).

This module checks that shard files belong to one run and orders their entries; the merges themselves are
:func:`roceops.audit.merge.merge_audit` and :func:`roceops.health.merge.merge_health`, which rebuild the result one
unsharded run gives, so every reporter writes from it what it writes for an unsharded run. Sharded runs merge
results, never reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roceops.report.result import Run
from roceops.topology.sharding import Shard, parse_shard


class ShardMismatch(ValueError):
    """Files that are not shards of one run (another fabric, another run, another N, a shard twice, not JSON of
    a sharded run); the message names the files."""


def identity(fabric_sha256: str, run_id: str, shard: Shard | None, selected: list[str],
             chosen: list[str]) -> dict[str, Any]:
    """The keys a shard's JSON carries so that merge can check and order it."""
    where = {n: i for i, n in enumerate(selected)}
    return {"fabric_sha256": fabric_sha256,
            "run": {"id": run_id, "shard": str(shard) if shard else None, "selected": len(selected),
                    "positions": [where[n] for n in chosen]}}


def with_identity(run: Run, ident: dict[str, Any]) -> Run:
    """``run`` whose JSON document also carries ``ident`` (:func:`identity`) and each device's group."""
    audited = [[d, run.group(d)] for d in run.devices]
    return run.model_copy(update={"document": {**run.document, "audited": audited, **ident}})


@dataclass
class Shards:
    """What the shard files say about themselves, checked to belong to one run."""

    fabric: str
    fabric_sha256: str
    run_id: str
    count: int
    selected: int
    docs: dict[int, dict[str, Any]]  # shard index -> its JSON
    missing: list[int] = field(default_factory=list)


def check_shards(files: list[tuple[str, Any]], kind: str) -> Shards:
    """``files``: (name, parsed JSON) of each shard; all of one fabric file, one run id and one N, each shard
    once, all of ``kind`` ("audit": has findings; "health": has verdicts). Missing shards are listed, not fatal."""
    key = "findings" if kind == "audit" else "verdicts"
    seen: dict[int, tuple[str, dict[str, Any]]] = {}
    first: tuple[str, dict[str, Any]] | None = None
    for name, doc in files:
        run = doc.get("run") if isinstance(doc, dict) else None
        if not isinstance(run, dict) or not isinstance(doc.get(key), list) or "fabric_sha256" not in doc:
            raise ShardMismatch(f"{name}: not the JSON of a roceops {kind} run with its run identity "
                                f"(roceops {kind} --format json, with --shard)")
        if not run.get("shard"):
            raise ShardMismatch(f"{name}: an unsharded run (no --shard): nothing to merge it with")
        try:
            shard = parse_shard(str(run["shard"]))
        except ValueError as exc:
            raise ShardMismatch(f"{name}: {exc}") from None
        if first is None:
            first = (name, doc)
        ref_name, ref = first
        for what, mine, theirs in (("fabric", doc.get("fabric_sha256"), ref.get("fabric_sha256")),
                                   ("run", run.get("id"), ref["run"].get("id")),
                                   ("shard count", shard.count, parse_shard(ref["run"]["shard"]).count),
                                   ("selection", run.get("selected"), ref["run"].get("selected"))):
            if mine != theirs:
                label = f"{doc.get('fabric')} (sha256 {str(mine)[:12]})" if what == "fabric" else mine
                ref_label = (f"{ref.get('fabric')} (sha256 {str(theirs)[:12]})" if what == "fabric" else theirs)
                raise ShardMismatch(f"{name} is from another {what} than {ref_name}: {label} vs {ref_label}")
        if shard.index in seen:
            raise ShardMismatch(f"{name} and {seen[shard.index][0]} are both shard {shard}")
        seen[shard.index] = (name, doc)
    if first is None:
        raise ShardMismatch("no shard files given")
    ref = first[1]
    count = parse_shard(ref["run"]["shard"]).count
    return Shards(fabric=str(ref.get("fabric", "")), fabric_sha256=str(ref["fabric_sha256"]),
                  run_id=str(ref["run"]["id"]), count=count, selected=int(ref["run"]["selected"]),
                  docs={i: d for i, (_, d) in seen.items()},
                  missing=[i for i in range(1, count + 1) if i not in seen])


def ordered(shards: Shards, names_key: str) -> list[tuple[int, Any]]:
    """(position in the selection, entry) of every shard's ``names_key`` list, in selection order."""
    out: list[tuple[int, Any]] = []
    for index, doc in shards.docs.items():
        positions, entries = doc["run"].get("positions", []), doc.get(names_key, [])
        if len(positions) != len(entries):
            raise ShardMismatch(f"shard {index}/{shards.count}: {len(entries)} {names_key} but "
                                f"{len(positions)} positions")
        out.extend(zip(positions, entries, strict=True))
    out.sort(key=lambda pe: pe[0])
    if len({p for p, _ in out}) != len(out):
        raise ShardMismatch("two shards audited the same device: they were not cut from one selection")
    return out
