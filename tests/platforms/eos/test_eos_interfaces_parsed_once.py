"""An audit's operational and facts parse ``show interfaces | json`` once between them: the results equal those of
each parsing the text itself, and neither (nor the checks after them) changes the shared document. On every EOS
switch of the lab (shared/fixtures has no ``show interfaces | json`` capture)."""

from __future__ import annotations

import copy

import pytest
from labtools import lab_mini

from roceops.audit.checks import device_findings, end_facts
from roceops.audit.device import Observation, parse_observation
from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.eos import parsers as p
from roceops.platforms.eos.driver import COLLECT, DRIVER
from roceops.platforms.eos.facts import parse_facts
from roceops.util import json_text


def test_every_lab_switch_same_results_one_parse_document_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = lab_mini()
    real_loads = json_text.loads
    parses: list[int] = []
    seen = 0
    for spec in lab_specs(fabric, configured=True):
        if spec.platform != "eos":
            continue
        seen += 1
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        session = personality.session_factory(state, SessionInfo(username="admin", pty=True))
        session.handle("enable")
        outputs = {cmd: str(getattr(r := session.handle(cmd), "text", r)) for cmd in COLLECT}
        text = outputs[p.CMD_INTERFACES]
        assert '"interfaces"' in text
        intent = plan(fabric, spec.name)
        # before: each step parsed the text itself (here: other str objects of the same JSON, never the kept one)
        oper_before = for_intent(DRIVER.operational({**outputs, p.CMD_INTERFACES: " " + text}), intent)
        facts_before = parse_facts(outputs[p.CMD_VERSION], text + " ")
        doc = p.interfaces_document(text)
        kept = copy.deepcopy(doc)
        parses.clear()
        monkeypatch.setattr(json_text, "loads", lambda t: parses.append(len(t)) or real_loads(t))
        obs = Observation(device=spec.name, platform="eos", intent=intent, expected=DRIVER.expected(intent))
        obs.outputs = dict(outputs)
        parse_observation(obs)
        monkeypatch.setattr(json_text, "loads", real_loads)
        assert obs.error is None
        assert len(text.strip()) not in parses  # not parsed again
        assert obs.oper == oper_before and obs.facts == facts_before
        device_findings(fabric, obs, ())
        end_facts(fabric, obs)
        assert doc == kept
    assert seen
