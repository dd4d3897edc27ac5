"""A host's persistence files rendered once per class of hosts and filled in per host (the audit's expected file
hashes) are byte for byte the full rendering, and templates that could treat a host's own values other than by
printing them are refused (the full rendering is used instead)."""

from __future__ import annotations

import hashlib

import pytest
from conftest import example_dict

from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.linux_mlx5 import INSTALL_TARGETS
from roceops.platforms.linux_mlx5 import persisted as by_class
from roceops.platforms.linux_mlx5.render import PERSISTED
from roceops.platforms.templating import environment, render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Host


@pytest.mark.parametrize("example", ["lab-mini", "fabric", "fabric-800g"])
def test_every_host_gets_exactly_the_full_rendering(example: str) -> None:
    fabric = expand(FabricIntent.model_validate(example_dict(example)))
    hosts = [plan(fabric, d.name) for d in fabric.devices() if isinstance(d, Host)]
    assert len(hosts) >= 8
    for intent in hosts:
        assert by_class.persisted_files(intent, PERSISTED) == render_device(intent, only=PERSISTED).files, intent.name


def test_the_audit_expects_the_hashes_of_the_full_rendering() -> None:
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    for name in ("gpu001", "gpu008"):
        intent = plan(fabric, name)
        files = render_device(intent, only=PERSISTED).files
        want = {INSTALL_TARGETS[n].path: hashlib.sha256(files[n].encode()).hexdigest() for n in PERSISTED}
        boot = get_driver("linux_mlx5").expected(intent).boot
        assert boot is not None and boot.files == want


def test_hosts_that_differ_only_in_their_own_values_share_one_class_rendering() -> None:
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    by_class._CACHE._items.clear()
    for d in fabric.devices():
        if isinstance(d, Host):
            by_class.persisted_files(plan(fabric, d.name), PERSISTED)
    assert len(by_class._CACHE._items) == 1  # lab-mini's hosts: one node model, one NIC layout


def test_a_host_value_that_json_would_escape_takes_the_full_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    intent = plan(fabric, "gpu001")
    nic = next(iter(intent.nics))
    odd = intent.model_copy(update={"nics": {**intent.nics, nic: intent.nics[nic].model_copy(
        update={"leaf": 'leaf"quoted'})}})
    calls: list[str] = []
    real = by_class.render_device
    monkeypatch.setattr(by_class, "render_device", lambda i, only: calls.append(i.name) or real(i, only=only))
    assert by_class.persisted_files(odd, PERSISTED) == real(odd, only=PERSISTED).files
    assert calls == ["gpu001"]


@pytest.mark.parametrize("template", [
    "{% if nic.leaf == 'leaf-su1-r1' %}x{% endif %}",  # a branch on a host's own value
    "{{ nic.leaf | upper }}",  # another filter
    "{{ nic.leaf | center(30) }}",  # layout from its length
    "{{ nic.leaf ~ '-x' }}",  # concatenated
    "{% set x = nic.address %}{{ x }}",  # assigned
    "{{ nic['leaf'] }}",  # by subscript
    "{{ nics | map(attribute='leaf') | join(',') }}",  # through a filter's attribute argument
    "{% filter upper %}{{ host.name }}{% endfilter %}",  # printed inside a transforming block
    "{{ host.mgmt_ip }}",  # more of the host than the class key holds
    "{% for n in host.nics %}{{ n }}{% endfor %}",
])
def test_templates_using_a_host_value_other_than_printing_it_are_refused(template: str) -> None:
    ast = environment("linux_mlx5").parse(template)
    with pytest.raises(by_class._Unsafe):
        by_class._check(ast, None, None)


@pytest.mark.parametrize("template", ["{{ nic.leaf }}", "- {{ nic.address | tojson_compact }}",
                                      "{{ host.name }} ({{ host.model }})"])
def test_printing_a_host_value_is_accepted(template: str) -> None:
    by_class._check(environment("linux_mlx5").parse(template), None, None)


def test_the_shipped_persisted_templates_are_safe_to_fill_in() -> None:
    assert by_class.slot_safe(tuple(PERSISTED))
