"""The lab process takes each platform's simulated-device module from the spec its starter wrote, so it never
loads the platform registry (which imports every product platform room: drivers, parsers, templates)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from labtools import free_endpoint_base
from pydantic import ValidationError

from roceops.lab.runtime import SPEC_FILE, LabConfig, LabThread
from roceops.lab.spec import LabDeviceSpec

PROBE = """
import sys
from pathlib import Path
from roceops.lab.personality import get_personality, use_device_modules
from roceops.lab.runtime import LabConfig
config = LabConfig.model_validate_json(Path(sys.argv[1]).read_text())
use_device_modules(config.device_modules)
for dev in config.devices:
    get_personality(dev.platform).state_factory(dev.name, dev.platform, dev.extra)
print(sorted(m for m in sys.modules if m.startswith(("roceops.platforms", "roceops.registry", "jinja2"))))
"""


def test_the_lab_process_imports_no_platform_room(tmp_path: Path) -> None:
    specs = [LabDeviceSpec(name=f"d-{p}", platform=p, extra={"hostname": f"d-{p}"})
             for p in ("sonic", "cumulus", "eos", "linux_mlx5")]
    base, port = free_endpoint_base()
    LabThread(specs, tmp_path / "state", port=port, base_address=base)  # writes the spec; not started
    spec = tmp_path / "state" / SPEC_FILE
    written = json.loads(spec.read_text())
    assert written["device_modules"] == {p: f"roceops.lab.devices.{p}" for p in ("cumulus", "eos", "linux_mlx5",
                                                                                    "sonic")}
    out = subprocess.run([sys.executable, "-c", PROBE, str(spec)], capture_output=True, text=True, timeout=120,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_a_spec_naming_something_other_than_a_module_is_refused() -> None:
    dev = {"name": "d", "platform": "sonic"}
    with pytest.raises(ValidationError, match="device_modules"):
        LabConfig.model_validate({"devices": [dev], "device_modules": {"sonic": "os; rm -rf /"}})
