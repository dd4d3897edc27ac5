"""NIC profiles: every fact carries its source; the fabric refuses firmware management for an unknown model."""

from __future__ import annotations

import pytest
from conftest import example_dict

from roceops.hardware.nics import PROFILES, UnknownNic, nic_profile
from roceops.lint import lint
from roceops.model.intent import FabricIntent


@pytest.mark.parametrize("model", ["ConnectX-7", "ConnectX-8", "BlueField-3"])
def test_every_fact_has_a_source(model: str) -> None:
    profile = nic_profile(model)
    for field in ("ports_max", "speed_max", "planes_max", "firmware_keys"):
        fact = profile.fact(field)
        assert fact.value and ("https://" in fact.source or "@" in fact.source), (model, field)


def test_profiles_say_what_the_sources_say() -> None:
    assert PROFILES["ConnectX-8"].speed_max == 400_000  # 800GbE is not supported on a single port
    assert PROFILES["ConnectX-7"].planes_max == 1 and PROFILES["ConnectX-8"].planes_max == 4
    assert PROFILES["ConnectX-7"].firmware_keys == ("LINK_TYPE", "ROCE_CC_PRIO_MASK", "CNP_DSCP", "CNP_802P_PRIO")
    with pytest.raises(UnknownNic, match="known: BlueField-3, ConnectX-7, ConnectX-8"):
        nic_profile("ConnectX-6")


def test_firmware_management_needs_a_known_nic_model() -> None:
    # a lint rule (HW008), not a model validator: the model layer sits below the hardware profiles
    data = example_dict("lab-mini")
    data["node"].update(firmware=True, nic_model="ConnectX-6")
    report = lint(FabricIntent.model_validate(data))
    hit = next(f for f in report.errors if f.id == "HW008")
    assert hit.path == "node.nic_model" and "needs a NIC profile for nic_model 'ConnectX-6'" in hit.message
