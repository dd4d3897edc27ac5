"""A host's persistence files rendered once per class of hosts and filled in per host (the audit's expected file
hashes) are byte for byte the full rendering, and templates that could treat a host's own values other than by
printing them are refused (the full rendering is used instead)."""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from conftest import example_dict

from roceops.device.intent import HostIntent
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


def test_threads_planning_their_first_hosts_at_once_check_and_render_the_class_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit's worker threads plan their first hosts at the same moment: one of them checks the templates and
    renders the class, the others wait for it and get the same bytes as the full rendering."""
    fabric = expand(FabricIntent.model_validate(example_dict("lab-mini")))
    hosts = [plan(fabric, d.name) for d in fabric.devices() if isinstance(d, Host)]
    by_class._slot_safe.cache_clear()
    by_class._CACHE._items.clear()
    checks: list[tuple[str, ...]] = []
    renders: list[int] = []
    real_check, real_render = by_class._slot_safe.__wrapped__, by_class._render_marked

    def slow_check(outputs: tuple[str, ...]) -> bool:
        checks.append(outputs)
        time.sleep(0.05)  # long enough for every other thread to ask meanwhile
        return real_check(outputs)

    def counted_render(*args: Any) -> dict[str, str] | None:
        renders.append(1)
        time.sleep(0.05)
        return real_render(*args)

    monkeypatch.setattr(by_class, "_slot_safe", functools.lru_cache(maxsize=8)(slow_check))
    monkeypatch.setattr(by_class, "_render_marked", counted_render)
    start = threading.Barrier(len(hosts))

    def one(intent: HostIntent) -> dict[str, str]:
        start.wait()
        return by_class.persisted_files(intent, PERSISTED)

    with ThreadPoolExecutor(len(hosts)) as pool:
        got = list(pool.map(one, hosts))
    assert len(checks) == 1 and len(renders) == 1
    assert got == [render_device(intent, only=PERSISTED).files for intent in hosts]
