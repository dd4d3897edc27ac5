"""Key material read once per process: the known_hosts index answers as Paramiko's HostKeys does."""

from __future__ import annotations

from pathlib import Path

import paramiko

from roceops.platforms.ssh_keys import known_hosts, read_known_hosts


def _pub(kind: str = "ed25519") -> tuple[str, str]:
    key = paramiko.Ed25519Key.generate() if hasattr(paramiko.Ed25519Key, "generate") else None
    if key is None:  # Paramiko cannot generate ed25519 keys: use an ECDSA one
        key = paramiko.ECDSAKey.generate()
    return key.get_name(), key.get_base64()


def _file(tmp_path: Path) -> tuple[Path, list[str]]:
    names = ["leaf01", "[127.0.0.5]:2222", "10.0.0.7", "[spine01]:2200", "hashed-host", "[127.0.0.9]:22"]
    lines = ["# a comment", ""]
    for i, name in enumerate(names):
        kind, b64 = _pub()
        host = paramiko.HostKeys.hash_host(name) if name == "hashed-host" else name
        if i == 2:
            host = f"{host},alias-of-10.0.0.7"
        lines.append(f"{host} {kind} {b64}")
    kind, b64 = _pub()
    lines.append(f"leaf01 {kind} {b64}")  # a second entry of the same type: the first one counts
    path = tmp_path / "known_hosts"
    path.write_text("\n".join(lines) + "\n")
    return path, [*names, "alias-of-10.0.0.7", "unknown", "[leaf01]:2222"]


def test_index_answers_as_paramiko_host_keys(tmp_path: Path) -> None:
    path, names = _file(tmp_path)
    ours, theirs = read_known_hosts(path.read_text()), paramiko.HostKeys(str(path))
    for name in names:
        expected = {t: k.get_base64() for t, k in (theirs.lookup(name) or {}).items()}
        assert {t: k.get_base64() for t, k in ours.keys_for(name).items()} == expected, name
    assert ours.keys_for("hashed-host") and not ours.keys_for("unknown")


def test_the_file_is_read_once_per_version(tmp_path: Path) -> None:
    path, _ = _file(tmp_path)
    first = known_hosts(str(path))
    assert first is not None and known_hosts(str(path)) is first
    path.write_text(path.read_text() + f"newhost {' '.join(_pub())}\n")
    again = known_hosts(str(path))
    assert again is not first and again is not None and again.keys_for("newhost")
    assert known_hosts(str(tmp_path / "missing")) is None


def test_unreadable_lines_are_skipped_and_revoked_keys_trusted_nowhere() -> None:
    (kind, good), (_, bad) = _pub(), _pub()
    text = "\n".join([
        f"leaf01 {kind} {good}",
        f"leaf02,leaf03 {kind} {bad}",
        f"@revoked * {kind} {bad}",  # bad is revoked: trusted for no host, whatever the other lines say
        f"@cert-authority *.example {kind} {good}",
        "garbage line",
        f"leaf04 {kind} not-base64!!",
    ])
    index = read_known_hosts(text)
    assert index.keys_for("leaf01")[kind].get_base64() == good
    assert index.keys_for("leaf02") == {} and index.keys_for("leaf03") == {} and index.keys_for("leaf04") == {}
