"""Release- and platform-specific syntax and byte units: one policy gives the same bytes on every switch
platform; EOS picks its queue keyword from the hardware and caps the MTU; nos_version reaches the intent."""

from __future__ import annotations

import json
import re
from functools import cache

from labtools import lab_mini

from roceops.device.intent import SwitchIntent
from roceops.device.observed import ObservedEcn
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.eos import parsers as eos_parsers
from roceops.platforms.eos.render import MAX_MTU, render_context
from roceops.platforms.templating import render_device

SONIC, CUMULUS, EOS = "leaf-su1-r1", "leaf-su2-r1", "spine01"
ECN_LINE = re.compile(r"random-detect ecn minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes")


@cache
def intent(name: str) -> SwitchIntent:
    got = plan(lab_mini(), name)
    assert isinstance(got, SwitchIntent)
    return got


def _ecn_bytes_sonic() -> tuple[int, int]:
    db = json.loads(render_device(intent(SONIC)).files["config_db.json"])
    profile = next(iter(p for p in db["WRED_PROFILE"].values() if p.get("ecn") not in (None, "ecn_none")))
    return int(profile["green_min_threshold"]), int(profile["green_max_threshold"])


def _ecn_bytes_cumulus() -> tuple[int, int]:
    text = render_device(intent(CUMULUS)).files["nvue.commands"]
    low = re.search(r"traffic-class 3 min-threshold (\d+)", text)
    high = re.search(r"traffic-class 3 max-threshold (\d+)", text)
    assert low and high, text
    return int(low.group(1)), int(high.group(1))


def _ecn_bytes_eos() -> tuple[int, int]:
    m = ECN_LINE.search(render_device(intent(EOS)).files["config.eos"])
    assert m
    return int(m.group(1)) * 1024, int(m.group(2)) * 1024  # EOS kbytes taken as 1024 bytes (docs/platforms.md)


def test_one_ecn_policy_gives_the_same_bytes_on_every_platform() -> None:
    # lab-mini: roce ecn min 150KB max 1500KB; KB = 1024 bytes in the fabric model
    want = (150 * 1024, 1500 * 1024)
    assert intent(SONIC).qos.queues[3].ecn is not None
    assert (intent(SONIC).qos.queues[3].ecn.min_bytes, intent(SONIC).qos.queues[3].ecn.max_bytes) == want
    assert _ecn_bytes_sonic() == want
    assert _ecn_bytes_cumulus() == want
    assert _ecn_bytes_eos() == want


def test_nos_version_reaches_the_intent_and_the_render_context() -> None:
    assert (intent(SONIC).nos_version, intent(CUMULUS).nos_version, intent(EOS).nos_version) == (
        "202411", "5.14", "4.32")  # leaf tier, su2 override (cumulus), spine tier
    assert render_context(intent(EOS))["nos_version"] == "4.32"
    assert get_platform("sonic").render_context(intent(SONIC))["nos_version"] == "202411"
    assert get_platform("cumulus").render_context(intent(CUMULUS))["nos_version"] == "5.14"


def test_eos_queue_keyword_follows_the_hardware() -> None:
    plain = render_device(intent(EOS)).files["config.eos"]
    assert "\n   tx-queue 3\n" in plain and "uc-tx-queue" not in plain  # no hwsku: tx-queue
    split = intent(EOS).model_copy(update={"hwsku": "DCS-7060DX5-64S"})
    text = render_device(split).files["config.eos"]
    assert "\n   uc-tx-queue 3\n" in text and "\n   tx-queue" not in text
    observed = eos_parsers.observe_config(text)  # the audit reads the uc-tx-queue sections back
    assert {(p.queues or {})[3].ecn for p in (observed.ports or {}).values()} == {
        ObservedEcn(min_bytes=153600, max_bytes=1536000, probability=100)}
    jericho = intent(EOS).model_copy(update={"hwsku": "DCS-7280CR3-32P4"})
    assert "uc-tx-queue" not in render_device(jericho).files["config.eos"]


def test_eos_mtu_is_capped_at_9214_and_audited_as_rendered() -> None:
    assert {p.mtu for p in intent(EOS).ports.values()} == {9216}  # the fabric's switch MTU
    text = render_device(intent(EOS)).files["config.eos"]
    assert set(re.findall(r"\n   mtu (\d+)\n", text)) == {str(MAX_MTU)}
    expected = get_platform("eos").driver.expected(intent(EOS))
    assert {p.mtu for p in (expected.ports or {}).values()} == {MAX_MTU}
