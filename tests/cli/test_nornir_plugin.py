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


def test_skip_logout_closes_without_the_logout_dialogue() -> None:
    from roceops.nornir_glue.runner import skip_logout

    class _Session:  # Netmiko's shape: disconnect() runs cleanup() (the logout dialogue), then closes
        def __init__(self) -> None:
            self.calls: list[str] = []

        def cleanup(self, command: str = "exit") -> None:
            self.calls.append(f"cleanup {command}")

        def disconnect(self) -> None:
            self.cleanup()
            self.calls.append("closed")

    polite, quiet = _Session(), _Session()
    skip_logout(quiet)
    polite.disconnect()
    quiet.disconnect()
    assert polite.calls == ["cleanup exit", "closed"]
    assert quiet.calls == ["closed"]
    skip_logout(None)  # a connection that never opened: nothing to do
