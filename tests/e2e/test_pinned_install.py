"""Issue 24: installs are reproducible (constraints.txt pins what the tests passed with) and drift can be seen early.

The README's two quick-start commands and .ci/run install with ``-c constraints.txt``; ``ROCEOPS_LATEST=1 bash
.ci/run`` tests the newest versions instead. Both are documented in the README.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from test_quickstart import quickstart_commands

REPO = Path(__file__).resolve().parents[2]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and version.strip(), f"constraints.txt: not an exact pin: {line!r}"
            pins[_norm(name)] = version.strip()
    return pins


def test_constraints_pin_every_declared_dependency_exactly_and_not_roceops() -> None:
    pins = _pins()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    names = {_norm(re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0]) for d in declared}
    assert names <= set(pins), sorted(names - set(pins))
    assert "roceops" not in pins and "asyncssh" in pins and "cryptography" in pins


def test_readme_commands_and_ci_install_with_the_constraints() -> None:
    for command in quickstart_commands():
        assert "pip install -q -c constraints.txt " in command, command
    ci = (REPO / ".ci" / "run").read_text()
    assert "-c constraints.txt" in ci.split("# The README's test command, verbatim:")[1]


def test_newest_versions_run_is_documented_and_wired() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    latest = ci.split('if [ "${ROCEOPS_LATEST:-0}" = 1 ]; then', 1)[1].split("\nfi\n", 1)[0]
    assert "constraints.txt" not in latest and "--upgrade" in latest and "pytest" in latest
    readme = (REPO / "README.md").read_text()
    assert "ROCEOPS_LATEST=1 bash .ci/run" in readme and "constraints.txt" in readme


# how a test file skips without the binding (a file that merely names the module, e.g. in a list, does not count)
SKIPS_WITHOUT_LIBYANG = r'importorskip\("libyang"|skip\(f?"[^"]*YANG'


def test_readme_names_every_test_file_that_needs_libyang() -> None:
    """The libyang note counts the tests that skip without the binding, per file; every such file is named."""
    readme = (REPO / "README.md").read_text()
    note = readme.split("**libyang:**", 1)[1].split("\n\n", 1)[0]
    users = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").rglob("test_*.py")
                   if p.name != "test_pinned_install.py" and re.search(SKIPS_WITHOUT_LIBYANG, p.read_text()))
    assert users and all(f"`{u}`" in note for u in users), (users, note)
    assert "about 20" not in note
