"""An audit's observe, facts and mode_problems parse ``sonic-cfggen -d --print-data``'s output once between them:
the results equal those of each step parsing the text itself, and no step (nor the checks after them) changes the
shared document. On the real CONFIG_DB documents of shared/fixtures/sonic and on every SONiC switch of the lab."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from labtools import lab_mini

from roceops.audit.checks import device_findings, end_facts
from roceops.audit.device import Observation, parse_observation
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.sonic import driver as sonic_driver
from roceops.platforms.sonic.driver import COLLECT, DRIVER, PRINT_DATA, VERSION, _load, breakout_problems
from roceops.platforms.sonic.facts import parse_facts
from roceops.platforms.sonic.modes import MODES_COMMAND, mode_problems
from roceops.platforms.sonic.parsers_config_db import parse_config_db
from roceops.platforms.sonic.render import buffer_model_of
from roceops.util import json_text

FIX = Path(__file__).resolve().parents[3].parent / "shared" / "fixtures" / "sonic"
CAPTURES = ["config_db_buffers_mellanox4600c_t1.json", "config_db_qos_dell9332.json",
            "config_db_qos_mellanox4600c_c64.json"]


def lab_outputs() -> list[tuple[str, dict[str, str]]]:
    """Every SONiC switch of lab-mini: its COLLECT outputs as its lab personality answers them."""
    out = []
    for spec in lab_specs(lab_mini(), configured=True):
        if spec.platform != "sonic":
            continue
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        session = personality.session_factory(state, SessionInfo(username="admin", pty=True))
        out.append((spec.name, {cmd: str(getattr(r := session.handle(cmd), "text", r)) for cmd in COLLECT}))
    assert out, "lab-mini has SONiC switches"
    return out


def each_parsing_itself(outputs: dict[str, str], intent: Any) -> tuple[Any, Any, list[str]]:
    """observe, facts and mode_problems as before: each step parsed the CONFIG_DB text itself."""
    fresh = lambda: _load(outputs[PRINT_DATA], "print-data")  # noqa: E731
    observed = parse_config_db(fresh())
    facts = parse_facts(outputs[VERSION], fresh())
    sw = sonic_driver._switch(intent)
    modes = mode_problems(outputs[MODES_COMMAND], buffer_model_of(sw)) if MODES_COMMAND in outputs else []
    modes += breakout_problems(fresh(), sonic_driver.breakout_cfg(sw))
    return observed, facts, modes


def test_every_lab_switch_same_results_one_parse_document_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = lab_mini()
    parses: list[int] = []
    real_loads = json_text.loads
    for name, outputs in lab_outputs():
        intent = plan(fabric, name)
        before = each_parsing_itself(outputs, intent)
        monkeypatch.setattr(json_text, "loads", lambda t: parses.append(len(t)) or real_loads(t))
        doc = sonic_driver._print_data(outputs[PRINT_DATA])  # the shared document, as the steps will get it
        kept = copy.deepcopy(doc)
        parses.clear()
        obs = Observation(device=name, platform="sonic", intent=intent, expected=DRIVER.expected(intent))
        obs.outputs = dict(outputs)  # the same str objects, as an audit's collect hands them on
        parse_observation(obs)
        assert obs.error is None
        assert len(parses) < len(COLLECT) and len(outputs[PRINT_DATA]) not in parses  # the CONFIG_DB: not again
        monkeypatch.setattr(json_text, "loads", real_loads)
        assert (obs.observed, obs.facts, obs.mode_problems) == before
        device_findings(fabric, obs, ())
        end_facts(fabric, obs)
        assert doc == kept  # no step, nor the checks, changed the shared document


@pytest.mark.parametrize("name", CAPTURES)
def test_real_config_db_same_results_and_untouched(name: str) -> None:
    path = FIX / name
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared/fixtures)")
    text = path.read_text()
    outputs = {PRINT_DATA: text, VERSION: "SONiC Software Version: SONiC.202405\nHwSKU: x\n"}
    doc = sonic_driver._print_data(text)
    kept = copy.deepcopy(doc)
    assert DRIVER.observe(outputs) == parse_config_db(_load(text, "fixture"))
    assert DRIVER.facts(outputs) == parse_facts(outputs[VERSION], _load(text, "fixture"))
    assert doc == kept and sonic_driver._print_data(text) is doc
