"""Build ``gcu_rules.json``: `config apply-patch`'s field-operation rules per SONiC release, as data.

Reads, per release branch, sonic-utilities' ``generic_config_updater`` as vendored in
``../shared/oracles/sonic-gcu/vendor/<release>/`` (sonic-net/sonic-utilities, the branch heads in
``vendor/COMMITS``) and writes one JSON document with, per release:

* ``tables`` and ``hwsku_asics``: ``gcu_field_operation_validators.conf.json`` verbatim (its ``tables`` and
  ``helper_data.rdma_config_update_validator``);
* ``validators``: how each validator function named there matches fields, read from
  ``field_operation_validators.py`` with :mod:`ast` (the arguments it passes to
  ``rdma_config_update_validator_common``, or the pre-202505 stand-alone version: exact match, port names
  dropped; ``buffer_profile_config_update_validator``'s object-level operations);
* ``asic_detection``: which Mellanox families ``get_asic_name()`` checks (202411 lists spc5 in the data but its
  code never checks it) and which ``asic_type`` values name the ASIC directly (``cisco-8000``, ...);
* ``illegal_operations`` and ``messages``: ``ConfigWrapper.validate_field_operation``'s hard-coded refusals and
  the texts it raises (``gu_common.py``);
* ``source``: repository, branch, commit and the sha256 of every file read.

Run from the repository root (a test checks the shipped file equals a fresh build)::

    python -m roceops.platforms.sonic.gcu_import ../shared/oracles/sonic-gcu \
        --out roceops/platforms/sonic/gcu_rules.json
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

REPO = "sonic-net/sonic-utilities"
PACKAGE = "generic_config_updater"
CONF = f"{PACKAGE}/gcu_field_operation_validators.conf.json"
VALIDATORS = f"{PACKAGE}/field_operation_validators.py"
COMMON = f"{PACKAGE}/gu_common.py"
SHIPPED = Path(__file__).with_name("gcu_rules.json")


class GcuImportError(ValueError):
    """A vendor file is missing or not shaped as expected (the message names it)."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _commits(root: Path) -> dict[str, str]:
    path = root / "vendor" / "COMMITS"
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise GcuImportError(f"{path}: {exc.strerror}") from None
    return {p[0]: p[1] for p in (line.split() for line in lines) if len(p) >= 2}


def _parse(path: Path) -> ast.Module:
    try:
        with warnings.catch_warnings():  # the vendor's regexes carry invalid escapes: not ours to fix
            warnings.simplefilter("ignore")
            return ast.parse(path.read_text(), filename=str(path))
    except (OSError, SyntaxError) as exc:
        raise GcuImportError(f"{path}: cannot read ({exc})") from None


def _const(node: ast.AST) -> Any:
    return node.value if isinstance(node, ast.Constant) else None


def _asic_detection(tree: ast.Module) -> dict[str, Any]:
    """From ``get_asic_name``: Mellanox families checked, and asic_type values that name the ASIC themselves."""
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_asic_name"), None)
    if func is None:
        raise GcuImportError("field_operation_validators.py has no get_asic_name()")
    families: list[str] = []
    own: dict[str, str] = {}
    for node in ast.walk(func):
        # asic_mapping["mellanox_asics"]["spcN"]
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)
                and _const(node.value.slice) == "mellanox_asics" and isinstance(_const(node.slice), str)
                and node.slice.value not in families):  # type: ignore[attr-defined]
            families.append(node.slice.value)  # type: ignore[attr-defined]
        # if asic_type == 'cisco-8000': asic = "cisco-8000"
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.comparators) == 1:
            left, right = node.test.left, node.test.comparators[0]
            if isinstance(left, ast.Name) and left.id == "asic_type" and isinstance(_const(right), str):
                for stmt in node.body:
                    if (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
                            and stmt.targets[0].id == "asic" and isinstance(_const(stmt.value), str)):
                        own[right.value] = stmt.value.value  # type: ignore[attr-defined]
    return {"mellanox_families_checked": families, "own_asic_types": own}


