"""A class's marked persistence files filled in per host without running the setup scripts' check again where it
provably accepts every filling (values of word characters in comments or past a command line's first word), and
with the check where that proof does not hold: the same bytes, or the same error, as the full rendering."""

from __future__ import annotations

import string

import pytest
from conftest import example_dict

from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5 import persisted as by_class
from roceops.platforms.linux_mlx5 import render
from roceops.platforms.linux_mlx5.persisted import fills_stay_simple
from roceops.platforms.linux_mlx5.render import PERSISTED, ScriptError
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand

SLOT = "zqroceopsslot"
ACCEPTED = [
    "#!/bin/bash\nset -euo pipefail\n# roceops: settings for zqroceopsslot0qz (model)\nip link set dev eth0 mtu 9000\n",
    "echo 1 > /sys/class/net/zqroceopsslot1qz/ecn/roce_np/enable/3\n",  # in the redirection's target
    "ip route replace default via zqroceopsslot2qz dev eth0 table 100\n",  # a word past the first
    "mlnx_qos -i eth0 --trust=zqroceopsslot3qz\n  # zqroceopsslot4qz zqroceopsslot5qz\n",
    "ip a\n",  # no slot at all
]
REFUSED = [
    "zqroceopsslot0qz --flag\n",  # the first word: it could become a keyword or an assignment
    "echozqroceopsslot0qz x\n",
    "ip a; echo zqroceopsslot0qz\n",  # not a simple command as it is
    "echo x\nset -euo pipefail\n# zqroceopsslot0qz\n",  # the preamble after a command
    "echo zqroceopsslot0qz",  # no final newline
]
WORDS = [*string.ascii_letters[:3], *"0_@%+=:,./-", "10.0.0.1", "a=b", "if", "then", "x-y.z:1/2", "leaf-su1-r1",
         "Ethernet1/1", "-", "."]


@pytest.mark.parametrize("text", ACCEPTED)
def test_every_word_filling_of_an_accepted_text_passes_the_check_unchanged(text: str) -> None:
    assert fills_stay_simple(text, SLOT)
    for word in WORDS:
        filled = by_class._MARKERS.sub(word, text)
        assert render._simple_script(filled), (word, filled)  # the one-pass check accepts it: no fallback
        assert render._checked_script(filled) == filled


@pytest.mark.parametrize("text", REFUSED)
def test_texts_whose_fillings_could_change_kind_keep_the_check(text: str) -> None:
    assert not fills_stay_simple(text, SLOT)


def test_a_refused_first_word_filling_is_refused_by_the_check() -> None:
    """Why the first word is excluded: a slot there filled with a keyword or an assignment is not a command."""
    for word in ("if", "a=b"):
        with pytest.raises(ScriptError):
            render._checked_script(by_class._MARKERS.sub(word, REFUSED[0]))


def test_filling_is_the_pattern_substitution() -> None:
    marked = "a zqroceopsslot1qz b zqroceopsslot0qzzqroceopsslot1qz\nzqroceopsslot2qz"
    values = ["x", "y y", "zqroceopsslot0qz"]
    assert by_class._fill(marked, values) == by_class._MARKERS.sub(lambda m: values[int(m.group(1))], marked)
    assert by_class._fill("plain", values) == "plain"


@pytest.mark.parametrize("leaf", ["leaf one", "leaf;reboot", "$(id)", "leaf'1"])
def test_a_host_value_that_is_not_a_word_is_checked_and_rendered_as_in_full(leaf: str,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    intent = plan(fabric, "gpu002")
    nic = next(iter(intent.nics))
    odd = intent.model_copy(update={"nics": {**intent.nics, nic: intent.nics[nic].model_copy(update={"leaf": leaf})}})
    by_class.persisted_files(intent, PERSISTED)  # the class is rendered and its proof made
    checked: list[str] = []
    real = render._simple_script
    monkeypatch.setattr(render, "_simple_script", lambda text: checked.append(text) or real(text))
    assert by_class.persisted_files(intent, PERSISTED) == render_device(intent, only=PERSISTED).files
    assert len(checked) == 1  # the full rendering's check only: the class's filling with words needs none
    checked.clear()
    files = by_class.persisted_files(odd, PERSISTED)
    assert [leaf in text for text in checked] == [True]  # the class's filling was checked
    assert files == render_device(odd, only=PERSISTED).files
