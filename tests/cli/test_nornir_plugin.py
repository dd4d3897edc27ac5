"""The Nornir inventory plugin is registered by entry point and builds hosts from the fabric."""

from __future__ import annotations

from conftest import EXAMPLES
from nornir import InitNornir

from roceops.nornir_glue.inventory import device_intent


def test_initnornir_with_the_fabric_plugin(monkeypatch) -> None:
    monkeypatch.setenv("ROCEOPS_PASSWORD", "from-env-only")
    nr = InitNornir(runner={"plugin": "threaded", "options": {"num_workers": 4}},
                    inventory={"plugin": "roceops.FabricInventory", "options": {"fabric": str(EXAMPLES["lab-mini"])}},
                    logging={"enabled": False})
    assert len(nr.inventory.hosts) == 14
    leaf = nr.inventory.hosts["leaf-su2-r1"]
    assert leaf.platform == "cumulus_linux"
    assert {"leaf", "cumulus", "su2", "rail1", "plane1"} <= {g.name for g in leaf.groups}
    assert leaf.hostname == "192.168.100.3"
    assert leaf.password == "from-env-only"  # credentials from the environment, never from the fabric file
    assert device_intent(leaf).name == "leaf-su2-r1"
    assert nr.filter(filter_func=lambda h: h.data["role"] == "host").inventory.hosts.keys() >= {"gpu001"}
    hosts = nr.inventory.hosts
    assert hosts["spine01"].platform == "arista_eos" and hosts["gpu001"].platform == "linux"