def _validators(tree: ast.Module) -> dict[str, dict[str, Any]]:
    """How each ``*_validator`` function matches a patch element (see the module docstring)."""
    out: dict[str, dict[str, Any]] = {}
    for func in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        name = func.name
        if not name.endswith("_validator"):
            continue
        key = f"{PACKAGE}.field_operation_validators.{name}"
        if name == "port_config_update_validator":
            out[key] = {"kind": "port_state_db"}
            continue
        calls = [c for c in ast.walk(func) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id == "rdma_config_update_validator_common"]
        object_ops: list[str] | None = None
        for node in ast.walk(func):
            if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id == "allowed_object_operations"):
                object_ops = list(ast.literal_eval(node.value))
        if calls:
            kw = {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords}
            entry: dict[str, Any] = {"kind": "rdma", "exact_field_match": bool(kw.get("exact_field_match", False)),
                                     "remove_port": bool(kw.get("remove_port", False))}
        elif name == "rdma_config_update_validator":  # before 202505: one function, exact match, ports dropped
            entry = {"kind": "rdma", "exact_field_match": True, "remove_port": True}
        else:
            raise GcuImportError(f"validator {name} has a shape this importer does not know")
        if object_ops is not None:
            entry["object_level_operations"] = object_ops  # /TABLE/<key> ops allowed whatever the fields
        out[key] = entry
    return out


def _gu_common(tree: ast.Module) -> tuple[dict[str, list[str]], dict[str, str]]:
    """``illegal_operations_to_fields_map`` and the two refusal texts of ``validate_field_operation``."""
    illegal: dict[str, list[str]] | None = None
    messages: dict[str, str] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "illegal_operations_to_fields_map"):
            illegal = ast.literal_eval(node.value)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                and isinstance(_const(node.func.value), str)):
            text = node.func.value.value  # type: ignore[attr-defined]
            if text.startswith("Given patch operation is invalid. Operation:"):
                messages["illegal_operation"] = text
            elif text.startswith("Modification of {} table is illegal"):
                messages["validator_refused"] = text
    if illegal is None or set(messages) != {"illegal_operation", "validator_refused"}:
        raise GcuImportError("gu_common.py: validate_field_operation's illegal-operation map or messages not found")
    return illegal, messages


def build_release(root: Path, release: str, commit: str) -> dict[str, Any]:
    base = root / "vendor" / release
    files = [base / CONF, base / VALIDATORS, base / COMMON]
    for f in files:
        if not f.is_file():
            raise GcuImportError(f"{f}: missing")
    try:
        conf = json.loads(files[0].read_text())
    except json.JSONDecodeError as exc:
        raise GcuImportError(f"{files[0]}: not JSON ({exc.msg}, line {exc.lineno})") from None
    illegal, messages = _gu_common(_parse(files[2]))
    tree = _parse(files[1])
    return {
        "source": {"repo": REPO, "branch": release, "commit": commit,
                   "files": [{"path": str(f.relative_to(base)), "read_from": str(f.relative_to(root)),
                              "sha256": _sha256(f)} for f in files]},
        "hwsku_asics": conf["helper_data"]["rdma_config_update_validator"],
        "tables": conf["tables"],
        "validators": _validators(tree),
        "asic_detection": _asic_detection(tree),
        "illegal_operations": illegal,
        "messages": messages,
    }


def build(root: Path) -> dict[str, Any]:
    """The whole rules document from a sonic-gcu oracle folder (``../shared/oracles/sonic-gcu``)."""
    commits = _commits(root)
    releases = sorted(r for r in commits if (root / "vendor" / r / PACKAGE).is_dir())
    if not releases:
        raise GcuImportError(f"{root}/vendor: no release folders listed in COMMITS")
    return {"_comment": "Built by roceops/platforms/sonic/gcu_import.py from the vendor files listed per release "
                        "(read_from: under the sonic-gcu oracle, ../shared/oracles/sonic-gcu); do not edit by hand.",
            "releases": {r: build_release(root, r, commits[r]) for r in releases}}


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m roceops.platforms.sonic.gcu_import",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("oracle", type=Path, help="the sonic-gcu oracle folder (../shared/oracles/sonic-gcu)")
    ap.add_argument("--out", type=Path, default=SHIPPED)
    args = ap.parse_args(argv)
    try:
        text = dumps(build(args.oracle))
    except GcuImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
