"""JUnit XML reporter: one testcase per device of the run; a departure is a <failure>, a device that could not be
checked (or a value that could not be read) an <error>, a skipped check <skipped>."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from roceops.report.result import Result, Run, by_device

_ERROR = ("error", "unknown")


def to_junit(results: Sequence[Result], run: Run) -> str:
    mine = by_device(results)
    failures = sum(1 for d in run.devices if any(r.departs for r in mine.get(d, ())))
    errors = sum(1 for d in run.devices if any(r.status in _ERROR for r in mine.get(d, ())))
    suite = ET.Element("testsuite", name=f"roceops {run.command} {run.fabric}", tests=str(len(run.devices)),
                       failures=str(failures), errors=str(errors), time=f"{run.seconds:.3f}")
    for device in run.devices:
        case = ET.SubElement(suite, "testcase", classname=f"{run.fabric}.{run.group(device)}", name=device)
        for r in mine.get(device, ()):
            if r.status == "ok":
                continue
            if r.status == "skipped":
                ET.SubElement(case, "skipped", message=f"{r.check} {r.path}: {r.message}".strip())
                continue
            tag = "error" if r.status in _ERROR else "failure"
            el = ET.SubElement(case, tag, message=f"{r.check} {r.path}".strip(), type=r.check)
            exp, obs = json.dumps(r.expected, default=str), json.dumps(r.observed, default=str)
            el.text = f"expected {exp}, observed {obs}\n{r.message}\nfix: {r.hint}"
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
